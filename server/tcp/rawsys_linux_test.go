//go:build linux

package tcp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// The TCP transport reads and writes its sockets with raw system calls
// (rawsys_linux.go); these tests hold it to what net.Conn's Read and
// Write do.

// TestRawWritesWaitForAFullSocket: WriteFrames to a client that reads
// nothing for a while fills the socket, waits, and then gets every byte
// through in order once the client reads.
func TestRawWritesWaitForAFullSocket(t *testing.T) {
	nc, tr := tcpPair(t)
	const frames, size = 400, 20000 // 8 MB: more than the socket holds
	done := make(chan error, 1)
	go func() {
		var fs [][]byte
		for i := range frames {
			fs = append(fs, bytes.Repeat([]byte{byte(i)}, size))
		}
		done <- tr.WriteFrames(fs)
	}()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("WriteFrames returned (%v) before the client read 8 MB", err)
	default:
	}
	nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(io.LimitReader(nc, frames*size))
	if err != nil {
		t.Fatal(err)
	}
	for i := range frames {
		if !bytes.Equal(got[i*size:(i+1)*size], bytes.Repeat([]byte{byte(i)}, size)) {
			t.Fatalf("frame %d arrived changed or out of order", i)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("WriteFrames: %v", err)
	}
}

// TestRawWritesReportAGoneClient: writing to a client that reset the
// connection fails with the *net.OpError a net.Conn write gives.
func TestRawWritesReportAGoneClient(t *testing.T) {
	nc, tr := tcpPair(t)
	nc.(*net.TCPConn).SetLinger(0) // close with a reset
	nc.Close()
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = tr.WriteFrames([][]byte{make([]byte, 1000)})
		time.Sleep(time.Millisecond)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "write" {
		t.Fatalf("write to a reset connection: %v, want a *net.OpError for write", err)
	}
}

// TestRawReadsEndAsNetConnReads: a passed deadline (the heartbeat check)
// and a close by the server end a read with the errors a net.Conn read
// gives, which the connection's goroutine tells apart.
func TestRawReadsEndAsNetConnReads(t *testing.T) {
	_, tr := tcpPair(t)
	buf := make([]byte, 4096)
	tr.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := tr.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	tr.SetReadDeadline(time.Time{})
	go func() {
		time.Sleep(20 * time.Millisecond)
		tr.Close()
	}()
	if _, err := tr.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read on a connection closed under it: %v, want net.ErrClosed", err)
	}
}

// TestRawReadsAndWritesAllocateNothing: reading and writing the socket
// allocates nothing (the functions raw's Read and Write call are made
// once a connection: sockRead, sockWrite), averaged over many rounds so
// that a rare SO_RCVLOWAT change does not count.
func TestRawReadsAndWritesAllocateNothing(t *testing.T) {
	nc, tr := tcpPair(t)
	msg := []byte("0123456789")
	buf := make([]byte, 4096)
	back := make([]byte, len(msg))
	allocs := testing.AllocsPerRun(500, func() {
		if _, err := nc.Write(msg); err != nil {
			t.Fatal(err)
		}
		if n, err := tr.Read(buf); err != nil || n != len(msg) {
			t.Fatalf("read %d, %v", n, err)
		}
		if blocked, err := tr.TryWrite(msg); blocked || err != nil {
			t.Fatalf("TryWrite: blocked %v, %v", blocked, err)
		}
		if err := tr.WriteFrames([][]byte{msg}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := io.ReadFull(nc, back); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations a round of a read, a TryWrite and a WriteFrames, want 0", allocs)
	}
}
