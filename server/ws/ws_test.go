package ws

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestDeadlineEndsAReadNotTheSocket: a read deadline set to now while a
// Read waits (how driver/conn wakes a connection's owner) ends that Read
// with os.ErrDeadlineExceeded, and the stream goes on: what the client
// sends next is read whole, in order.
func TestDeadlineEndsAReadNotTheSocket(t *testing.T) {
	accepted := make(chan *Transport, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr, err := Accept(w, r, []string{"127.0.0.1:*"})
		if err != nil {
			t.Error(err)
			return
		}
		accepted <- tr
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseNow()
	tr := <-accepted
	defer tr.Close()

	got := make(chan error, 1)
	buf := make([]byte, 64)
	go func() {
		_, err := tr.Read(buf)
		got <- err
	}()
	// Whether the Read waits already or starts after, it ends.
	tr.SetReadDeadline(time.Now())
	if err := <-got; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the woken Read: %v, want os.ErrDeadlineExceeded", err)
	}
	tr.SetReadDeadline(time.Time{})
	if err := client.Write(ctx, websocket.MessageBinary, []byte("AMQP\x00\x00\x09\x01")); err != nil {
		t.Fatal(err)
	}
	var read []byte
	for len(read) < 8 {
		n, err := tr.Read(buf)
		if err != nil {
			t.Fatalf("a Read after the wake-up: %v", err)
		}
		read = append(read, buf[:n]...)
	}
	if string(read) != "AMQP\x00\x00\x09\x01" {
		t.Fatalf("read %q after the wake-up", read)
	}
}
