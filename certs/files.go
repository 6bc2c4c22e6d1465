package certs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// writeMode is how writeFile makes a file appear.
type writeMode uint8

const (
	// writeDurable writes a temporary file in the same directory, fsyncs
	// it and renames it into place: after a crash the file is either
	// whole or as it was.
	writeDurable writeMode = iota
	// writeRenamed is writeDurable without the fsync: the file appears
	// whole to readers, and the caller syncs the directory once after a
	// batch of files (syncDir). After a crash the file may be empty
	// (ext4's delayed allocation commits the rename before the data);
	// readers must treat a torn file as missing (isTorn), as EnsurePKI
	// does.
	writeRenamed
	// writeInPlace creates the file in place, without a temporary file,
	// rename or fsync: three system calls instead of eight, for a
	// throwaway directory (Options.Ephemeral). It refuses to replace an
	// existing file.
	writeInPlace
)

// writeFileAtomic writes data to path with the given mode via a temporary
// file in the same directory and a rename, creating the directory (0700) if
// needed. The mode is applied even if path already existed with another one.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	return writeFile(path, data, mode, writeDurable)
}

// writeFile writes data to path as how says (writeDurable is
// writeFileAtomic), creating the directory (0700) if needed.
func writeFile(path string, data []byte, mode os.FileMode, how writeMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	if how == writeInPlace {
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
	if how == writeDurable {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir fsyncs directory dir, making the renames into it durable (and,
// on ext4 and XFS, committing the journal with every file created in it).
// A variable so that tests can count the calls.
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// isTorn reports whether the file at path exists but is empty or holds
// only NUL bytes: what a file written with writeRenamed can be after a
// crash before its data reached the disk. No PEM file aggsim writes or
// reads is ever like that, so a torn file counts as missing.
func isTorn(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && len(bytes.Trim(b, "\x00")) == 0
}

// fileExists reports whether path exists (any error other than "not
// exist", such as permission denied, counts as existing so that we never
// overwrite a file we merely failed to stat).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return !os.IsNotExist(err)
}
