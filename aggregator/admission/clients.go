package admission

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clients caches one HTTP client per (caBundle, server name), as
// upstream's webhook ClientManager caches rest clients per config.
type clients struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// resolve maps a service webhook's <name>.<namespace>.svc:<port> to
	// the address to dial (nil: dial it as it is).
	resolve func(namespace, name string, port int32) (string, error)
	mu      sync.Mutex
	m       map[clientKey]*http.Client
}

type clientKey struct {
	ca, serverName string
	http1          bool
}

func newClients(dial func(ctx context.Context, network, addr string) (net.Conn, error), resolve func(namespace, name string, port int32) (string, error)) *clients {
	return &clients{dial: dial, resolve: resolve, m: map[clientKey]*http.Client{}}
}

// get returns the client verifying the webhook's serving certificate
// against caBundle (the system roots when empty) for serverName. http1
// keeps it on HTTP/1.1: kube-apiserver 1.33 reaches webhooks by service
// over HTTP/1.1 (its service dialer turns off client-go's HTTP/2) and by
// url over HTTP/2, as measured with a loopback webhook.
func (c *clients) get(caBundle []byte, serverName string, http1 bool) (*http.Client, error) {
	k := clientKey{string(caBundle), serverName, http1}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.m[k]; ok {
		return cl, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		cfg.RootCAs = pool
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		TLSClientConfig:     cfg,
		DialContext:         d.DialContext,
		ForceAttemptHTTP2:   !http1,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
	}
	if c.dial != nil {
		tr.DialContext = c.dial
	}
	if http1 && c.resolve != nil {
		// A service webhook is called at https://<svc>.<ns>.svc:<port>
		// (the URL upstream's errors show) and dialled where the Service
		// resolves to, as upstream's webhook client dials through its
		// service resolver.
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, p, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			rest, ok := strings.CutSuffix(host, ".svc")
			name, ns, ok2 := strings.Cut(rest, ".")
			port, perr := strconv.ParseInt(p, 10, 32)
			if ok && ok2 && perr == nil {
				to, err := c.resolve(ns, name, int32(port))
				if err != nil {
					return nil, err
				}
				addr = to
			}
			return dial(ctx, network, addr)
		}
	}
	if len(c.m) > 256 {
		for _, old := range c.m {
			old.CloseIdleConnections()
		}
		clear(c.m)
	}
	cl := &http.Client{Transport: tr}
	c.m[k] = cl
	return cl, nil
}

// closeIdle closes every cached client's idle connections.
func (c *clients) closeIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.m {
		cl.CloseIdleConnections()
	}
}
