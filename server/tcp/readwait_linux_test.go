//go:build linux

package tcp

import (
	"bytes"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The tests here read through Transport.Read over loopback TCP, where
// reads wait for a streaming client with SO_RCVLOWAT and ppoll.

// tcpPair returns the client end of a loopback TCP connection and the
// server end as a Transport.
func tcpPair(t *testing.T) (net.Conn, *Transport) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	snc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); snc.Close() })
	snc.SetReadDeadline(time.Now().Add(30 * time.Second)) // a hang fails, not a timing
	return nc, New(snc)
}

// rcvlowat reads the socket's SO_RCVLOWAT from the kernel.
func rcvlowat(t *testing.T, tr *Transport) int {
	var v int
	var err error
	tr.raw.Control(func(fd uintptr) {
		v, err = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT)
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// needTwoProcs skips where reads may never wait (GOMAXPROCS-1 of them
// may at once).
func needTwoProcs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("reads wait only with GOMAXPROCS >= 2")
	}
}

// TestWaitingReadsKeepTheStream: a client writing many small messages,
// each with a write of its own, gets every byte through in order while
// the server's reads wait for it.
func TestWaitingReadsKeepTheStream(t *testing.T) {
	needTwoProcs(t)
	nc, tr := tcpPair(t)
	const msgs, size = 20000, 100
	go func() {
		msg := make([]byte, size)
		for i := range msgs {
			for j := range msg {
				msg[j] = byte(i + j)
			}
			if _, err := nc.Write(msg); err != nil {
				return
			}
		}
	}()
	var got bytes.Buffer
	buf := make([]byte, 64<<10)
	for got.Len() < msgs*size {
		n, err := tr.Read(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", got.Len(), err)
		}
		got.Write(buf[:n])
	}
	for i := range msgs {
		for j := range size {
			if b := got.Bytes()[i*size+j]; b != byte(i+j) {
				t.Fatalf("message %d byte %d: %d, want %d", i, j, b, byte(i+j))
			}
		}
	}
	if tr.pace.waits == 0 {
		t.Fatal("no read waited for the streaming client")
	}
}

// TestWaitingReadAnswersACaller: a read that waits for a stream that is
// really a client waiting for its answer returns what came, the wait
// stops, and SO_RCVLOWAT goes back to 1 before a read waits in the
// netpoller, which would otherwise never wake for a short request.
func TestWaitingReadAnswersACaller(t *testing.T) {
	needTwoProcs(t)
	nc, tr := tcpPair(t)
	tr.pace.lowat = startLowat // as if the client had looked like a stream
	buf := make([]byte, 64<<10)
	if _, err := nc.Write([]byte("a request")); err != nil {
		t.Fatal(err)
	}
	n, err := tr.Read(buf)
	if err != nil || string(buf[:n]) != "a request" {
		t.Fatalf("read %q, %v; want %q", buf[:n], err, "a request")
	}
	if w := tr.pace.waitFor(len(buf)); w != 0 {
		t.Fatalf("the next read still waits for %d bytes", w)
	}
	// The next request is one byte, sent while the read already waits.
	go func() {
		time.Sleep(50 * time.Millisecond)
		nc.Write([]byte("x"))
	}()
	n, err = tr.Read(buf)
	if err != nil || string(buf[:n]) != "x" {
		t.Fatalf("second read %q, %v; want %q", buf[:n], err, "x")
	}
	if v := rcvlowat(t, tr); v != 1 {
		t.Fatalf("SO_RCVLOWAT after the wait stopped: %d, want 1", v)
	}
}

// TestWaitingReadSeesTheEnd: a client that closes while a read waits
// ends it with io.EOF after its last bytes.
func TestWaitingReadSeesTheEnd(t *testing.T) {
	needTwoProcs(t)
	nc, tr := tcpPair(t)
	tr.pace.lowat = startLowat
	nc.Write([]byte("bye"))
	nc.Close()
	buf := make([]byte, 4096)
	var got []byte
	for {
		n, err := tr.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
	}
	if string(got) != "bye" {
		t.Fatalf("read %q before EOF, want %q", got, "bye")
	}
}
