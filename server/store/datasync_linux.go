package store

import (
	"os"
	"sync/atomic"
	"syscall"
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
// fdatasync saves a system call and a pass through the Go scheduler's
// syscall entry and exit, at every confirm that waits for its own fsync
// (BenchmarkFsyncFloor's pwritev2dsync/zeros). done is false, with
// nothing written, when f is not an *os.File (a test's) or the kernel
// does not take the flag; the caller then writes and syncs as before.
//
// With raw the call goes in without the runtime's entersyscall and
// exitsyscall, as the TCP transport's socket calls do
// (server/tcp/rawsys_linux.go): when every P is idle, sysmon sleeps until
// the next entersyscall wakes it, and then polls every 20 µs until the
// process is idle again, so at a confirm window of 1 each record's sync
// woke it (a futex wake, and about one context switch a message of its
// polls). The thread keeps its P while the disk works, which leadSync
// allows only where that cannot hold anything up for long (lead.go).
func writeDatasync(f File, p []byte, off int64, raw bool) (done bool, err error) {
	of, ok := f.(*os.File)
	if !ok || noDsyncWrite.Load() || len(p) == 0 {
		return false, nil
	}
	fd := of.Fd()
	for first := true; len(p) > 0; first = false {
		n, e := pwriteDsync(fd, p, off, raw)
		switch {
		case e == syscall.EINTR:
			continue
		case first && (e == syscall.EOPNOTSUPP || e == syscall.ENOSYS || e == syscall.EINVAL):
			noDsyncWrite.Store(true)
			return false, nil
		case e != 0:
			return true, &os.PathError{Op: "pwritev2", Path: of.Name(), Err: e}
		}
		p, off = p[n:], off+int64(n)
	}
	return true, nil
}

// pwriteDsync is one pwritev2(fd, p, off, RWF_DSYNC), through the
// runtime or, with raw, not.
func pwriteDsync(fd uintptr, p []byte, off int64, raw bool) (int, syscall.Errno) {
	iov := unix.Iovec{Base: unsafe.SliceData(p)}
	iov.SetLen(len(p))
	// pwritev2 takes the offset as two longs, low then high (x/sys/unix's
	// offs2lohi): the high one is 0 where a long holds 64 bits.
	lo, hi := uintptr(off), uintptr(uint64(off)>>(unsafe.Sizeof(uintptr(0))*8-1)>>1)
	call := syscall.Syscall6
	if raw {
		call = syscall.RawSyscall6
	}
	n, _, e := call(unix.SYS_PWRITEV2, fd, uintptr(unsafe.Pointer(&iov)), 1, lo, hi, unix.RWF_DSYNC)
	return int(n), e
}
