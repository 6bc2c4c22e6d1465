package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/storage"
)

// openStorage opens the --storage backend (bbolt: aggsim.db in dataDir).
func (o *serveOptions) openStorage(dataDir string, logger *slog.Logger) (storage.Storage, error) {
	switch o.storage {
	case "bbolt":
		st, err := storage.OpenBolt(filepath.Join(dataDir, "aggsim.db"), storage.BoltOptions{StageFresh: true}) // bbolt_stage.go: unsynced until ready
		if err != nil {
			return nil, err
		}
		return st, nil
	case "memory":
		return storage.NewMemory(), nil
	case "etcd":
		st, err := o.etcd.open(logger)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	return nil, fmt.Errorf("--storage: unknown backend %q (want bbolt, memory or etcd)", o.storage)
}

// preparePKIAndStorage makes pkiDir a complete PKI (certs.EnsurePKI) and
// opens the store at the same time: on a fresh data dir both wait for the
// disk (the PKI's directory sync, bbolt's file creation and first
// commits), so overlapping them takes the shorter wait off the start-up.
// The store's first writes (aggregator.PrepareStorage) are made then too.
// The PKI's error comes first, as when they ran one after the other; a
// store opened for nothing is closed (bbolt holds a file lock). mark
// records the two phases ("pki", then "storage").
func (o *serveOptions) preparePKIAndStorage(pkiDir, dataDir string, pkiOpts certs.Options, logger *slog.Logger, mark func(string)) (*certs.PKI, storage.Storage, error) {
	return o.prepareStart(pkiDir, dataDir, pkiOpts, logger, mark, nil, nil)
}

// prepareStart is preparePKIAndStorage that also runs withStore on the
// store, in the goroutine that opened it, while the PKI is prepared
// (aggsim serve: aggregator.New), and afterPKI on the PKI in the caller's
// goroutine before it waits for the store (aggsim serve: the certificate
// holders). Either may be nil. Errors come in the order PKI, store,
// afterPKI, withStore; on any of them the store is closed.
func (o *serveOptions) prepareStart(pkiDir, dataDir string, pkiOpts certs.Options, logger *slog.Logger, mark func(string),
	withStore func(storage.Storage) error, afterPKI func(*certs.PKI) error) (*certs.PKI, storage.Storage, error) {
	type opened struct {
		st      storage.Storage
		err     error
		thenErr error // withStore's
	}
	ch := make(chan opened, 1)
	go func() {
		st, err := o.openStorage(dataDir, logger)
		if err == nil {
			// a fresh store's first commit, while the PKI is made
			if err = aggregator.PrepareStorage(st); err != nil {
				st.Close()
				st = nil
			}
		}
		var thenErr error
		if err == nil && withStore != nil {
			thenErr = withStore(st)
		}
		ch <- opened{st, err, thenErr}
	}()
	pki, pkiErr := certs.EnsurePKI(pkiDir, pkiOpts)
	mark("pki")
	var afterErr error
	if pkiErr == nil && afterPKI != nil {
		afterErr = afterPKI(pki)
		mark("certificates")
	}
	r := <-ch
	mark("storage")
	if pkiErr == nil && r.err == nil && afterErr == nil && r.thenErr == nil {
		return pki, r.st, nil
	}
	if r.st != nil {
		r.st.Close()
	}
	switch {
	case pkiErr != nil:
		return nil, nil, fmt.Errorf("prepare PKI in %s: %w", pkiDir, pkiErr)
	case r.err != nil:
		return nil, nil, r.err
	case afterErr != nil:
		return nil, nil, afterErr
	}
	return nil, nil, r.thenErr
}

// lateCerts holds the certificate files of the PKI for an aggregator.New
// made while the PKI is still being prepared (prepareStart): the options
// get methods of lateCerts, which use the holders loaded afterwards (load,
// before the server runs or serves), and the listeners New registers are
// added to the proxy client certificate once it is loaded (start).
type lateCerts struct {
	serving, proxyClient    *certs.DynamicCertificate
	clientCAs, frontProxyCA *certs.DynamicCAFile
	proxyListeners          []func()
}

// bind sets the certificate options of aopts to lc's methods.
func (lc *lateCerts) bind(aopts *aggregator.Options) {
	aopts.ClientCA = func() *x509.CertPool { return lc.clientCAs.Pool() }
	aopts.ClientCAPEM = func() []byte { return lc.clientCAs.PEM() }
	aopts.FrontProxyCAPEM = func() []byte { return lc.frontProxyCA.PEM() }
	aopts.ProxyClientCertificate = func(r *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		return lc.proxyClient.GetClientCertificate(r)
	}
	aopts.OnProxyClientCertChange = func(f func()) { lc.proxyListeners = append(lc.proxyListeners, f) }
}

// load reads the serving and proxy client certificates and the client and
// front-proxy CAs: the flags' files, else the PKI's.
func (lc *lateCerts) load(o *serveOptions, pki *certs.PKI, logger *slog.Logger) error {
	orDefault := func(v, d string) string {
		if v == "" {
			return d
		}
		return v
	}
	var err error
	ropts := certs.ReloadOptions{Logger: logger}
	if lc.serving, err = certs.NewDynamicCertificate(orDefault(o.tlsCertFile, pki.ServingCert), orDefault(o.tlsPrivateKeyFile, pki.ServingKey), ropts); err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	if lc.proxyClient, err = certs.NewDynamicCertificate(orDefault(o.proxyClientCertFile, pki.FrontProxyClientCert), orDefault(o.proxyClientKeyFile, pki.FrontProxyClientKey), ropts); err != nil {
		return fmt.Errorf("proxy client certificate: %w", err)
	}
	if lc.clientCAs, err = certs.NewDynamicCAFile(orDefault(o.clientCAFile, pki.CACert), ropts); err != nil {
		return fmt.Errorf("--client-ca-file: %w", err)
	}
	// The front-proxy CA is what backends trust the proxy client
	// certificate by; it is published in extension-apiserver-authentication
	// and reloaded like the other certificate files.
	if lc.frontProxyCA, err = certs.NewDynamicCAFile(pki.FrontProxyCACert, ropts); err != nil {
		return fmt.Errorf("front-proxy CA: %w", err)
	}
	return nil
}

// start registers the listeners New added and watches the files until ctx
// ends. Call it after load and after New has returned.
func (lc *lateCerts) start(ctx context.Context) {
	for _, f := range lc.proxyListeners {
		lc.proxyClient.AddListener(f)
	}
	go lc.serving.Run(ctx)
	go lc.proxyClient.Run(ctx)
	go lc.clientCAs.Run(ctx)
	go lc.frontProxyCA.Run(ctx)
}
