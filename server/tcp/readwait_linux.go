//go:build linux

package tcp

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

// waitingReads counts the TCP reads blocked in ppoll right now (Read).
var waitingReads atomic.Int32

// Read reads from the socket, first waiting up to readWait for as many
// bytes as t.pace asks (readpacing.go says when and why).
//
// The wait is ppoll on the socket with SO_RCVLOWAT set to the bytes
// wanted: the kernel wakes the thread when that many have arrived, or at
// the timeout, with microsecond precision (a Go deadline under 1 ms
// becomes 1 ms when the process is idle). The thread keeps its P while it
// waits, so at most GOMAXPROCS-1 reads wait at once: one P is always left
// to run other goroutines and to poll the network for them. Any other
// read goes through the netpoller with SO_RCVLOWAT back at 1, so a
// deadline (heartbeats) or a close wakes it as before. The reads are raw
// system calls (rawsys_linux.go).
func (t *Transport) Read(b []byte) (int, error) {
	if t.raw == nil {
		return t.Conn.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	t.watch.Working(time.Now())
	if want := t.pace.waitFor(len(b)); want > 0 {
		if waitingReads.Add(1) <= int32(runtime.GOMAXPROCS(0)-1) {
			n, before, err := t.waitAndRead(b, want)
			waitingReads.Add(-1)
			t.pace.waited(want, before, n)
			if n > 0 || err != nil {
				return n, err
			}
			// Nothing came in readWait: wait in the netpoller.
		} else {
			waitingReads.Add(-1)
		}
	}
	if t.rcvlowat > 1 {
		t.setLowat(1)
	}
	// Timed from here, after any read-wait above: plainRead wants how
	// long the client kept this read waiting, not the wait's own time.
	start := time.Now()
	n, err := t.rawRead(b, false)
	if t.r.parked {
		t.r.parked = false
		t.watch.Parked(time.Now())
	}
	if n > 0 {
		t.pace.plainRead(time.Since(start))
	}
	return n, err
}

// AcksHeld lets the next read wait for a consumer's acks: the
// connection's last request was acks from a client that still holds many
// deliveries (driver/conn/acks.go).
func (t *Transport) AcksHeld() { t.pace.acksHeld() }

// waitAndRead waits up to readWait for want bytes, then reads what there
// is without waiting further: n is 0 with a nil error when nothing came.
// before is how many bytes were there when the wait began.
func (t *Transport) waitAndRead(b []byte, want int) (n, before int, err error) {
	if t.rcvlowat != want {
		t.setLowat(want)
	}
	n, err = t.rawRead(b, true)
	return n, t.r.before, err
}

// rawRead reads into b through raw, with t.r's readNow, or with its
// waitThenRead when wait (see sockRead for why they are kept in t.r), and
// returns what net.Conn's Read would; after a wait, 0 bytes and no error
// when nothing came.
func (t *Transport) rawRead(b []byte, wait bool) (int, error) {
	if t.r.now == nil {
		t.r.now, t.r.waitThen = t.r.readNow, t.r.waitThenRead
	}
	f := t.r.now
	if wait {
		f = t.r.waitThen
	}
	t.r.b, t.r.n, t.r.err = b, 0, 0
	err := t.raw.Read(f)
	t.r.b = nil // hold no caller's buffer
	return t.readResult(t.r.n, t.r.err, err)
}

// readNow reads what the socket holds, asking to wait in the netpoller
// when it holds nothing.
func (r *sockRead) readNow(fd uintptr) bool {
	r.n, r.err = rawRead(fd, r.b)
	if r.err == syscall.EAGAIN {
		r.parked = true
		return false
	}
	return true
}

// waitThenRead waits up to readWait for SO_RCVLOWAT bytes, then reads what
// there is without waiting further (an EAGAIN is left in r.err).
func (r *sockRead) waitThenRead(fd uintptr) bool {
	r.before = queuedBytes(fd)
	// A timeout or a signal ends the wait early; the read below takes
	// what there is either way.
	pollIn(fd, readWait)
	r.n, r.err = rawRead(fd, r.b)
	return true
}

// readResult is what Read returns for a raw read that brought n bytes or
// failed with e, inside a RawConn.Read that returned err (a deadline, or
// the connection closed): the errors net.Conn's Read would give.
func (t *Transport) readResult(n int, e syscall.Errno, err error) (int, error) {
	switch {
	case err != nil:
		return 0, err
	case e == syscall.EAGAIN:
		return 0, nil // waitThenRead found nothing
	case e != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: t.LocalAddr(), Addr: t.RemoteAddr(), Err: os.NewSyscallError("read", e)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// setLowat sets the socket's SO_RCVLOWAT: the bytes that must have arrived
// before a poll says it is readable. It is a raw system call like the
// reads (rawsys_linux.go): a streaming client's waits change it hundreds
// of times a second, and through the runtime each change could wake sysmon.
func (t *Transport) setLowat(n int) {
	t.raw.Control(func(fd uintptr) {
		if setRcvLowat(fd, n) == 0 {
			t.rcvlowat = n
		}
	})
}

// InputQueued reports whether the socket holds bytes a read would get
// now (SIOCINQ), true when it cannot tell: a connection's goroutine
// fsyncs the command log itself for its confirm only when it has nothing
// more to read (driver/conn's apply), so that a client that streams
// publishes is read on while the store's syncer fsyncs.
func (t *Transport) InputQueued() bool {
	if t.raw == nil {
		return true
	}
	if t.r.count == nil {
		t.r.count = t.r.countQueued
	}
	t.r.queued = 0
	if err := t.raw.Control(t.r.count); err != nil {
		return true
	}
	return t.r.queued > 0
}

func (r *sockRead) countQueued(fd uintptr) { r.queued = queuedBytes(fd) }
