package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crashChildEnv, when set, makes TestCrashChild the writer process of
// TestCrashDurability; its value is the bbolt file to write.
const crashChildEnv = "AGGSIM_STORAGE_CRASH_CHILD"

// crashAcks is how many acknowledged writes the parent reads before it
// kills the child.
const crashAcks = 300

// TestCrashDurability proves the durability contract: a write that returned
// nil survives kill -9. It re-executes this test binary as a child
// (TestCrashChild) that writes in a loop and prints one line per
// acknowledged write; after crashAcks lines the parent sends SIGKILL to that
// child, reads the lines already printed, reopens the file and checks:
//   - every acknowledged key is present, with a ModRevision >= the
//     acknowledged one (a later write may have committed without an ack)
//     and, when equal, with the acknowledged value;
//   - the store revision, and the revision of the next write, are greater
//     than every acknowledged revision.
func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	path := filepath.Join(t.TempDir(), "aggsim.db")
	cmd, sc := startChild(t, "TestCrashChild", crashChildEnv+"="+path)
	type ack struct {
		rev   int64
		value string
	}
	acks := map[string]ack{} // key → its last acknowledged write
	var maxRev int64
	n := 0
	for sc.Scan() {
		var key, value string
		var rev int64
		if _, err := fmt.Sscanf(sc.Text(), "ack %s %d %s", &key, &rev, &value); err != nil {
			if strings.HasPrefix(sc.Text(), "ack ") {
				t.Fatalf("bad line %q: %v", sc.Text(), err)
			}
			continue // test framework output
		}
		if rev <= maxRev {
			t.Fatalf("acknowledged revision %d after %d", rev, maxRev)
		}
		acks[key], maxRev = ack{rev, value}, rev
		n++
		if n == crashAcks {
			// SIGKILL, to the child we started only.
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n < crashAcks {
		cmd.Wait()
		t.Fatalf("child exited after %d acks", n)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child wait: %v, want killed", err)
	}
	t.Logf("%d acknowledged writes, last revision %d", n, maxRev)

	s := openTestBolt(t, path)
	for key, a := range acks {
		kv, err := s.Get(ctx, key)
		if err != nil {
			t.Fatalf("acknowledged %s@%d: %v", key, a.rev, err)
		}
		if kv.ModRevision < a.rev || (kv.ModRevision == a.rev && string(kv.Value) != a.value) {
			t.Fatalf("acknowledged %s=%s@%d, found %s", key, a.value, a.rev, fmtKV(kv))
		}
	}
	if s.Revision() < maxRev {
		t.Fatalf("revision %d after reopen, acknowledged %d", s.Revision(), maxRev)
	}
	rev, err := s.Create(ctx, "/after-crash", nil)
	if err != nil || rev <= maxRev {
		t.Fatalf("next write = %d, %v; want > %d", rev, err, maxRev)
	}
}

// TestCrashChild is the writer process of TestCrashDurability; it does
// nothing unless crashChildEnv is set. It creates /crash/<i> and updates
// /crash/<i-1>, printing "ack <key> <revision> <value>" after each write
// returns, until it is killed.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("child process of TestCrashDurability")
	}
	s, err := OpenBolt(path, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		key := fmt.Sprintf("/crash/%06d", i)
		value := fmt.Sprintf("c%d", i)
		rev, err := s.Create(ctx, key, []byte(value))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stdout, "ack %s %d %s\n", key, rev, value)
		if i > 0 {
			key, value = fmt.Sprintf("/crash/%06d", i-1), fmt.Sprintf("u%d", i)
			if rev, err = s.Update(ctx, key, []byte(value), 0); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(os.Stdout, "ack %s %d %s\n", key, rev, value)
		}
	}
}
