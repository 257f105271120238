package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File is what the store writes through: the subset of *os.File it needs.
// It is an interface so that tests can fail a write or an fsync (a full
// disk, an I/O error) or count fsyncs without filling a real disk.
type File interface {
	WriteAt(p []byte, off int64) (int, error)
	Sync() error
	Truncate(size int64) error
	Close() error
}

// OpenFileFunc opens a file for writing, like os.OpenFile.
type OpenFileFunc func(name string, flag int, perm os.FileMode) (File, error)

func osOpenFile(name string, flag int, perm os.FileMode) (File, error) {
	return os.OpenFile(name, flag, perm)
}

// Pos is a record's position in the log: 1 for the first record ever
// appended, counting on across snapshots and restarts. 0 means "none".
type Pos uint64

func snapName(pos Pos) string      { return fmt.Sprintf("snap-%020d.snap", uint64(pos)) }
func segmentName(first Pos) string { return fmt.Sprintf("log-%020d.wlog", uint64(first)) }

// parseName returns the position in a file name made by snapName or
// segmentName, and whether name has that prefix and suffix at all.
func parseName(name, prefix, suffix string) (Pos, bool) {
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
		return 0, false
	}
	n, err := strconv.ParseUint(name[len(prefix):len(name)-len(suffix)], 10, 64)
	if err != nil {
		return 0, false
	}
	return Pos(n), true
}

// syncDir makes a create, rename or remove in dir durable: on Linux a new
// file's name is only safe once its directory has been fsynced too.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// dirBytes is the size of the regular files in dir, what the data
// directory costs on disk as management reports it.
func dirBytes(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

func join(dir, name string) string { return filepath.Join(dir, name) }
