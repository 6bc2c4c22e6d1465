package certs

import (
	"bytes"
	"os"
)

// WriteServeKubeconfig writes Kubeconfig(server) to path (mode 0600) for a
// server that rewrites it at every start (`aggsim serve`). The file is
// renamed into place whole, but not fsynced: the kubeconfig is only of use
// while that server runs, and its next start writes it again, so a crash
// that leaves it empty costs nothing, while the fsync (a journal commit,
// 1–25 ms measured on a busy disk) sat on every start's path. When path
// already holds exactly these bytes (the same port and PKI as the last
// start), nothing is written. It reports whether it wrote.
func (p *PKI) WriteServeKubeconfig(path, server string) (bool, error) {
	data, err := p.Kubeconfig(server)
	if err != nil {
		return false, err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() == 0o600 {
			return false, nil
		}
	}
	return true, writeFile(path, data, 0o600, writeRenamed)
}
