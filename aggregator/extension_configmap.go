package aggregator

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// The ConfigMap in which kube-apiserver publishes how extension API servers
// authenticate it and its clients (k8s.io/apiserver's
// RequestHeaderAuthRequestController and DynamicFileCAContent read it).
const (
	ExtensionAuthConfigMapNamespace = "kube-system"
	ExtensionAuthConfigMapName      = "extension-apiserver-authentication"
)

// Keys of the extension-apiserver-authentication ConfigMap. The CA keys
// hold PEM bundles; the others hold JSON arrays of strings.
const (
	ExtensionAuthClientCA                   = "client-ca-file"
	ExtensionAuthRequestHeaderClientCA      = "requestheader-client-ca-file"
	ExtensionAuthRequestHeaderAllowedNames  = "requestheader-allowed-names"
	ExtensionAuthRequestHeaderUsername      = "requestheader-username-headers"
	ExtensionAuthRequestHeaderUID           = "requestheader-uid-headers"
	ExtensionAuthRequestHeaderGroup         = "requestheader-group-headers"
	ExtensionAuthRequestHeaderExtraPrefixes = "requestheader-extra-headers-prefix"
)

// DefaultExtensionAuthSyncInterval is how often the ConfigMap is checked
// against the current CAs (and restored if someone changed or deleted it).
// Upstream resyncs every minute and on CA-change notifications; aggsim
// polls its CA sources, which are cheap to read, every second.
const DefaultExtensionAuthSyncInterval = time.Second

// defaultProxyClientCN is the allowed name published when the proxy client
// certificate cannot be read (certs.FrontProxyClientCN).
const defaultProxyClientCN = "front-proxy-client"

// extensionAuthInfo is upstream's ClusterAuthenticationInfo
// (pkg/controlplane/controller/clusterauthenticationtrust): the CAs as
// parsed certificates and the requestheader settings.
type extensionAuthInfo struct {
	clientCA, requestHeaderCA                                              []*x509.Certificate
	allowedNames, usernameHeaders, uidHeaders, groupHeaders, extraPrefixes []string
}

// extensionAuthWriter keeps kube-system/extension-apiserver-authentication
// in step with aggsim's client CA and the front-proxy identity it presents
// to backends, as kube-apiserver's cluster_authentication_trust_controller.go
// does: the CA bundles and header lists already in the ConfigMap are
// combined with the current ones (existing first, duplicates and expired
// certificates dropped), so a rotated CA is added next to the old one
// until that one expires. The requestheader values describe aggsim's
// proxy: headers X-Remote-User, X-Remote-Group, X-Remote-Extra-, allowed
// names = the proxy client certificate's CN. No uid headers are published,
// as kube-apiserver 1.33 with its default (empty)
// --requestheader-uid-headers publishes none (captured: the reference's
// ConfigMap has no requestheader-uid-headers key), although its proxy, as
// aggsim's, sends X-Remote-Uid.
type extensionAuthWriter struct {
	configMaps *registry.Store
	namespaces *registry.Store
	// clientCA and frontProxyCA return the current PEM bundles (nil: not
	// published).
	clientCA, frontProxyCA func() []byte
	// proxyCert returns the proxy client certificate (nil: CN
	// front-proxy-client).
	proxyCert func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
	interval  time.Duration
	now       func() time.Time
	logger    *slog.Logger
	// seen is what the last sync that wrote nothing read (nil: sync
	// next time); Run's goroutine only
	seen *extensionAuthSeen
}

// newExtensionAuthWriter builds the writer of s (configmaps and namespaces
// stores, Options.ClientCAPEM, FrontProxyCAPEM and ProxyClientCertificate).
func newExtensionAuthWriter(s *Server) *extensionAuthWriter {
	return &extensionAuthWriter{
		configMaps:   s.api.Store(meta.GroupResource{Resource: "configmaps"}),
		namespaces:   s.api.Store(meta.GroupResource{Resource: "namespaces"}),
		clientCA:     s.opts.ClientCAPEM,
		frontProxyCA: s.opts.FrontProxyCAPEM,
		proxyCert:    s.opts.ProxyClientCertificate,
		interval:     DefaultExtensionAuthSyncInterval,
		now:          s.now,
		logger:       s.logger,
	}
}

// Run syncs at once, then every interval until ctx ends. Errors are logged
// and retried on the next tick.
func (w *extensionAuthWriter) Run(ctx context.Context) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		if err := w.syncRetrying(ctx); err != nil && ctx.Err() == nil {
			w.logger.Error("sync extension-apiserver-authentication", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// required returns what aggsim itself needs published.
func (w *extensionAuthWriter) required() extensionAuthInfo {
	info := extensionAuthInfo{
		usernameHeaders: []string{"X-Remote-User"},
		groupHeaders:    []string{"X-Remote-Group"},
		extraPrefixes:   []string{"X-Remote-Extra-"},
		allowedNames:    []string{w.proxyCN()},
	}
	if w.clientCA != nil {
		info.clientCA = parseCertsPEM(w.clientCA())
	}
	if w.frontProxyCA != nil {
		info.requestHeaderCA = parseCertsPEM(w.frontProxyCA())
	}
	return info
}

// proxyCN is the CommonName of the proxy client certificate.
func (w *extensionAuthWriter) proxyCN() string {
	if w.proxyCert == nil {
		return defaultProxyClientCN
	}
	c, err := w.proxyCert(&tls.CertificateRequestInfo{})
	if err != nil || c == nil || len(c.Certificate) == 0 {
		return defaultProxyClientCN
	}
	leaf := c.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return defaultProxyClientCN
		}
	}
	if leaf.Subject.CommonName == "" {
		return defaultProxyClientCN
	}
	return leaf.Subject.CommonName
}

// syncRetrying runs sync again, at most five times, while it loses a race
// with another replica sharing the store (AlreadyExists on create,
// Conflict on update): each attempt re-reads and merges what the other
// replica wrote, as upstream's controller requeues on those errors.
func (w *extensionAuthWriter) syncRetrying(ctx context.Context) error {
	var err error
	for range 5 {
		err = w.sync(ctx)
		if !errors.Is(err, meta.ErrAlreadyExists) && !errors.Is(err, meta.ErrConflict) {
			return err
		}
	}
	return err
}

// sync writes the ConfigMap when its combined content differs from what
// is stored, creating kube-system first if needed.
func (w *extensionAuthWriter) sync(ctx context.Context) error {
	in := w.extensionAuthInputs(w.configMaps.Revision())
	if w.seen.unchanged(in, w.now()) { // extension_configmap_seen.go
		return nil
	}
	w.seen = nil
	var cm *core.ConfigMap
	obj, err := w.configMaps.Get(ctx, ExtensionAuthConfigMapNamespace, ExtensionAuthConfigMapName)
	switch {
	case err == nil:
		cm = obj.(*core.ConfigMap)
	case isNotFound(err):
	default:
		return err
	}
	var existing extensionAuthInfo
	if cm != nil {
		existing = infoFromData(cm.Data)
	}
	req := w.required()
	data := dataFor(combineInfo(existing, req, w.now()))
	if cm != nil && maps.Equal(cm.Data, data) {
		in.until = earliestExpiry(existing, req)
		w.seen = &in
		return nil
	}
	if err := w.ensureNamespace(ctx); err != nil {
		return err
	}
	if cm == nil {
		_, err := w.configMaps.Create(ctx, &core.ConfigMap{
			TypeMeta:   meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
			ObjectMeta: meta.ObjectMeta{Namespace: ExtensionAuthConfigMapNamespace, Name: ExtensionAuthConfigMapName},
			Data:       data,
		})
		if err == nil {
			w.logger.Info("created configmap kube-system/extension-apiserver-authentication")
		}
		return err
	}
	upd := *cm
	upd.Data = data
	if _, err := w.configMaps.Update(ctx, &upd); err != nil {
		return err
	}
	w.logger.Info("updated configmap kube-system/extension-apiserver-authentication")
	return nil
}

// ensureNamespace creates kube-system when missing, as upstream's
// createNamespaceIfNeeded does.
func (w *extensionAuthWriter) ensureNamespace(ctx context.Context) error {
	if _, err := w.namespaces.Get(ctx, "", ExtensionAuthConfigMapNamespace); err == nil || !isNotFound(err) {
		return err
	}
	_, err := w.namespaces.Create(ctx, &core.Namespace{
		TypeMeta:   meta.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: ExtensionAuthConfigMapNamespace},
	})
	if errors.Is(err, meta.ErrAlreadyExists) {
		return nil
	}
	return err
}

func isNotFound(err error) bool {
	var se *meta.StatusError
	return errors.As(err, &se) && se.Status.Code == http.StatusNotFound
}

// infoFromData parses an existing ConfigMap's data; unparsable values
// count as absent.
func infoFromData(data map[string]string) extensionAuthInfo {
	list := func(key string) []string {
		var l []string
		_ = json.Unmarshal([]byte(data[key]), &l)
		return l
	}
	return extensionAuthInfo{
		clientCA:        parseCertsPEM([]byte(data[ExtensionAuthClientCA])),
		requestHeaderCA: parseCertsPEM([]byte(data[ExtensionAuthRequestHeaderClientCA])),
		allowedNames:    list(ExtensionAuthRequestHeaderAllowedNames),
		usernameHeaders: list(ExtensionAuthRequestHeaderUsername),
		uidHeaders:      list(ExtensionAuthRequestHeaderUID),
		groupHeaders:    list(ExtensionAuthRequestHeaderGroup),
		extraPrefixes:   list(ExtensionAuthRequestHeaderExtraPrefixes),
	}
}

// combineInfo mirrors combinedClusterAuthenticationInfo: lists are the
// unique union (lhs first), CA bundles the union without duplicates or
// certificates expired at now.
func combineInfo(lhs, rhs extensionAuthInfo, now time.Time) extensionAuthInfo {
	return extensionAuthInfo{
		clientCA:        combineCerts(lhs.clientCA, rhs.clientCA, now),
		requestHeaderCA: combineCerts(lhs.requestHeaderCA, rhs.requestHeaderCA, now),
		allowedNames:    combineUnique(lhs.allowedNames, rhs.allowedNames),
		usernameHeaders: combineUnique(lhs.usernameHeaders, rhs.usernameHeaders),
		uidHeaders:      combineUnique(lhs.uidHeaders, rhs.uidHeaders),
		groupHeaders:    combineUnique(lhs.groupHeaders, rhs.groupHeaders),
		extraPrefixes:   combineUnique(lhs.extraPrefixes, rhs.extraPrefixes),
	}
}

func combineUnique(lhs, rhs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range append(append([]string(nil), lhs...), rhs...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func combineCerts(lhs, rhs []*x509.Certificate, now time.Time) []*x509.Certificate {
	var out []*x509.Certificate
	for _, c := range append(append([]*x509.Certificate(nil), lhs...), rhs...) {
		if now.After(c.NotAfter) {
			continue
		}
		dup := false
		for _, o := range out {
			if bytes.Equal(o.Raw, c.Raw) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// dataFor mirrors getConfigMapDataFor: the requestheader keys only when a
// requestheader CA is known, requestheader-uid-headers only when there
// are uid headers; CAs re-encoded as CERTIFICATE blocks; lists as JSON
// arrays.
func dataFor(info extensionAuthInfo) map[string]string {
	data := map[string]string{}
	jsonList := func(l []string) string {
		if l == nil {
			l = []string{}
		}
		b, _ := json.Marshal(l)
		return string(b)
	}
	if len(info.requestHeaderCA) > 0 {
		data[ExtensionAuthRequestHeaderClientCA] = string(encodeCerts(info.requestHeaderCA))
		data[ExtensionAuthRequestHeaderAllowedNames] = jsonList(info.allowedNames)
		data[ExtensionAuthRequestHeaderUsername] = jsonList(info.usernameHeaders)
		if len(info.uidHeaders) > 0 {
			data[ExtensionAuthRequestHeaderUID] = jsonList(info.uidHeaders)
		}
		data[ExtensionAuthRequestHeaderGroup] = jsonList(info.groupHeaders)
		data[ExtensionAuthRequestHeaderExtraPrefixes] = jsonList(info.extraPrefixes)
	}
	if len(info.clientCA) > 0 {
		data[ExtensionAuthClientCA] = string(encodeCerts(info.clientCA))
	}
	return data
}

func encodeCerts(certs []*x509.Certificate) []byte {
	var b bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.Bytes()
}

// parseCertsPEM returns the certificates of a PEM bundle, skipping other
// blocks and unparsable certificates.
func parseCertsPEM(data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for len(data) > 0 {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
	return out
}
