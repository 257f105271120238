package store

import (
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

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
// fdatasync saves a system call at every confirm that waits for its own
// fsync, and the call skips the Go scheduler's syscall entry while the
// disk answers quickly (pwritev2Dsync; BenchmarkFsyncFloor's
// pwritev2dsync/zeros). done is false, with
// nothing written, when f is not an *os.File (a test's) or the kernel
// does not take the flag; the caller then writes and syncs as before.
func writeDatasync(f File, p []byte, off int64) (done bool, err error) {
	of, ok := f.(*os.File)
	if !ok || noDsyncWrite.Load() || len(p) == 0 {
		return false, nil
	}
	fd := int(of.Fd())
	for first := true; len(p) > 0; first = false {
		n, err := pwritev2Dsync(fd, p, off)
		switch {
		case err == syscall.EINTR:
			continue
		case first && (err == syscall.EOPNOTSUPP || err == syscall.ENOSYS || err == syscall.EINVAL):
			noDsyncWrite.Store(true)
			return false, nil
		case err != nil:
			return true, &os.PathError{Op: "pwritev2", Path: of.Name(), Err: err}
		}
		p, off = p[n:], off+int64(n)
	}
	return true, nil
}

// dsyncBet is when writeDatasync's calls may be raw (rawsync.go).
var dsyncBet rawBet

// pwritev2Dsync is one pwritev2 of p at off with RWF_DSYNC: raw while
// dsyncBet holds, else through the scheduler's syscall entry. A raw call
// needs no nudge to keep the network watched (server/netwatch): the
// thread that woke this goroutine from the netpoller has already woken
// another for the idle Ps, which waits in epoll. Measured with a second
// client's round trips during window 1, a nudge before each raw call
// changed their p50 and p99 by nothing and cost 15–20 µs a message.
func pwritev2Dsync(fd int, p []byte, off int64) (int, error) {
	start := time.Now()
	if !dsyncBet.take(start) {
		return unix.Pwritev2(fd, [][]byte{p}, off, unix.RWF_DSYNC)
	}
	var iov unix.Iovec
	iov.Base = &p[0]
	iov.SetLen(len(p))
	lo, hi := uintptr(off), uintptr(uint64(off)>>(unix.SizeofLong*8-1)>>1)
	n, _, e := unix.RawSyscall6(unix.SYS_PWRITEV2, uintptr(fd), uintptr(unsafe.Pointer(&iov)), 1, lo, hi, unix.RWF_DSYNC)
	runtime.KeepAlive(p)
	dsyncBet.took(start, time.Since(start))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
