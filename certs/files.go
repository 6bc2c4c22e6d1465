package certs

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic writes data to path with the given mode via a temporary
// file in the same directory and a rename, creating the directory (0700) if
// needed. The mode is applied even if path already existed with another one.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	return writeFile(path, data, mode, true)
}

// writeFile is writeFileAtomic when sync is set. Without it (a throwaway
// directory, see Options.Ephemeral) the file is created in place, without
// a temporary file, rename or fsync: three system calls instead of eight,
// which is most of what generating a test server's PKI cost. It still
// refuses to replace an existing file.
func writeFile(path string, data []byte, mode os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	if !sync {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fileExists reports whether path exists (any error other than "not
// exist", such as permission denied, counts as existing so that we never
// overwrite a file we merely failed to stat).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return !os.IsNotExist(err)
}
