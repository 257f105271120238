//go:build linux

package tcp

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The TCP transport's system calls on its sockets (read, write, the
// SIOCINQ ioctl, ppoll and the SO_RCVLOWAT setsockopt) go in raw, without the
// runtime's entersyscall and exitsyscall around them. Why: when every
// P has gone idle, the runtime's sysmon thread sleeps until it is needed,
// and the next entersyscall wakes it; it then polls every 20 µs until the
// process is idle again. A broker woken every few messages (a consumer's
// acks with amqp091-go) woke sysmon each time: 11 % of its CPU in
// warren-bench publish-consume (perf), and two fifths of its context
// switches (5bab91e:BENCHMARKS.md, "Raw system calls"). The runtime needs to know
// of a system call only to give its P to other goroutines while it blocks,
// and these do not block: the sockets are non-blocking (a full one
// returns EAGAIN and the caller waits in the netpoller), and pollIn
// sleeps at most readWait, with at most GOMAXPROCS-1 of them at once.
// Each takes the descriptor as RawConn hands it, a uintptr.

// rawRead is read(2), retried on EINTR.
func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		if e != syscall.EINTR {
			if e != 0 {
				return 0, e
			}
			return int(n), 0
		}
	}
}

// rawSockets: the TCP transport writes through RawConn (tcp.go).
const rawSockets = true

// rawWrite is write(2).
func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// queuedBytes is the socket's SIOCINQ: the bytes a read would get now.
func queuedBytes(fd uintptr) int {
	var n int32
	_, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, fd, unix.SIOCINQ, uintptr(unsafe.Pointer(&n)))
	if e != 0 {
		return 0
	}
	return int(n)
}

// setRcvLowat is setsockopt(2) of SO_RCVLOWAT to n.
func setRcvLowat(fd uintptr, n int) syscall.Errno {
	v := int32(n)
	_, _, e := syscall.RawSyscall6(syscall.SYS_SETSOCKOPT, fd, syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, uintptr(unsafe.Pointer(&v)), 4, 0)
	return e
}

// pollIn waits up to d for the socket to hold SO_RCVLOWAT bytes, in
// ppoll(2), keeping the thread's P. A signal (the runtime preempting the
// goroutine, or stopping the world for the GC) ends it early.
func pollIn(fd uintptr, d time.Duration) {
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	ts := unix.NsecToTimespec(int64(d))
	unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}
