//go:build linux

package codepages

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestParseMapping(t *testing.T) {
	cases := []struct {
		line string
		want mapping
		ok   bool
	}{
		{"00400000-00fdb000 r-xp 00000000 fe:00 1835105                            /usr/local/bin/aggsim",
			mapping{start: 0x400000, end: 0xfdb000, private: true, dev: 0xfe00, ino: 1835105, path: "/usr/local/bin/aggsim"}, true},
		{"7f0000001000-7f0000003000 rw-p 00bd9000 103:02 42 /tmp/my dir/x (deleted)",
			mapping{start: 0x7f0000001000, end: 0x7f0000003000, writable: true, private: true, dev: 0x10302, ino: 42, path: "/tmp/my dir/x (deleted)"}, true},
		{"7ffd1c9a1000-7ffd1c9c2000 rw-s 00000000 00:00 0                          [stack]",
			mapping{start: 0x7ffd1c9a1000, end: 0x7ffd1c9c2000, writable: true, path: "[stack]"}, true},
		{"c000000000-c000400000 rw-p 00000000 00:00 0 ",
			mapping{start: 0xc000000000, end: 0xc000400000, writable: true, private: true}, true},
		// No path, no trailing space; minor and major numbers above 255
		// (glibc's makedev: 0x1103a2).
		{"1000-2000 r--p 00000000 103:1a2 7", mapping{start: 0x1000, end: 0x2000, private: true, dev: unix.Mkdev(0x103, 0x1a2), ino: 7}, true},
		{"1000-2000 r--p 00000000 1103:2 7", mapping{start: 0x1000, end: 0x2000, private: true, dev: unix.Mkdev(0x1103, 2), ino: 7}, true},
		{"", mapping{}, false},
		{"1000-2000 r--p 00000000 fe:00", mapping{}, false},
		{"2000-1000 r--p 00000000 fe:00 7", mapping{}, false},
		{"1000-2000 r--pp 00000000 fe:00 7", mapping{}, false},
		{"zz-2000 r--p 00000000 fe:00 7", mapping{}, false},
		{"1000 r--p 00000000 fe:00 7", mapping{}, false},
		{"1000-2000 r--p 00000000 fe00 7", mapping{}, false},
		{"1000-2000 r--p 00000000 fe:00 x7", mapping{}, false},
	}
	for _, c := range cases {
		got, ok := parseMapping(c.line)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseMapping(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestMapsDeviceMatchesStat checks the device numbers parseMapping reads
// from /proc/self/maps against stat(2)'s for the test's own executable:
// with a wrong encoding Release would find no mapping of it.
func TestMapsDeviceMatchesStat(t *testing.T) {
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &exe); err != nil {
		t.Fatal(err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		m, ok := parseMapping(sc.Text())
		if ok && m.ino == exe.Ino {
			found++
			if m.dev != exe.Dev {
				t.Errorf("%q: dev %#x, stat says %#x", sc.Text(), m.dev, exe.Dev)
			}
		}
	}
	if found < 2 {
		t.Fatalf("%d mappings of the executable (inode %d) in /proc/self/maps, want at least text and read-only data", found, exe.Ino)
	}
}

// present reports whether the page at addr is mapped, and whether it is
// the file's own page.
func present(t *testing.T, addr uintptr) (mapped, file bool) {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [8]byte
	if _, err := f.ReadAt(b[:], int64(addr/uintptr(os.Getpagesize())*8)); err != nil {
		t.Fatal(err)
	}
	e := binary.LittleEndian.Uint64(b[:])
	return e&pmPresent != 0, e&pmFilePage != 0
}

// mapFile writes a file of pages pages (page i filled with byte i), maps
// it privately and read-only, and reads every page so that each is mapped.
// It returns the mapping and the file's path and stat.
func mapFile(t *testing.T, pages int) ([]byte, string, syscall.Stat_t) {
	t.Helper()
	ps := os.Getpagesize()
	content := make([]byte, pages*ps)
	for i := range content {
		content[i] = byte(i / ps)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := syscall.Mmap(fd, 0, len(content), syscall.PROT_READ, syscall.MAP_PRIVATE)
	syscall.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for i := 0; i < pages; i++ {
		sum += int(mem[i*ps])
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	for i := 0; i < pages; i++ {
		if m, _ := present(t, base+uintptr(i*ps)); !m {
			t.Fatalf("page %d not mapped after reading it (sum %d)", i, sum)
		}
	}
	return mem, path, st
}

// TestReleaseKeepsWrittenCopies maps a file privately and read-only, writes
// one page through a temporarily writable view (as a debugger's breakpoint
// does), and releases the file's mappings: the file's pages leave the page
// tables, the written page stays with what was written, and every page
// reads as before.
func TestReleaseKeepsWrittenCopies(t *testing.T) {
	ps := os.Getpagesize()
	const pages = 16
	mem, _, st := mapFile(t, pages)
	const written = 5
	page := mem[written*ps : (written+1)*ps]
	if err := syscall.Mprotect(page, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	page[0] = 0xcc
	if err := syscall.Mprotect(page, syscall.PROT_READ); err != nil {
		t.Fatal(err)
	}

	got, err := releaseFile(fileID{dev: st.Dev, ino: st.Ino})
	if err != nil {
		t.Fatal(err)
	}
	if got.Mappings < 1 || got.Released != int64((pages-1)*ps) || got.Kept != int64(ps) {
		t.Fatalf("releaseFile = %+v; want Released %d, Kept %d", got, (pages-1)*ps, ps)
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	for i := 0; i < pages; i++ {
		m, file := present(t, base+uintptr(i*ps))
		if i == written {
			if !m || file {
				t.Errorf("written page: mapped %v, file page %v; want the anonymous copy kept", m, file)
			}
			continue
		}
		if m {
			t.Errorf("page %d still mapped after releaseFile", i)
		}
	}
	for i := 0; i < pages; i++ {
		want := byte(i)
		if i == written {
			want = 0xcc
		}
		if mem[i*ps] != want || mem[i*ps+ps-1] != byte(i) {
			t.Errorf("page %d reads %#x…%#x after releaseFile, want %#x…%#x", i, mem[i*ps], mem[i*ps+ps-1], want, byte(i))
		}
	}
}

// TestReleaseMatchesByPath releases a file named by its path alone (as
// on overlayfs, where the device and inode of /proc/self/maps are not
// those stat gives), and nothing of a file named by neither.
func TestReleaseMatchesByPath(t *testing.T) {
	ps := os.Getpagesize()
	const pages = 8
	mem, path, st := mapFile(t, pages)
	got, err := releaseFile(fileID{dev: st.Dev + 1, ino: st.Ino + 1, path: path + "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got != (Stats{}) {
		t.Fatalf("releaseFile of another file = %+v, want nothing", got)
	}
	got, err = releaseFile(fileID{dev: st.Dev + 1, ino: st.Ino + 1, path: path})
	if err != nil {
		t.Fatal(err)
	}
	if got.Mappings != 1 || got.Released != int64(pages*ps) || got.Kept != 0 {
		t.Fatalf("releaseFile by path = %+v; want 1 mapping, Released %d", got, pages*ps)
	}
	if m, _ := present(t, uintptr(unsafe.Pointer(&mem[0]))); m {
		t.Fatal("page 0 still mapped after releaseFile by path")
	}
	if mem[3*ps] != 3 {
		t.Fatalf("page 3 reads %#x after releaseFile, want 3", mem[3*ps])
	}
}

func rssFile(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseSelf releases the test binary's own pages: its text and
// read-only data are found, mapped pages leave, and code keeps running.
func TestReleaseSelf(t *testing.T) {
	before := rssFile(t)
	st, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFile(t)
	if st.Mappings < 2 || st.Released < 64<<10 {
		t.Fatalf("Release = %+v; want text and read-only data, some of it mapped", st)
	}
	if after >= before {
		t.Errorf("RssFile %d kB before Release, %d kB after (released %d kB)", before, after, st.Released>>10)
	}
	out, err := json.Marshal(map[string][]int{"b": {2}, "a": {1}})
	if err != nil || string(out) != `{"a":[1],"b":[2]}` {
		t.Fatalf("json.Marshal after Release = %s, %v", out, err)
	}
}
