package main

import (
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"unsafe"
)

// The floor's connections (floor.go): raw reads and writes, as Warren's
// TCP transport makes them.

// floorConn is one client connection of the floor.
type floorConn struct {
	c  net.Conn
	rc syscall.RawConn // c's, for raw reads and writes
	// out collects what this connection's own goroutine answers, written
	// after each read's frames are handled.
	out []byte

	// wmu serialises writes to the socket from this and other
	// connections' goroutines, and guards what follows.
	wmu sync.Mutex
	// relayed collects deliveries to this connection until the goroutine
	// that relayed them has handled its read.
	relayed []byte
}

// newFloorConn readies c for floorConn's raw reads and writes.
func newFloorConn(c net.Conn) (*floorConn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &floorConn{c: c, rc: rc}, nil
}

// read is one raw read(2), waiting in the netpoller while the socket is
// empty.
func (fc *floorConn) read(b []byte) (int, error) {
	var n uintptr
	var e syscall.Errno
	err := fc.rc.Read(func(fd uintptr) bool {
		for {
			n, _, e = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
			if e != syscall.EINTR {
				return e != syscall.EAGAIN
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case e != 0:
		return 0, e
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// writeLocked writes all of b with raw write(2)s, waiting in the
// netpoller while the socket is full; fc.wmu is held.
func (fc *floorConn) writeLocked(b []byte) error {
	var e syscall.Errno
	err := fc.rc.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
			switch errno {
			case 0:
				b = b[n:]
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				e = errno
				return true
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if e != 0 {
		return e
	}
	return nil
}

// close closes the socket; a write to it waiting in the netpoller, from
// any goroutine, returns at once with an error.
func (fc *floorConn) close() { fc.c.Close() }

// flushRelayed writes the deliveries queued for the connection.
func (fc *floorConn) flushRelayed() {
	fc.wmu.Lock()
	defer fc.wmu.Unlock()
	if len(fc.relayed) > 0 {
		fc.writeLocked(fc.relayed) // a failure shows in the connection's own read
		fc.relayed = fc.relayed[:0]
	}
}

// flushOwn writes what the connection's goroutine answered.
func (fc *floorConn) flushOwn() error {
	if len(fc.out) == 0 {
		return nil
	}
	fc.wmu.Lock()
	defer fc.wmu.Unlock()
	err := fc.writeLocked(fc.out)
	fc.out = fc.out[:0]
	return err
}
