package etcdtest

import (
	"net"
	"net/http"
	"testing"
)

// TestStartRetriesATakenPort: the first client port Start picks is taken
// (a listener holds it, as another test's listener or an outgoing
// connection may between freePort and etcd's bind); Start must try other
// ports and return a healthy etcd instead of failing with etcd's
// "address already in use".
func TestStartRetriesATakenPort(t *testing.T) {
	if Binary() == "" {
		t.Skip("etcd binary not found")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	calls := 0
	pickPort = func(t testing.TB) int {
		calls++
		if calls == 1 {
			return taken.Addr().(*net.TCPAddr).Port
		}
		return freePort(t)
	}
	defer func() { pickPort = freePort }()
	s := Start(t)
	if calls != 4 {
		t.Errorf("Start picked %d ports, want 4 (two attempts)", calls)
	}
	resp, err := http.Get(s.URL() + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/health: %s", resp.Status)
	}
}
