package main

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/aggsim/aggsim/registry/storage"
)

// etcdFlags are kube-apiserver's --etcd-* flags, used with --storage=etcd.
type etcdFlags struct {
	servers            []string
	prefix             string
	caFile             string
	certFile, keyFile  string
	compactionInterval time.Duration
}

// addFlags registers the flags under kube-apiserver's names and defaults
// (--etcd-prefix /registry, --etcd-compaction-interval 5m).
func (e *etcdFlags) addFlags(f *pflag.FlagSet) {
	f.StringSliceVar(&e.servers, "etcd-servers", nil, "etcd client URLs (comma-separated) for --storage=etcd, e.g. http://127.0.0.1:2379")
	f.StringVar(&e.prefix, "etcd-prefix", storage.DefaultEtcdPrefix, "prefix of every key in etcd (--storage=etcd)")
	f.StringVar(&e.caFile, "etcd-cafile", "", "CA bundle that verifies etcd's serving certificate (--storage=etcd with https:// servers)")
	f.StringVar(&e.certFile, "etcd-certfile", "", "client certificate presented to etcd")
	f.StringVar(&e.keyFile, "etcd-keyfile", "", "key of --etcd-certfile")
	f.DurationVar(&e.compactionInterval, "etcd-compaction-interval", 5*time.Minute, "how often etcd's history is compacted (0 never); replicas sharing the etcd compact once per interval between them")
}

// open connects to etcd. Errors: no --etcd-servers, bad TLS files, etcd
// not answering.
func (e *etcdFlags) open(logger *slog.Logger) (*storage.Etcd, error) {
	var servers []string
	for _, s := range e.servers {
		if s = strings.TrimSpace(s); s != "" {
			servers = append(servers, s)
		}
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("--storage=etcd needs --etcd-servers")
	}
	return storage.OpenEtcd(storage.EtcdOptions{
		Servers: servers, Prefix: e.prefix,
		CAFile: e.caFile, CertFile: e.certFile, KeyFile: e.keyFile,
		CompactionInterval: e.compactionInterval, Logger: logger,
	})
}
