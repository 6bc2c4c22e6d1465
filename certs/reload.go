package certs

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Reload defaults. Upstream watches with fsnotify and re-checks at least
// every minute (apiserver/pkg/server/dynamiccertificates/dynamic_serving_content.go);
// we poll file metadata every second and re-read contents every minute.
const (
	// DefaultReloadInterval is how often Run stats the files.
	DefaultReloadInterval = time.Second
	// DefaultFullCheckEvery is how many polls pass between unconditional
	// content re-reads (catching a rewrite that kept mtime and size).
	DefaultFullCheckEvery = 60
)

// ReloadOptions tunes DynamicCertificate and DynamicCAFile. The zero value
// polls every second and logs to slog.Default().
type ReloadOptions struct {
	// Interval between polls in Run; 0 means DefaultReloadInterval.
	Interval time.Duration
	// FullCheckEvery is the number of polls between unconditional content
	// re-reads; 0 means DefaultFullCheckEvery, 1 re-reads on every poll.
	FullCheckEvery int
	// Logger receives one Info record per reload and one Error record per
	// distinct failure; nil means slog.Default().
	Logger *slog.Logger
	// Ticks, when non-nil, replaces Run's ticker: each receive is one poll.
	// Tests use it to drive Run without timing.
	Ticks <-chan time.Time
}

// fileStamp is what a cheap poll compares: size and modification time.
type fileStamp struct {
	exists bool
	size   int64
	mtime  time.Time
}

// watcher is the polling core shared by DynamicCertificate and DynamicCAFile.
type watcher struct {
	kind  string // "certificate" or "CA bundle", for logs
	paths []string
	opts  ReloadOptions
	log   *slog.Logger
	// install parses contents (one per path) and publishes the result; it
	// returns an error, publishing nothing, if they are unusable.
	install func(contents [][]byte) error

	mu        sync.Mutex // serialises checks; guards everything below
	stamps    []fileStamp
	hash      [sha256.Size]byte // of the installed contents
	lastErr   string            // last failure logged, to log each once
	listeners []func()
}

func newWatcher(kind string, paths []string, opts ReloadOptions, install func([][]byte) error) (*watcher, error) {
	w := &watcher{kind: kind, paths: paths, opts: opts, log: opts.Logger, install: install}
	if w.log == nil {
		w.log = slog.Default()
	}
	if _, err := w.check(true, false); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *watcher) addListener(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.listeners = append(w.listeners, f)
}

// check reloads if the files changed. Without force it first compares
// stamps and returns early when they are unchanged. Listeners run after the
// lock is released, on the calling goroutine.
func (w *watcher) check(force, notify bool) (bool, error) {
	w.mu.Lock()
	stamps := make([]fileStamp, len(w.paths))
	for i, p := range w.paths {
		if fi, err := os.Stat(p); err == nil {
			stamps[i] = fileStamp{exists: true, size: fi.Size(), mtime: fi.ModTime()}
		}
	}
	if !force && slices.Equal(stamps, w.stamps) {
		w.mu.Unlock()
		return false, nil
	}
	w.stamps = stamps
	contents := make([][]byte, len(w.paths))
	h := sha256.New()
	var err error
	for i, p := range w.paths {
		if contents[i], err = os.ReadFile(p); err != nil {
			break
		}
		// Length-prefix each file so that moving bytes between files changes the hash.
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(contents[i]))))
		h.Write(contents[i])
	}
	var sum [sha256.Size]byte
	if err == nil {
		copy(sum[:], h.Sum(nil))
		if sum == w.hash {
			w.lastErr = ""
			w.mu.Unlock()
			return false, nil
		}
		err = w.install(contents)
	}
	if err != nil {
		if notify && err.Error() != w.lastErr {
			w.log.Error("keeping the previous "+w.kind+": reload failed", "files", w.paths, "err", err)
		}
		w.lastErr = err.Error()
		w.mu.Unlock()
		return false, err
	}
	w.hash = sum
	w.lastErr = ""
	listeners := slices.Clone(w.listeners)
	w.mu.Unlock()
	if notify {
		w.log.Info("reloaded "+w.kind, "files", w.paths)
	}
	for _, f := range listeners {
		f()
	}
	return true, nil
}

func (w *watcher) run(ctx context.Context) {
	ticks := w.opts.Ticks
	if ticks == nil {
		interval := w.opts.Interval
		if interval <= 0 {
			interval = DefaultReloadInterval
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		ticks = t.C
	}
	every := w.opts.FullCheckEvery
	if every <= 0 {
		every = DefaultFullCheckEvery
	}
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			w.check(n%every == 0, true) // failures are logged by check
		}
	}
}

// DynamicCertificate serves a certificate/key file pair that may change
// while the process runs, like upstream's DynamicCertKeyPairContent
// (apiserver/pkg/server/dynamiccertificates/dynamic_serving_content.go).
// A new pair replaces the current one only if both files parse and the key
// matches the certificate; otherwise the previous pair keeps being served
// and the failure is logged once. Identical content is ignored. It is safe
// for concurrent use; readers never block on a reload.
type DynamicCertificate struct {
	cur atomic.Pointer[tls.Certificate]
	w   *watcher
}

// NewDynamicCertificate loads certFile and keyFile once and returns an error
// if they are missing, unparsable or mismatched. Call Run to keep them fresh.
func NewDynamicCertificate(certFile, keyFile string, opts ReloadOptions) (*DynamicCertificate, error) {
	d := &DynamicCertificate{}
	w, err := newWatcher("certificate", []string{certFile, keyFile}, opts, func(c [][]byte) error {
		kp, err := parseKeyPair(c[0], c[1])
		if err != nil {
			return err
		}
		tc, err := tls.X509KeyPair(c[0], c[1])
		if err != nil {
			return err
		}
		tc.Leaf = kp.Cert
		d.cur.Store(&tc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.w = w
	return d, nil
}

// Current returns the pair being served; never nil. Do not modify it.
func (d *DynamicCertificate) Current() *tls.Certificate { return d.cur.Load() }

// GetCertificate returns Current; use it as tls.Config.GetCertificate.
func (d *DynamicCertificate) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return d.cur.Load(), nil
}

// GetClientCertificate returns Current; use it as
// tls.Config.GetClientCertificate (e.g. the front-proxy client certificate).
func (d *DynamicCertificate) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return d.cur.Load(), nil
}

// AddListener registers f to run after every successful change. See the
// package caveats: f runs on the reloading goroutine and must not block.
func (d *DynamicCertificate) AddListener(f func()) { d.w.addListener(f) }

// Reload re-reads both files now. It reports whether the served pair
// changed; on error the previous pair is kept and the error returned.
func (d *DynamicCertificate) Reload() (bool, error) { return d.w.check(true, true) }

// Run polls the files until ctx is done (see ReloadOptions).
func (d *DynamicCertificate) Run(ctx context.Context) { d.w.run(ctx) }

// caBundle is one immutable state of a DynamicCAFile.
type caBundle struct {
	pool  *x509.CertPool
	pem   []byte
	certs []*x509.Certificate
}

// DynamicCAFile serves a PEM CA bundle file that may change while the
// process runs, like upstream's DynamicFileCAContent
// (apiserver/pkg/server/dynamiccertificates/dynamic_cafile_content.go).
// A bundle with no parsable certificate is rejected and the previous one
// kept. It is safe for concurrent use.
type DynamicCAFile struct {
	cur atomic.Pointer[caBundle]
	w   *watcher
}

// NewDynamicCAFile loads file once and returns an error if it is missing or
// holds no valid certificate. Call Run to keep it fresh.
func NewDynamicCAFile(file string, opts ReloadOptions) (*DynamicCAFile, error) {
	d := &DynamicCAFile{}
	w, err := newWatcher("CA bundle", []string{file}, opts, func(c [][]byte) error {
		certs, err := ParseCertsPEM(c[0])
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		for _, cert := range certs {
			pool.AddCert(cert)
		}
		d.cur.Store(&caBundle{pool: pool, pem: c[0], certs: certs})
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.w = w
	return d, nil
}

// Pool returns the current pool. Do not modify it; it is replaced, not
// changed, on reload.
func (d *DynamicCAFile) Pool() *x509.CertPool { return d.cur.Load().pool }

// PEM returns the current file content. Do not modify it.
func (d *DynamicCAFile) PEM() []byte { return d.cur.Load().pem }

// Certificates returns the current CA certificates in file order. Do not
// modify the slice.
func (d *DynamicCAFile) Certificates() []*x509.Certificate { return d.cur.Load().certs }

// AddListener registers f to run after every successful change; see
// DynamicCertificate.AddListener.
func (d *DynamicCAFile) AddListener(f func()) { d.w.addListener(f) }

// Reload re-reads the file now; see DynamicCertificate.Reload.
func (d *DynamicCAFile) Reload() (bool, error) { return d.w.check(true, true) }

// Run polls the file until ctx is done (see ReloadOptions).
func (d *DynamicCAFile) Run(ctx context.Context) { d.w.run(ctx) }
