package store

import (
	"os"
	"syscall"
)

// datasync makes f's data durable with fdatasync, which skips the
// metadata a later read does not need (the modification time) but, as
// POSIX requires, includes the file's size when it changed. Writing into
// the log's preallocated zeros (prealloc.go) changes no size, so on ext4
// the fdatasync writes no inode (without a journal) and commits no
// journal transaction (with one): in BenchmarkFsyncFloor it costs about
// two thirds of the CPU of an fsync that extends the file and one
// context switch less. A File that is not an *os.File (a test's) is
// fsynced.
func datasync(f File) error {
	of, ok := f.(*os.File)
	if !ok {
		return f.Sync()
	}
	for {
		err := syscall.Fdatasync(int(of.Fd()))
		if err != syscall.EINTR {
			if err != nil {
				return &os.PathError{Op: "fdatasync", Path: of.Name(), Err: err}
			}
			return nil
		}
	}
}
