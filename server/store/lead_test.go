package store

import (
	"errors"
	"syscall"
	"testing"
)

// TestSyncNowLeads: SyncNow writes the records appended with
// AppendDeferred with one fsync on the caller's goroutine, needing no
// syncer (none runs here until the end), and does not signal Notify
// (its caller knows).
func TestSyncNowLeads(t *testing.T) {
	fs := &faultFS{}
	s, _, err := open(t.TempDir(), Options{OpenFile: fs.open}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		go s.run()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	select {
	case <-s.Notify(): // from opening (the free space measured)
	default:
	}
	before := fs.syncs.Load()
	var last Pos
	for i := 1; i <= 100; i++ {
		last, _ = s.AppendDeferred([]byte(rec(i)))
	}
	if n := fs.syncs.Load() - before; n != 0 || s.Durable() != 0 {
		t.Fatalf("deferred records: %d fsyncs, Durable %d; want none yet", n, s.Durable())
	}
	if !s.SyncNow() {
		t.Fatal("SyncNow did not lead with no round under way")
	}
	if n := fs.syncs.Load() - before; n != 1 || s.Durable() != last {
		t.Fatalf("after SyncNow: %d fsyncs, Durable %d; want 1, %d", n, s.Durable(), last)
	}
	select {
	case <-s.Notify():
		t.Fatal("SyncNow's round signalled Notify")
	default:
	}
	if !s.SyncNow() || fs.syncs.Load()-before != 1 {
		t.Fatal("SyncNow with nothing appended did an fsync")
	}
}

// TestSyncNowFollows: while the syncer is inside an fsync, SyncNow does
// not wait for it: it hands its records to the syncer, whose next round
// covers them, one fsync for all of them.
func TestSyncNowFollows(t *testing.T) {
	fs := &faultFS{}
	s, _ := openT(t, t.TempDir(), Options{OpenFile: fs.open})
	defer s.Close()
	before := fs.syncs.Load()
	fs.mu.Lock()
	fs.gate, fs.entered = make(chan struct{}), make(chan struct{})
	fs.mu.Unlock()
	s.Append([]byte(rec(1)))
	<-fs.entered // the syncer is in the fsync of record 1
	var last Pos
	for i := 2; i <= 50; i++ {
		last, _ = s.AppendDeferred([]byte(rec(i)))
		if s.SyncNow() {
			t.Fatal("SyncNow led while the syncer's round was under way")
		}
	}
	fs.mu.Lock()
	gate := fs.gate
	fs.gate = nil
	fs.mu.Unlock()
	close(gate)
	if err := s.WaitSynced(last); err != nil {
		t.Fatal(err)
	}
	if n := fs.syncs.Load() - before; n != 2 {
		t.Fatalf("50 records took %d fsyncs, want 2", n)
	}
}

// TestSyncNowFailing: an fsync SyncNow makes fails: it says so (false,
// Err), keeps the records, and the syncer writes them, exactly once,
// once the disk works again.
func TestSyncNowFailing(t *testing.T) {
	fs := &faultFS{}
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{OpenFile: fs.open, RetryInterval: 1})
	appendN(t, s, 1, 5)
	fs.setSyncErr(syscall.EIO)
	for i := 6; i <= 10; i++ {
		s.AppendDeferred([]byte(rec(i)))
	}
	if s.SyncNow() {
		t.Fatal("SyncNow reported a failed fsync as done")
	}
	// SyncNow failed, or found the syncer taking the records first.
	for s.Err() == nil {
		<-s.Notify()
	}
	if !errors.Is(s.Err(), syscall.EIO) || s.Durable() != 5 {
		t.Fatalf("Err = %v, Durable = %d", s.Err(), s.Durable())
	}
	if s.SyncNow() {
		t.Fatal("SyncNow led while the syncer retries a failed write")
	}
	fs.setSyncErr(nil)
	if err := s.WaitSynced(10); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, r := openT(t, dir, Options{})
	wantRecords(t, records(t, r), 1, 10)
}

// TestWakeOnlyForDeferredRecords: Wake wakes the syncer for what
// AppendDeferred buffered, and for nothing else.
func TestWakeOnlyForDeferredRecords(t *testing.T) {
	fs := &faultFS{}
	s, _ := openT(t, t.TempDir(), Options{OpenFile: fs.open})
	defer s.Close()
	p, _ := s.AppendDeferred([]byte(rec(1)))
	s.Wake()
	if err := s.WaitSynced(p); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	unwoken := s.unwoken
	s.mu.Unlock()
	if unwoken {
		t.Fatal("Wake left the records marked unwoken")
	}
}
