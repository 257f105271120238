package amqpsocket

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// TestMessagesStream: messages read as one stream, empty ones included
// (they carry nothing), the end after Closed, a read deadline, and a
// message past the bound closing the socket with 1009.
func TestMessagesStream(t *testing.T) {
	closed := make(chan int, 1)
	m := NewMessages("203.0.113.7:1", func([]byte) error { return nil }, func(code int, _ string) { closed <- code })
	for _, msg := range []string{"AM", "", "QP", "", ""} {
		m.Deliver([]byte(msg))
	}
	got := make([]byte, 0, 8)
	buf := make([]byte, 3)
	for len(got) < 4 {
		n, err := m.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "AMQP" {
		t.Fatalf("read %q", got)
	}

	m.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := m.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v", err)
	}
	m.SetReadDeadline(time.Time{})

	m.Deliver(make([]byte, 5000)) // past the pre-tune bound of one 4096-byte frame
	if code := <-closed; code != 1009 {
		t.Fatalf("an over-long message closed the socket with %d", code)
	}
	if _, err := m.Read(buf); err != io.EOF {
		t.Fatalf("after an over-long message: %v", err)
	}

	m2 := NewMessages("x", func([]byte) error { return nil }, func(int, string) {})
	m2.BoundMessages(131072, 16<<20)
	m2.Deliver(make([]byte, 5000))
	m2.Closed()
	n, err := io.ReadFull(m2, make([]byte, 5000))
	if n != 5000 || err != nil {
		t.Fatalf("after bound: %d %v", n, err)
	}
	if _, err := m2.Read(buf); err != io.EOF {
		t.Fatalf("after Closed: %v", err)
	}
}
