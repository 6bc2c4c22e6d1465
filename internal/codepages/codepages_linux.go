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
	"syscall"
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
	return releaseFile(exe.Dev, exe.Ino)
}

// releaseFile drops the mapped pages of the private read-only mappings of
// the file with device dev and inode ino that are the file's own pages.
func releaseFile(dev, ino uint64) (Stats, error) {
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
		if !ok || m.writable || !m.private || m.ino != ino || m.dev != dev {
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
			n := (m.end - addr) / pageSize
			if n > entriesPerRead {
				n = entriesPerRead
			}
			b := buf[:8*n]
			if _, err := pm.ReadAt(b, int64(addr/pageSize*8)); err != nil && err != io.EOF {
				return st, fmt.Errorf("codepages: pagemap: %w", err)
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
}

// parseMapping parses "start-end perms offset major:minor inode [path]".
func parseMapping(line string) (mapping, bool) {
	var m mapping
	f := bytes.Fields([]byte(line))
	if len(f) < 5 {
		return m, false
	}
	se := bytes.SplitN(f[0], []byte("-"), 2)
	if len(se) != 2 || len(f[1]) != 4 {
		return m, false
	}
	start, err1 := strconv.ParseUint(string(se[0]), 16, 64)
	end, err2 := strconv.ParseUint(string(se[1]), 16, 64)
	mm := bytes.SplitN(f[3], []byte(":"), 2)
	if err1 != nil || err2 != nil || len(mm) != 2 {
		return m, false
	}
	major, err3 := strconv.ParseUint(string(mm[0]), 16, 32)
	minor, err4 := strconv.ParseUint(string(mm[1]), 16, 32)
	ino, err5 := strconv.ParseUint(string(f[4]), 10, 64)
	if err3 != nil || err4 != nil || err5 != nil || end <= start {
		return m, false
	}
	m.start, m.end = uintptr(start), uintptr(end)
	m.writable = f[1][1] == 'w'
	m.private = f[1][3] == 'p'
	m.dev = mkdev(uint32(major), uint32(minor))
	m.ino = ino
	return m, true
}

// mkdev encodes a device number as stat(2) returns it (glibc's
// gnu_dev_makedev).
func mkdev(major, minor uint32) uint64 {
	return uint64(minor&0xff) | uint64(major&0xfff)<<8 | uint64(minor&^0xff)<<12 | uint64(major&^0xfff)<<32
}
