//go:build linux

package conn

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
