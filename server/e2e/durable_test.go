package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/server"
	"warren/server/store"
)

// restartServer shuts srv down gracefully and starts a new server on the
// same data directory.
func restartServer(t *testing.T, srv *server.Server, opts server.Options) *server.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	must(t, srv.Shutdown(ctx))
	return startServerWith(t, opts)
}

// TestRestartKeepsWhatRabbitMQKeeps: across a restart on the same data
// directory, a durable queue keeps its persistent messages, in order, with
// their properties and headers, and loses its transient ones; a
// non-durable queue is gone; an unacked delivery comes back redelivered.
func TestRestartKeepsWhatRabbitMQKeeps(t *testing.T) {
	var notes []string
	opts := server.Options{DataDir: t.TempDir(), Log: func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }}
	srv := startServerWith(t, opts)
	ch := channel(t, dial(t, srv))
	must(t, ch.Confirm(false))
	_, err := ch.QueueDeclare("keep", true, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("lose", false, false, false, false, nil)
	must(t, err)
	for i, m := range []amqp.Publishing{
		{MessageId: "p1", DeliveryMode: amqp.Persistent, Headers: amqp.Table{"h": "v"}, ContentType: "text/plain", Body: []byte("one")},
		{MessageId: "t1", DeliveryMode: amqp.Transient, Body: []byte("two")},
		{MessageId: "p2", DeliveryMode: amqp.Persistent, Body: []byte("three")},
		{MessageId: "p3", DeliveryMode: amqp.Persistent, Body: []byte("four")},
	} {
		dc, err := ch.PublishWithDeferredConfirm("", "keep", false, false, m)
		must(t, err)
		if !dc.Wait() {
			t.Fatalf("publish %d not confirmed", i)
		}
	}
	// p1 is delivered and left unacked when the server stops.
	if m, ok, err := ch.Get("keep", false); err != nil || !ok || m.MessageId != "p1" {
		t.Fatalf("get: %v %v %q", ok, err, m.MessageId)
	}

	srv = restartServer(t, srv, opts)
	// The start-up says what it restored, in English and in Chinese.
	if s := strings.Join(notes, "\n"); !strings.Contains(s, "restored snapshot") || !strings.Contains(s, "已恢复快照") {
		t.Errorf("start-up notes: %q", s)
	}
	ch = channel(t, dial(t, srv))
	if _, err := ch.QueueDeclarePassive("lose", false, false, false, false, nil); err == nil {
		t.Error("the non-durable queue survived the restart")
	}
	ch = channel(t, dial(t, srv))
	var got []string
	for {
		m, ok, err := ch.Get("keep", true)
		must(t, err)
		if !ok {
			break
		}
		got = append(got, m.MessageId)
		if m.MessageId == "p1" {
			if !m.Redelivered || m.Headers["h"] != "v" || m.ContentType != "text/plain" || string(m.Body) != "one" {
				t.Errorf("p1 after the restart: redelivered %t, headers %v, content-type %q, body %q", m.Redelivered, m.Headers, m.ContentType, m.Body)
			}
		} else if m.Redelivered {
			t.Errorf("%s is flagged redelivered but was never delivered", m.MessageId)
		}
	}
	if want := []string{"p1", "p2", "p3"}; !equal(got, want) {
		t.Errorf("after the restart the durable queue holds %v, want %v", got, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// failingDisk opens real files whose writes and fsyncs fail with ENOSPC
// while full is set: a disk that fills up and is freed again. While
// stall is set, an fsync waits until release closes: a slow disk.
type failingDisk struct {
	full    atomic.Bool
	stall   atomic.Bool
	release chan struct{}
}

func (d *failingDisk) open(name string, flag int, perm os.FileMode) (store.File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &failingFile{f, d}, nil
}

type failingFile struct {
	*os.File
	d *failingDisk
}

func (f *failingFile) WriteAt(p []byte, off int64) (int, error) {
	if f.d.full.Load() {
		return 0, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return f.File.WriteAt(p, off)
}

func (f *failingFile) Sync() error {
	if f.d.stall.Load() {
		<-f.d.release
	}
	if f.d.full.Load() {
		return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return f.File.Sync()
}

// TestFullDiskBlocksPublishersAndHoldsConfirms: when the data directory's
// disk fills up, publishers are blocked with connection.blocked "low on
// disk", /api/overview says why, and neither the confirm of a persistent
// message to a durable queue nor a tx.commit-ok is sent (they would
// promise what is not on disk), while a transient message's confirm is
// not held. Once the disk has room again, everything goes out, publishers
// are unblocked, and the confirmed message survives a restart.
func TestFullDiskBlocksPublishersAndHoldsConfirms(t *testing.T) {
	disk := &failingDisk{}
	var logged lockedBuffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	opts := server.Options{DataDir: t.TempDir(), Store: store.Options{OpenFile: disk.open, RetryInterval: 50 * time.Millisecond}}
	srv := startServerWith(t, opts)
	c := dial(t, srv)
	blocked := c.NotifyBlocked(make(chan amqp.Blocking, 4))
	ch := channel(t, c)
	must(t, ch.Confirm(false))
	_, err := ch.QueueDeclare("kept", true, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("scratch", false, false, false, false, nil)
	must(t, err)
	tx := channel(t, c)
	must(t, tx.Tx())
	must(t, tx.Publish("", "kept", false, false, amqp.Publishing{MessageId: "in-tx", DeliveryMode: amqp.Persistent}))

	disk.full.Store(true)
	held, err := ch.PublishWithDeferredConfirm("", "kept", false, false, amqp.Publishing{MessageId: "held", DeliveryMode: amqp.Persistent, Body: []byte("x")})
	must(t, err)
	if b, _ := publishUntilBlocked(t, ch, "scratch", blocked); !b.Active || b.Reason != "low on disk" {
		t.Fatalf("blocking notice %+v, want low on disk", b)
	}
	if err := overviewError(t, srv); err == "" {
		t.Error("/api/overview says nothing of the write error")
	}
	// The log says why, in English and in Chinese.
	if s := logged.String(); !strings.Contains(s, "publishers are blocked") || !strings.Contains(s, "生产者被阻塞") || !strings.Contains(s, "no space left on device") {
		t.Errorf("the server's log: %q", s)
	}
	select {
	case <-held.Done():
		t.Fatal("a persistent message was confirmed while the disk was full")
	case <-time.After(300 * time.Millisecond):
	}
	commit := make(chan error, 1)
	go func() { commit <- tx.TxCommit() }()
	select {
	case err := <-commit:
		t.Fatalf("tx.commit-ok while the disk was full (%v)", err)
	case <-time.After(300 * time.Millisecond):
	}

	disk.full.Store(false)
	if !held.Wait() {
		t.Fatal("the held confirm was a nack")
	}
	select {
	case err := <-commit:
		must(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("no tx.commit-ok once the disk had room")
	}
	select {
	case b := <-blocked:
		if b.Active {
			t.Fatalf("blocking notice %+v, want unblocked", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no connection.unblocked once the disk had room")
	}

	srv = restartServer(t, srv, opts)
	ch = channel(t, dial(t, srv))
	var got []string
	for {
		m, ok, err := ch.Get("kept", true)
		must(t, err)
		if !ok {
			break
		}
		got = append(got, m.MessageId)
	}
	if want := []string{"held", "in-tx"}; !equal(got, want) { // the commit came after held
		t.Errorf("after the restart: %v, want %v", got, want)
	}
}

// TestTransientConfirmsNeverWaitForTheDisk: a confirm for a transient
// message, or for any message to a non-durable queue, goes out while the
// disk has not synced the log (an fsync that hangs). (A disk that fails
// instead blocks publishers altogether, as RabbitMQ's disk alarm does.)
func TestTransientConfirmsNeverWaitForTheDisk(t *testing.T) {
	disk := &failingDisk{release: make(chan struct{})}
	released := false
	defer func() {
		if !released {
			close(disk.release)
		}
	}()
	srv := startServerWith(t, server.Options{DataDir: t.TempDir(), Store: store.Options{OpenFile: disk.open, RetryInterval: 50 * time.Millisecond}})
	ch := channel(t, dial(t, srv))
	must(t, ch.Confirm(false))
	_, err := ch.QueueDeclare("durable", true, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("scratch", false, false, false, false, nil)
	must(t, err)
	disk.stall.Store(true)
	for _, p := range []struct {
		queue string
		mode  uint8
	}{{"durable", amqp.Transient}, {"scratch", amqp.Persistent}, {"scratch", amqp.Transient}} {
		dc, err := ch.PublishWithDeferredConfirm("", p.queue, false, false, amqp.Publishing{DeliveryMode: p.mode})
		must(t, err)
		select {
		case <-dc.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("the confirm of a message with delivery-mode %d to %s waited for the disk", p.mode, p.queue)
		}
	}
	disk.stall.Store(false)
	close(disk.release)
	released = true
}

func overviewError(t *testing.T, srv *server.Server) string {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+srv.HTTPAddr()+"/api/overview", nil)
	req.SetBasicAuth("guest", "guest")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var o struct {
		Storage struct {
			Mode  string `json:"mode"`
			Error string `json:"error"`
		} `json:"storage"`
	}
	must(t, json.NewDecoder(resp.Body).Decode(&o))
	if o.Storage.Mode != "disk" {
		t.Errorf("storage mode %q, want disk", o.Storage.Mode)
	}
	return o.Storage.Error
}

// TestRestartTakesTheNewLimits: a restored broker keeps its state but runs
// under the limits of the flags it was restarted with.
func TestRestartTakesTheNewLimits(t *testing.T) {
	opts := server.Options{DataDir: t.TempDir()}
	srv := startServerWith(t, opts)
	ch := channel(t, dial(t, srv))
	for _, q := range []string{"a", "b"} {
		_, err := ch.QueueDeclare(q, true, false, false, false, nil)
		must(t, err)
	}
	opts.Engine.MaxQueuesPerVhost = 2
	srv = restartServer(t, srv, opts)
	ch = channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("c", true, false, false, false, nil)
	if e := amqpErr(t, err); e.Code != 406 {
		t.Errorf("a third queue under --max-queues 2 after the restart: %v, want 406", err)
	}
}

// lockedBuffer collects the standard logger's output, written from the
// server's goroutines (the broker logs under its lock, on whichever
// goroutine holds it) while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
