package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/aggsim/aggsim/internal/uuid4"
)

// roleFlags are the settings of the server roles.
type roleFlags struct {
	cert, key      string // serving pair
	clientCA       string // clients must present a certificate from this CA
	body           string // static: the file answered
	contentType    string // static: its Content-Type
	backend        string // reverseproxy: backend URL
	backendCA      string // reverseproxy: CA the backend is verified against
	backendName    string // reverseproxy: server name verified
	proxyCert      string // reverseproxy: client pair presented to the backend
	proxyKey       string
	requireCertsCN string // backend: required client certificate CN
	sameHeaders    bool   // reverseproxy, static: also send aggsim's headers (diagnostic legs)
	lowerNames     bool   // reverseproxy: send lower-case field names (the backend speaks HTTP/2; diagnostic leg)
	encoderTable   int    // reverseproxy: the HTTP/2 transport's MaxEncoderHeaderTableSize (0: Go's default, 4096)
	cpuProfile     string // write the role's CPU profile, from start to stop, to this file
	auditID        string // reverseproxy with sameHeaders: "fresh", "const", "const-backend" or "const-client" (diagnostic legs)
}

func (f *roleFlags) register() {
	flag.StringVar(&f.cert, "cert", "", "role: serving certificate")
	flag.StringVar(&f.key, "key", "", "role: serving key")
	flag.StringVar(&f.clientCA, "client-ca", "", "role: CA that verifies client certificates")
	flag.StringVar(&f.body, "body", "", "static: file to answer")
	flag.StringVar(&f.contentType, "content-type", "application/json", "static: Content-Type")
	flag.StringVar(&f.backend, "backend", "", "reverseproxy: backend URL")
	flag.StringVar(&f.backendCA, "backend-ca", "", "reverseproxy: backend CA")
	flag.StringVar(&f.backendName, "backend-server-name", "", "reverseproxy: backend server name")
	flag.StringVar(&f.proxyCert, "proxy-cert", "", "reverseproxy: client certificate for the backend")
	flag.StringVar(&f.proxyKey, "proxy-key", "", "reverseproxy: client key for the backend")
	flag.StringVar(&f.requireCertsCN, "require-cn", "", "backend: required client certificate common name")
	flag.BoolVar(&f.lowerNames, "lower-names", false, "reverseproxy: send the request's field names lower-case, as HTTP/2 writes them, so that the transport need not lower-case (and allocate) them")
	flag.IntVar(&f.encoderTable, "encoder-table", 0, "reverseproxy: the backend transport's HPACK encoder table size limit (1: no field is indexed; 0: Go's default)")
	flag.StringVar(&f.cpuProfile, "role-cpuprofile", "", "role: write a CPU profile of the whole run to this file")
	flag.StringVar(&f.auditID, "audit-id", "fresh", "reverseproxy with -same-headers: a new Audit-Id per request (fresh), one constant Audit-Id to the backend and the client (const), to the backend only (const-backend) or to the client only (const-client), to see what a new HPACK literal per request costs")
	flag.BoolVar(&f.sameHeaders, "same-headers", false, "reverseproxy, static: add the headers aggsim adds (Audit-Id, X-Forwarded-*, X-Remote-Extra-*, Cache-Control; static: Audit-Id, Cache-Control) to see what they cost")
}

// runRole serves role on a free loopback port, prints "listening on
// host:port" and returns when stdin closes.
func runRole(role string, f roleFlags) error {
	pair, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(f.clientCA)
	if err != nil {
		return err
	}
	clientCAs := x509.NewCertPool()
	if !clientCAs.AppendCertsFromPEM(caPEM) {
		return errors.New("no certificate in -client-ca")
	}
	var h http.Handler
	switch role {
	case "backend":
		h = backendHandler(f.requireCertsCN)
	case "static":
		if h, err = staticHandler(f.body, f.contentType, f.sameHeaders); err != nil {
			return err
		}
	case "reverseproxy":
		if h, err = reverseProxy(f); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown role %q", role)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{pair},
			ClientAuth:   tls.RequireAndVerifyClientCert,
			ClientCAs:    clientCAs,
			NextProtos:   []string{"h2", "http/1.1"},
		},
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pf.Close()
		defer pprof.StopCPUProfile()
	}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	fmt.Printf("listening on %s\n", ln.Addr())
	// Until the parent closes stdin or exits, or stops this process
	// (SIGTERM: the CPU profile is still written).
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); done <- struct{}{} }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go func() { <-sig; done <- struct{}{} }()
	<-done
	return srv.Close()
}

// backendHandler answers object to every GET from a client whose
// certificate has the common name cn (the front-proxy client), as an
// aggregated API server requires.
func backendHandler(cn string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cn != "" && r.TLS.PeerCertificates[0].Subject.CommonName != cn {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(object)
	})
}

// staticHandler answers the file's bytes to every request; with
// sameHeaders also a new Audit-Id and Cache-Control, as aggsim answers
// /apis.
func staticHandler(path, contentType string, sameHeaders bool) (http.Handler, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sameHeaders {
			w.Header().Set("Audit-Id", uuid4.New())
			w.Header().Set("Cache-Control", "no-cache, private")
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}), nil
}

// lowerNames are the lower-case names of the fields the -lower-names
// proxy sends.
var lowerNames = map[string]string{
	"Accept": "accept", "Accept-Encoding": "accept-encoding", "User-Agent": "user-agent", "Audit-Id": "audit-id",
	"X-Remote-User": "x-remote-user", "X-Remote-Group": "x-remote-group",
	"X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id": "x-remote-extra-authentication.kubernetes.io%2fcredential-id",
	"X-Forwarded-For": "x-forwarded-for", "X-Forwarded-Host": "x-forwarded-host", "X-Forwarded-Proto": "x-forwarded-proto",
	"X-Forwarded-Uri": "x-forwarded-uri",
}

// constAuditID is the Audit-Id of the -const-audit-id proxy: formatted as
// aggsim formats a new one.
const constAuditID = "6f1c0e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

// reverseProxy is the bare proxy: httputil.ReverseProxy with its defaults,
// the caller's verified certificate turned into X-Remote-User and
// X-Remote-Group, and TLS (HTTP/2) to the backend with the front-proxy
// client certificate and the backend verified for its server name.
func reverseProxy(f roleFlags) (http.Handler, error) {
	target, err := url.Parse(f.backend)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(f.backendCA)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no certificate in -backend-ca")
	}
	client, err := tls.LoadX509KeyPair(f.proxyCert, f.proxyKey)
	if err != nil {
		return nil, err
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			subject := pr.In.TLS.PeerCertificates[0].Subject
			pr.Out.Header.Set("X-Remote-User", subject.CommonName)
			pr.Out.Header.Set("X-Remote-Group", strings.Join(subject.Organization, ","))
			if f.sameHeaders {
				// What aggsim adds, as upstream does: a request id, the
				// forwarding headers, the credential id of the caller's
				// certificate and a second group.
				id := uuid4.New()
				if f.auditID == "const" || f.auditID == "const-backend" {
					id = constAuditID
				}
				pr.Out.Header.Set("Audit-Id", id)
				pr.Out.Header.Add("X-Remote-Group", "system:authenticated")
				pr.Out.Header.Set("X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id", "X509SHA256=7b4d03751b02e075b880f617744c05725fae3a3fffc3b44ba0a856f59fae8fdf")
				pr.Out.Header.Set("X-Forwarded-For", "127.0.0.1")
				pr.Out.Header.Set("X-Forwarded-Host", pr.Out.URL.Host)
				pr.Out.Header.Set("X-Forwarded-Proto", "https")
				pr.Out.Header.Set("X-Forwarded-Uri", pr.In.URL.Path)
			}
			if f.lowerNames {
				// A new map with the names as constants, so that this
				// leg pays for no lower-casing of its own either.
				lower := make(http.Header, len(pr.Out.Header))
				for k, v := range pr.Out.Header {
					l, ok := lowerNames[k]
					if !ok {
						l = strings.ToLower(k)
					}
					lower[l] = v
				}
				pr.Out.Header = lower
			}
		},
		ModifyResponse: func(res *http.Response) error {
			if f.sameHeaders {
				// The id sent to the backend (res.Request is the outgoing
				// request), except in the modes that differ per side.
				id := res.Request.Header.Get("Audit-Id")
				switch f.auditID {
				case "const-client":
					id = constAuditID
				case "const-backend":
					id = uuid4.New()
				}
				res.Header.Set("Audit-Id", id)
				res.Header.Set("Cache-Control", "no-cache, private")
			}
			return nil
		},
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: roots, ServerName: f.backendName, Certificates: []tls.Certificate{client}},
			ForceAttemptHTTP2: true,
			HTTP2:             &http.HTTP2Config{MaxEncoderHeaderTableSize: f.encoderTable},
		},
	}, nil
}
