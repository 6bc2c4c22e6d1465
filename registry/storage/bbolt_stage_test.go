package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stageChildEnv, when set, makes TestStageFreshChild the writer process of
// TestStageFreshKill9; its value is "<kill point> <bbolt file>".
const stageChildEnv = "AGGSIM_STORAGE_STAGE_CHILD"

// stageWrites is how many start-up writes the child makes before its kill
// point.
const stageWrites = 50

// TestStageFreshKill9 proves the crash cases of a store built under its
// temporary name (bbolt_stage.go). A child process (TestStageFreshChild)
// opens a fresh store with StageFresh, makes stageWrites start-up writes,
// and is killed with SIGKILL at a kill point:
//   - "before-rename": after the writes, Persist not called: no store
//     exists at the path; the next open starts fresh (revision 1, no keys)
//     and removes the abandoned temporary file;
//   - "after-rename": inside Persist, after the rename, before the
//     directory sync: the store holds every write (they were synced before
//     the rename);
//   - "persisted": after Persist returned and an unmarked write was
//     acknowledged: every write and the acknowledged one are there.
func TestStageFreshKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	for _, point := range []string{"before-rename", "after-rename", "persisted"} {
		t.Run(point, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "aggsim.db")
			cmd, sc := startChild(t, "TestStageFreshChild", stageChildEnv+"="+point+" "+path)
			reached := false
			for sc.Scan() {
				if sc.Text() == "at "+point {
					reached = true
					break
				}
			}
			if !reached {
				cmd.Wait()
				t.Fatalf("child exited before %s", point)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("child wait: %v, want killed", err)
			}

			_, statErr := os.Stat(path)
			if point == "before-rename" {
				if !errors.Is(statErr, os.ErrNotExist) {
					t.Fatalf("after a kill before the rename, stat %s: %v; want no store", path, statErr)
				}
				if _, err := os.Stat(path + freshSuffix); err != nil {
					t.Fatalf("abandoned temporary file: %v", err)
				}
			} else if statErr != nil {
				t.Fatalf("after a kill %s: %v", point, statErr)
			}

			s, err := OpenBolt(path, BoltOptions{StageFresh: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want := 0
			if point != "before-rename" {
				want = stageWrites
			}
			kvs, _, err := s.List(ctx, "/stage/")
			if err != nil {
				t.Fatal(err)
			}
			if len(kvs) != want {
				t.Fatalf("after a kill %s: %d keys, want %d", point, len(kvs), want)
			}
			for i, kv := range kvs {
				if k := fmt.Sprintf("/stage/%03d", i); kv.Key != k || string(kv.Value) != k {
					t.Fatalf("key %d = %s, want %s", i, fmtKV(kv), k)
				}
			}
			_, err = s.Get(ctx, "/acked")
			if point == "persisted" && err != nil {
				t.Fatalf("acknowledged write: %v", err)
			}
			if point == "before-rename" {
				if s.Revision() != initialRevision || !s.staged.Load() {
					t.Fatalf("fresh again: revision %d, staged %v; want %d, true", s.Revision(), s.staged.Load(), initialRevision)
				}
			} else if s.staged.Load() {
				t.Fatal("an existing store was opened staged")
			}
		})
	}
}

// TestStageFreshChild is the writer process of TestStageFreshKill9; it does
// nothing unless stageChildEnv is set. It prints "at <point>" at its kill
// point and then waits to be killed.
func TestStageFreshChild(t *testing.T) {
	point, path, ok := strings.Cut(os.Getenv(stageChildEnv), " ")
	if !ok {
		t.Skip("child process of TestStageFreshKill9")
	}
	s, err := OpenBolt(path, BoltOptions{StageFresh: true})
	if err != nil {
		t.Fatal(err)
	}
	sctx := WithStartupWrites(ctx)
	for i := range stageWrites {
		k := fmt.Sprintf("/stage/%03d", i)
		if _, err := s.Create(sctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	wait := func() {
		fmt.Fprintf(os.Stdout, "at %s\n", point)
		time.Sleep(time.Minute) // killed here
		t.Fatal("not killed")
	}
	switch point {
	case "before-rename":
		wait()
	case "after-rename":
		persistHook = wait
		s.Persist()
	case "persisted":
		if err := s.Persist(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Create(ctx, "/acked", nil); err != nil {
			t.Fatal(err)
		}
		wait()
	}
	t.Fatalf("unknown kill point %q", point)
}

// TestStageFresh checks the life of a staged store in one process: start-up
// writes stay under the temporary name; the first unmarked write persists
// the store before it commits; later opens find an existing store and open
// it in place; Close persists a store never persisted; a second opener
// waits for the directory's lock and fails with ErrInUse.
func TestStageFresh(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "aggsim.db")
	s, err := OpenBolt(path, BoltOptions{StageFresh: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(WithStartupWrites(ctx), "/a", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after a start-up write, stat %s: %v; want none yet", path, err)
	}
	if s.Path() != path {
		t.Fatalf("Path() = %q, want %q", s.Path(), path)
	}

	// another process (here: another open) starting on the same fresh dir
	if _, err := OpenBolt(path, BoltOptions{StageFresh: true, LockTimeout: 30 * time.Millisecond}); !errors.Is(err, ErrInUse) {
		t.Fatalf("second open while staged: %v, want ErrInUse", err)
	}

	rev, err := s.Create(ctx, "/b", []byte("b")) // unmarked: persisted first
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("after an unmarked write: %v", err)
	}
	if _, err := os.Stat(path + freshSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary file after Persist: %v", err)
	}
	if s.staged.Load() || s.db.NoSync || s.db.NoGrowSync {
		t.Fatalf("after Persist: staged %v, NoSync %v, NoGrowSync %v; want all false", s.staged.Load(), s.db.NoSync, s.db.NoGrowSync)
	}
	if err := s.Persist(); err != nil {
		t.Fatalf("second Persist: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTestBolt(t, path) // the plain open finds what was written
	for _, k := range []string{"/a", "/b"} {
		if kv, err := s.Get(ctx, k); err != nil || string(kv.Value) != k[1:] {
			t.Fatalf("Get %s = %s, %v", k, fmtKV(kv), err)
		}
	}
	if s.Revision() != rev {
		t.Fatalf("revision %d after reopen, want %d", s.Revision(), rev)
	}
	s.Close()
	s, err = OpenBolt(path, BoltOptions{StageFresh: true}) // existing: opened in place
	if err != nil {
		t.Fatal(err)
	}
	if s.staged.Load() {
		t.Fatal("an existing store was opened staged")
	}
	s.Close()

	// Close persists a store that was never persisted.
	path2 := filepath.Join(dir, "second.db")
	s, err = OpenBolt(path2, BoltOptions{StageFresh: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(WithStartupWrites(ctx), "/c", []byte("c")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTestBolt(t, path2)
	if kv, err := s.Get(ctx, "/c"); err != nil || string(kv.Value) != "c" {
		t.Fatalf("Get /c after Close = %s, %v", fmtKV(kv), err)
	}
}
