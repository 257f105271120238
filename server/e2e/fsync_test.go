package e2e

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/server"
	"warren/server/store"
)

// syncedDisk remembers, for each file, how many bytes its last completed
// fsync covered: what a power cut could not take.
type syncedDisk struct {
	failingDisk
	mu     sync.Mutex
	synced map[string]int64
}

func (d *syncedDisk) open(name string, flag int, perm os.FileMode) (store.File, error) {
	f, err := d.failingDisk.open(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &syncedFile{f.(*failingFile), d}, nil
}

type syncedFile struct {
	*failingFile
	d *syncedDisk
}

func (f *syncedFile) Sync() error {
	if err := f.failingFile.Sync(); err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	f.d.mu.Lock()
	f.d.synced[f.Name()] = max(f.d.synced[f.Name()], info.Size())
	f.d.mu.Unlock()
	return nil
}

// onDisk says whether body is in the fsynced part of a log file.
func (d *syncedDisk) onDisk(t *testing.T, body []byte) bool {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for name, n := range d.synced {
		if !strings.HasSuffix(name, ".wlog") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			continue // replaced by a snapshot since
		}
		if bytes.Contains(b[:min(int64(len(b)), n)], body) {
			return true
		}
	}
	return false
}

// TestEveryConfirmFollowsItsFsync: a persistent message's confirm comes
// only once its log record is in a completed fsync, whichever goroutine
// did the fsync: the publisher's own (one confirm in flight, the
// connection idle: broker.ApplyThenSync) or the store's syncer (two
// publishers at once, one of them finding the other's fsync under way;
// a publisher that streams). And while the disk does not finish an
// fsync, no such confirm comes.
func TestEveryConfirmFollowsItsFsync(t *testing.T) {
	disk := &syncedDisk{failingDisk: failingDisk{release: make(chan struct{})}, synced: map[string]int64{}}
	srv := startServerWith(t, server.Options{DataDir: t.TempDir(), Store: store.Options{OpenFile: disk.open}})
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("kept", true, false, false, false, nil)
	must(t, err)
	const perPublisher = 60
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for p := range 2 {
		ch := channel(t, dial(t, srv))
		must(t, ch.Confirm(false))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perPublisher {
				body := fmt.Appendf(nil, "publisher-%d-message-%03d", p, i)
				dc, err := ch.PublishWithDeferredConfirm("", "kept", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: body})
				if err != nil {
					errs <- err
					return
				}
				if !dc.Wait() {
					errs <- fmt.Errorf("%s: nack", body)
					return
				}
				if !disk.onDisk(t, body) {
					errs <- fmt.Errorf("%s was confirmed before an fsync covered it", body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// A publisher that streams (up to 64 unconfirmed) leaves the fsync
	// to the syncer: the same holds.
	ch = channel(t, dial(t, srv))
	must(t, ch.Confirm(false))
	const streamed, window = 400, 64
	pending := make([]*amqp.DeferredConfirmation, 0, window)
	bodies := make([][]byte, 0, window)
	for i := range streamed {
		body := fmt.Appendf(nil, "streamed-message-%04d", i)
		dc, err := ch.PublishWithDeferredConfirm("", "kept", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: body})
		must(t, err)
		pending, bodies = append(pending, dc), append(bodies, body)
		if len(pending) < window && i < streamed-1 {
			continue
		}
		for j, dc := range pending {
			if !dc.Wait() {
				t.Fatalf("%s: nack", bodies[j])
			}
			if !disk.onDisk(t, bodies[j]) {
				t.Fatalf("%s was confirmed before an fsync covered it", bodies[j])
			}
		}
		pending, bodies = pending[:0], bodies[:0]
	}

	// An fsync that does not finish holds the confirm back.
	ch = channel(t, dial(t, srv))
	must(t, ch.Confirm(false))
	disk.stall.Store(true)
	released := false
	defer func() {
		if !released {
			close(disk.release)
		}
	}()
	dc, err := ch.PublishWithDeferredConfirm("", "kept", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte("stalled")})
	must(t, err)
	select {
	case <-dc.Done():
		t.Fatal("a persistent message was confirmed while its fsync had not finished")
	case <-time.After(300 * time.Millisecond):
	}
	disk.stall.Store(false)
	close(disk.release)
	released = true
	if !dc.Wait() || !disk.onDisk(t, []byte("stalled")) {
		t.Fatal("the stalled message was not confirmed once on disk")
	}
}
