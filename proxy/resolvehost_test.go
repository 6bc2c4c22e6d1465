package proxy

import (
	"fmt"
	"testing"
)

func TestHostPort(t *testing.T) {
	for _, tc := range []struct {
		host string
		port int32
		want string
	}{
		{"10.0.0.1", 443, "10.0.0.1:443"},
		{"::1", 8443, "[::1]:8443"},
		{"api.wardle.svc", 1, "api.wardle.svc:1"},
	} {
		for range 2 { // the second call answers from the cache
			if got := hostPort(tc.host, tc.port); got != tc.want {
				t.Errorf("hostPort(%q, %d) = %q, want %q", tc.host, tc.port, got, tc.want)
			}
		}
	}
	host := "10.0.0.1"
	if n := testing.AllocsPerRun(100, func() { hostPort(host, 443) }); n != 0 {
		t.Errorf("a cached hostPort allocates %v times, want 0", n)
	}
}

func TestHostPortBounded(t *testing.T) {
	for i := range maxHostPorts + 10 {
		host := fmt.Sprintf("10.1.%d.%d", i/256, i%256)
		if got, want := hostPort(host, 443), host+":443"; got != want {
			t.Fatalf("hostPort(%q) = %q, want %q", host, got, want)
		}
	}
	if n := hostPortCount.Load(); n > maxHostPorts {
		t.Errorf("%d cached addresses, want at most %d", n, maxHostPorts)
	}
}
