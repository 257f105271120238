//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/server"
	"warren/server/store"
)

// smallDisk mounts a tmpfs of size bytes for one test, or skips it when
// the test cannot mount one (not root, no tmpfs).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs to fill (needs root): %v", size, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	must(t, syscall.Statfs(dir, &st))
	return int64(st.Bavail) * st.Bsize
}

// awaitDiskBlocking waits for the next connection.blocked ("low on disk")
// or connection.unblocked notice.
func awaitDiskBlocking(t *testing.T, blocked <-chan amqp.Blocking, active bool) {
	t.Helper()
	select {
	case b := <-blocked:
		if b.Active != active || (active && b.Reason != "low on disk") {
			t.Fatalf("blocking notice %+v, want active=%t reason \"low on disk\"", b, active)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no connection.blocked notice with active=%t", active)
	}
}

// publisher publishes persistent messages with confirms to a durable queue
// on its own goroutine, so that a publish blocked by the alarm holds it
// and not the test, and counts the confirmed ones.
type publisher struct {
	mu        sync.Mutex
	confirmed int
	stop      chan struct{}
	done      chan error
}

func startPublisher(ch *amqp.Channel, queue string, body []byte) *publisher {
	p := &publisher{stop: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		var window []*amqp.DeferredConfirmation
		for {
			select {
			case <-p.stop:
				p.done <- nil
				return
			default:
			}
			dc, err := ch.PublishWithDeferredConfirm("", queue, false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: body})
			if err != nil {
				p.done <- err
				return
			}
			if window = append(window, dc); len(window) == 16 {
				for _, dc := range window {
					if !dc.Wait() {
						p.done <- amqp.ErrClosed
						return
					}
				}
				p.mu.Lock()
				p.confirmed += len(window)
				p.mu.Unlock()
				window = window[:0]
			}
		}
	}()
	return p
}

func (p *publisher) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.confirmed
}

// TestDiskFreeLimitOnASmallDisk runs the broker on a real 8 MiB tmpfs with
// a 2 MiB disk-free limit. A file the test writes takes the free space
// below the limit: the publisher gets connection.blocked "low on disk" and
// its publishes wait; the file removed, it is unblocked and they complete.
// Then the broker's own messages fill the disk: it is blocked only once
// they have used it down to the limit, not when the free space is smaller
// than a snapshot (about half of it). Consumers drain it while blocked;
// the snapshot of the drained state gives the space back and the
// publisher is unblocked.
func TestDiskFreeLimitOnASmallDisk(t *testing.T) {
	root := smallDisk(t, "8m")
	var logged lockedBuffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	const limit = 2 << 20
	srv := startServerWith(t, server.Options{DataDir: filepath.Join(root, "data"), Store: store.Options{
		DiskFreeLimit: limit, SnapshotLogBytes: 1 << 20, DiskCheckInterval: 20 * time.Millisecond, RetryInterval: 10 * time.Millisecond}})
	c := dial(t, srv)
	blocked := c.NotifyBlocked(make(chan amqp.Blocking, 16))
	ch := channel(t, c)
	must(t, ch.Confirm(false))
	_, err := ch.QueueDeclare("kept", true, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("scratch", false, false, false, false, nil)
	must(t, err)
	start := freeBytes(t, root)

	// A file of the test's takes the disk below the limit.
	filler := filepath.Join(root, "filler")
	must(t, os.WriteFile(filler, make([]byte, start-limit+(256<<10)), 0o640))
	if b, _ := publishUntilBlocked(t, ch, "scratch", blocked); b.Reason != "low on disk" {
		t.Fatalf("blocking notice %+v, want low on disk", b)
	}
	if o := overviewDisk(t, srv); !o.Alarm || o.Limit != limit || o.Free >= limit {
		t.Errorf("/api/overview storage while low: %+v", o)
	}
	waiting, err := ch.PublishWithDeferredConfirm("", "kept", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte("waits")})
	must(t, err)
	select {
	case <-waiting.Done():
		t.Fatal("a publish was confirmed while the disk was low")
	case <-time.After(300 * time.Millisecond):
	}
	must(t, os.Remove(filler))
	awaitDiskBlocking(t, blocked, false)
	if !waiting.Wait() {
		t.Fatal("the waiting publish was nacked")
	}
	if s := logged.String(); !strings.Contains(s, "low on disk") || !strings.Contains(s, "磁盘空间不足") || !strings.Contains(s, "back above the limit") {
		t.Errorf("the server's log: %q", s)
	}

	// The broker's own messages fill the disk down to the limit.
	body := make([]byte, 4096)
	p := startPublisher(ch, "kept", body)
	awaitDiskBlocking(t, blocked, true)
	atBlock, queuedAtBlock := freeBytes(t, root), p.count()
	queuedBytes := int64(queuedAtBlock * len(body))
	t.Logf("free at start %d, blocked with %d free after %d messages confirmed (%d bytes)", start, atBlock, queuedAtBlock, queuedBytes)
	if atBlock >= limit || atBlock < limit/4 {
		t.Errorf("blocked with %d bytes free, want just under the %d limit (measured at least every 64 KiB near it)", atBlock, limit)
	}
	// What the broker could use is start-limit; a snapshot is written
	// beside the files it replaces, so blocking whenever the free space is
	// smaller than one would stop near half of it.
	if usable := start - limit; queuedBytes < usable*3/4 {
		t.Errorf("blocked after %d bytes of messages, want at least 3/4 of the %d usable", queuedBytes, usable)
	}

	// Consumers keep draining while publishers are blocked; the drained
	// state's snapshot frees the log, and the publisher goes on.
	cons := channel(t, dial(t, srv))
	d, err := cons.Consume("kept", "", false, false, false, false, nil)
	must(t, err)
	for range queuedAtBlock + 1 {
		must(t, recv(t, d).Ack(false))
	}
	awaitDiskBlocking(t, blocked, false)
	close(p.stop)
	must(t, <-p.done)
	// The free space the broker unblocked at is the one its log gives:
	// measured here, after the publisher went on, it may be under the
	// limit again (and the broker blocking once more, rightly).
	if at := lastFreeAtUnblock(t, logged.String()); at < limit {
		t.Errorf("unblocked with %d bytes free, below the %d limit", at, limit)
	}
}

// lastFreeAtUnblock is the free space the server's last "back above the
// limit" log line reports.
func lastFreeAtUnblock(t *testing.T, logs string) int64 {
	t.Helper()
	const mark = "back above the limit ("
	i := strings.LastIndex(logs, mark)
	if i < 0 {
		t.Fatalf("the server's log has no %q line: %q", mark, logs)
	}
	var free int64
	if _, err := fmt.Sscanf(logs[i+len(mark):], "%d bytes free", &free); err != nil {
		t.Fatalf("the server's log: %v", err)
	}
	return free
}

// diskFields are /api/overview's storage fields for the disk alarm.
type diskFields struct {
	Free  int64 `json:"disk_free"`
	Limit int64 `json:"disk_free_limit"`
	Alarm bool  `json:"disk_free_alarm"`
}

func overviewDisk(t *testing.T, srv *server.Server) diskFields {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+srv.HTTPAddr()+"/api/overview", nil)
	req.SetBasicAuth("guest", "guest")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var o struct {
		Storage diskFields `json:"storage"`
	}
	must(t, json.NewDecoder(resp.Body).Decode(&o))
	return o.Storage
}

// TestStartOnALowDisk: a broker started with less free space than the
// limit is blocked from the start: a publish waits until space is back,
// and its connection is told connection.blocked when it publishes, as
// RabbitMQ tells one that opens while an alarm is set.
func TestStartOnALowDisk(t *testing.T) {
	root := smallDisk(t, "4m")
	const limit = 2 << 20
	must(t, os.WriteFile(filepath.Join(root, "filler"), make([]byte, freeBytes(t, root)-limit+(256<<10)), 0o640))
	srv := startServerWith(t, server.Options{DataDir: filepath.Join(root, "data"), Store: store.Options{DiskFreeLimit: limit, DiskCheckInterval: 20 * time.Millisecond}})
	c := dial(t, srv)
	blocked := c.NotifyBlocked(make(chan amqp.Blocking, 4))
	ch := channel(t, c)
	must(t, ch.Confirm(false))
	_, err := ch.QueueDeclare("kept", true, false, false, false, nil)
	must(t, err)
	waiting, err := ch.PublishWithDeferredConfirm("", "kept", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte("waits")})
	must(t, err)
	select {
	case <-waiting.Done():
		t.Fatal("a publish was confirmed on a broker started below the disk-free limit")
	case <-time.After(300 * time.Millisecond):
	}
	if o := overviewDisk(t, srv); !o.Alarm {
		t.Errorf("/api/overview storage: %+v", o)
	}
	awaitDiskBlocking(t, blocked, true) // told when it published
	must(t, os.Remove(filepath.Join(root, "filler")))
	awaitDiskBlocking(t, blocked, false)
	if !waiting.Wait() {
		t.Fatal("the waiting publish was nacked")
	}
}
