package aggregator_test

import (
	_ "github.com/gorilla/mux"
	_ "github.com/gorilla/websocket"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/testutil/promlint"
	_ "github.com/spf13/cobra"
	_ "go.etcd.io/bbolt"
	_ "golang.org/x/net/http2"
	_ "k8s.io/client-go/discovery"
	_ "k8s.io/client-go/dynamic"
	_ "k8s.io/client-go/restmapper"
	_ "k8s.io/client-go/tools/clientcmd"
	_ "sigs.k8s.io/yaml"
)
