package discovery_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aggsim/aggsim/discovery"
)

// A Manager serves /apis from the APIServices the registration controller
// hands it; Local APIServices without resources show in legacy /apis only.
func ExampleManager() {
	m, err := discovery.New(discovery.Options{})
	if err != nil {
		panic(err)
	}
	m.Update(discovery.APIService{
		Name: "v1.localx.example.com", Group: "localx.example.com", Version: "v1",
		GroupPriorityMinimum: 1000, VersionPriority: 10, Available: true,
	})
	req := httptest.NewRequest(http.MethodGet, "/apis/localx.example.com", nil)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	fmt.Print(rec.Code, " ", rec.Header().Get("Content-Type"), "\n", rec.Body.String())
	// Output:
	// 200 application/json
	// {"kind":"APIGroup","apiVersion":"v1","name":"localx.example.com","versions":[{"groupVersion":"localx.example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"localx.example.com/v1","version":"v1"}}
}
