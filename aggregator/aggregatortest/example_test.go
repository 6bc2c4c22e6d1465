package aggregatortest_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"sort"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// Start an aggregation layer, register a backend serving
// widgets.example.com/v1, and list its resources with client-go's
// discovery client, as a controller under test would. In a test, use
// aggregatortest.Start(t) and srv.RegisterBackend(t, ...), which clean up
// by themselves.
func Example() {
	srv, err := aggregatortest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	// The backend: GET /apis/widgets.example.com/v1 is its discovery
	// document. RequireFrontProxy lets only the aggregator in.
	backend := http.NewServeMux()
	backend.HandleFunc("GET /apis/widgets.example.com/v1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"widgets.example.com/v1","resources":[
			{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list","watch","create"]},
			{"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get","update"]},
			{"name":"gadgets","singularName":"gadget","namespaced":false,"kind":"Gadget","verbs":["get","list"]}]}`)
	})
	_, err = srv.AddBackend(context.Background(), aggregatortest.BackendOptions{
		Handler:  srv.RequireFrontProxy(backend),
		Group:    "widgets.example.com",
		Versions: []string{"v1"},
	})
	if err != nil {
		log.Fatal(err)
	}

	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	if err != nil {
		log.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	// One aggregated discovery request (GET /apis) answers both.
	groups, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range groups {
		if g.Name == "widgets.example.com" {
			fmt.Println("group", g.Name, "preferred", g.PreferredVersion.GroupVersion)
		}
	}
	for _, list := range lists {
		if list.GroupVersion != "widgets.example.com/v1" {
			continue
		}
		var names []string
		for _, r := range list.APIResources {
			names = append(names, fmt.Sprintf("%s (%s, namespaced=%v)", r.Name, r.Kind, r.Namespaced))
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Println(" ", n)
		}
	}
	// Output:
	// group widgets.example.com preferred widgets.example.com/v1
	//   gadgets (Gadget, namespaced=false)
	//   widgets (Widget, namespaced=true)
	//   widgets/status (Widget, namespaced=true)
}
