package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestServeFreshKill9BeforeReady kills a fresh `aggsim serve` with SIGKILL
// while it writes its bootstrap objects into the store it builds under a
// temporary name (registry/storage/bbolt_stage.go: aggsim.db.fresh, not yet
// renamed to aggsim.db), then starts it again on the same data dir: no
// aggsim.db was left, the second start begins fresh, removes the abandoned
// file and is ready with the whole bootstrap policy.
func TestServeFreshKill9BeforeReady(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e")
	}
	dataDir := t.TempDir()
	db := filepath.Join(dataDir, "aggsim.db")
	cmd := exec.Command(aggsimBinary(t), "serve", "--secure-port", "0", "--data-dir", dataDir)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	kill := func() { _ = cmd.Process.Signal(syscall.SIGKILL); <-done } // the process we started
	defer kill()
	// Bounded: 60 s of 100 µs polls for the temporary file. On a loaded
	// machine a poll can come after the rename, when aggsim.db.fresh has
	// come and gone: then aggsim.db exists and the kill below comes after
	// the rename (registry/storage's TestStageFreshKill9 kills before it
	// deterministically).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Microsecond) {
		if _, err := os.Stat(db + ".fresh"); err == nil {
			break
		}
		if _, err := os.Stat(db); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("neither aggsim.db.fresh nor aggsim.db within 60s")
		}
	}
	kill()
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		// The kill came after the rename (a slow poll): that case is
		// TestServeSurvivesKill9's; the restart below must work all the same.
		t.Logf("killed after the rename (stat aggsim.db: %v)", err)
	}

	srv := startServe(t, dataDir)
	if _, err := os.Stat(db + ".fresh"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("abandoned aggsim.db.fresh after a restart: %v", err)
	}
	client := adminClient(t, srv.Kubeconfig)
	names := func(path string) []string {
		t.Helper()
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list struct {
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
			} `json:"items"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
		}
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Metadata.Name)
		}
		return out
	}
	if ns := names("/api/v1/namespaces"); !slices.Equal(ns, []string{"default", "kube-node-lease", "kube-public", "kube-system"}) {
		t.Fatalf("namespaces after the restart: %v", ns)
	}
	roles := names("/apis/rbac.authorization.k8s.io/v1/clusterroles")
	for _, want := range []string{"admin", "cluster-admin", "system:aggregate-to-view", "view"} {
		if !slices.Contains(roles, want) {
			t.Fatalf("ClusterRole %s missing after the restart: %v", want, roles)
		}
	}
}
