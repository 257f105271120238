package store

import (
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
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

// noDsyncWrite is set once the kernel has refused pwritev2's RWF_DSYNC
// (before Linux 4.7, or a file system without it): from then on the log
// writes and fdatasyncs in two calls.
var noDsyncWrite atomic.Bool

// writeDatasync writes p at off and makes it durable in one system call,
// pwritev2 with RWF_DSYNC: the data of the range written, as fdatasync
// would make it durable, and the size if it changed. It is for a write
// into zeros already on disk, where the range is all the file has that
// is not durable (writeHeld): one call instead of a pwrite and an
// fdatasync saves a system call and a pass through the Go scheduler's
// syscall entry and exit, at every confirm that waits for its own fsync
// (BenchmarkFsyncFloor's pwritev2dsync/zeros). done is false, with
// nothing written, when f is not an *os.File (a test's) or the kernel
// does not take the flag; the caller then writes and syncs as before.
func writeDatasync(f File, p []byte, off int64) (done bool, err error) {
	of, ok := f.(*os.File)
	if !ok || noDsyncWrite.Load() || len(p) == 0 {
		return false, nil
	}
	fd := int(of.Fd())
	iov := [][]byte{p}
	for first := true; len(iov[0]) > 0; first = false {
		n, err := unix.Pwritev2(fd, iov, off, unix.RWF_DSYNC)
		switch {
		case err == syscall.EINTR:
			continue
		case first && (err == syscall.EOPNOTSUPP || err == syscall.ENOSYS || err == syscall.EINVAL):
			noDsyncWrite.Store(true)
			return false, nil
		case err != nil:
			return true, &os.PathError{Op: "pwritev2", Path: of.Name(), Err: err}
		}
		iov[0], off = iov[0][n:], off+int64(n)
	}
	return true, nil
}
