//go:build linux

package codepages

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Bits of a /proc/<pid>/pagemap entry (the kernel's
// Documentation/admin-guide/mm/pagemap.rst): the page is mapped; the page
// is the file's (or shared anonymous memory), not a private anonymous copy.
const (
	pmPresent  = 1 << 63
	pmFilePage = 1 << 61
)

// entriesPerRead is how many pagemap entries release reads at a time (4 KiB).
const entriesPerRead = 512

func release() (Stats, error) {
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &exe); err != nil {
		return Stats{}, fmt.Errorf("codepages: %w", err)
	}
	path, _ := os.Readlink("/proc/self/exe") // "" matches no mapping by path
	return releaseFile(fileID{dev: exe.Dev, ino: exe.Ino, path: path})
}

// fileID names the file whose mappings releaseFile looks at: a mapping is
// the file's when its device and inode are the file's, or when its path is
// (on overlayfs, /proc/<pid>/maps gives the device and inode of the
// underlying file, which stat of the overlay's path does not).
type fileID struct {
	dev, ino uint64
	path     string
}

func (f fileID) matches(m mapping) bool {
	return (m.dev == f.dev && m.ino == f.ino) || (f.path != "" && m.path == f.path)
}

// releaseFile drops the mapped pages of the private read-only mappings of
// file f that are the file's own pages.
func releaseFile(f fileID) (Stats, error) {
	var st Stats
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return st, fmt.Errorf("codepages: %w", err)
	}
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return st, fmt.Errorf("codepages: %w", err)
	}
	defer pm.Close()
	pageSize := uintptr(os.Getpagesize())
	buf := make([]byte, 8*entriesPerRead)
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		m, ok := parseMapping(sc.Text())
		if !ok || m.writable || !m.private || !f.matches(m) {
			continue
		}
		st.Mappings++
		// Runs of mapped pages of the file; anonymous copies (written by
		// a debugger or an uprobe) end a run and are left alone.
		runStart, runLen := uintptr(0), uintptr(0)
		flush := func() error {
			if runLen == 0 {
				return nil
			}
			if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, runStart, runLen, syscall.MADV_DONTNEED); errno != 0 {
				return fmt.Errorf("codepages: madvise: %w", errno)
			}
			st.Released += int64(runLen)
			runLen = 0
			return nil
		}
		for addr := m.start; addr < m.end; {
			n := min((m.end-addr)/pageSize, entriesPerRead)
			b := buf[:8*n]
			if k, err := pm.ReadAt(b, int64(addr/pageSize*8)); k != len(b) {
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return st, fmt.Errorf("codepages: pagemap at %#x: %w", addr, err)
			}
			for i := uintptr(0); i < n; i++ {
				e := binary.LittleEndian.Uint64(b[8*i:])
				page := addr + i*pageSize
				if e&pmPresent != 0 && e&pmFilePage != 0 {
					if runLen == 0 {
						runStart = page
					}
					runLen += pageSize
					continue
				}
				if e&pmPresent != 0 {
					st.Kept += int64(pageSize)
				}
				if err := flush(); err != nil {
					return st, err
				}
			}
			addr += n * pageSize
		}
		if err := flush(); err != nil {
			return st, err
		}
	}
	return st, nil
}

// mapping is one line of /proc/self/maps.
type mapping struct {
	start, end        uintptr
	writable, private bool
	dev, ino          uint64
	path              string // "" for anonymous memory; may end in " (deleted)"
}

// parseMapping parses "start-end perms offset major:minor inode [path]"
// (proc(5); the path may hold spaces).
func parseMapping(line string) (mapping, bool) {
	var m mapping
	var f [5]string
	rest := line
	for i := range f {
		rest = strings.TrimLeft(rest, " ")
		j := strings.IndexByte(rest, ' ')
		if j < 0 {
			j = len(rest)
		}
		f[i], rest = rest[:j], rest[j:]
	}
	startS, endS, ok := strings.Cut(f[0], "-")
	majorS, minorS, ok2 := strings.Cut(f[3], ":")
	if !ok || !ok2 || len(f[1]) != 4 {
		return m, false
	}
	start, err1 := strconv.ParseUint(startS, 16, 64)
	end, err2 := strconv.ParseUint(endS, 16, 64)
	major, err3 := strconv.ParseUint(majorS, 16, 32)
	minor, err4 := strconv.ParseUint(minorS, 16, 32)
	ino, err5 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || end <= start {
		return m, false
	}
	m.start, m.end = uintptr(start), uintptr(end)
	m.writable = f[1][1] == 'w'
	m.private = f[1][3] == 'p'
	m.dev = unix.Mkdev(uint32(major), uint32(minor)) // as stat(2) encodes it
	m.ino = ino
	m.path = strings.TrimLeft(rest, " ")
	return m, true
}
