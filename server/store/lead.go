package store

import (
	"runtime"
	"time"
)

// SyncNow writes and fsyncs the records appended so far on the caller's
// goroutine, and reports whether it did: Durable() then covers every
// record appended before the call. It is for a goroutine that has
// nothing else to do but wait for its records, such as a connection
// whose publisher waits for a confirm: it writes them itself instead of
// waking the syncer and being woken again when the fsync is over, which
// at one confirm in flight costs more CPU than the fsync.
//
// It is a leader/follower group commit. When a round is already under
// way (the syncer's, or another SyncNow's), the caller does not wait: it
// hands what it appended to the syncer (Wake), whose next round, as soon
// as the one under way is over, covers it and everything else appended
// meanwhile, and returns false. It does the same when the log is not in
// its plain state (a snapshot taking over the log, a failed write being
// retried, the store closing), which the syncer alone handles. Any
// goroutine may call it.
//
// A round SyncNow writes does not signal Notify (its caller knows); a
// failure does, as Err changes, and leaves the records to the syncer,
// which retries them. Into the preallocated zeros its write and sync are
// one system call, raw while the disk is fast (rawSyncMax): at one
// confirm in flight the runtime then wakes no other thread for it.
func (s *Store) SyncNow() bool {
	if !s.writing.TryLock() {
		s.Wake()
		return false
	}
	s.mu.Lock()
	plain := s.pending == nil && (s.active == nil || s.active.segmentMade) &&
		len(s.held) == 0 && s.logErr == nil && !s.closing && !s.exited
	if plain {
		s.takeLocked()
	}
	s.mu.Unlock()
	if !plain {
		s.writing.Unlock()
		s.Wake()
		return false
	}
	if len(s.held) == 0 {
		s.writing.Unlock()
		return true // nothing buffered: all of it is durable already
	}
	raw := s.leadFast && runtime.GOMAXPROCS(0) >= 2
	start := time.Now()
	err := s.writeHeld(true, raw)
	s.leadFast = time.Since(start) < rawSyncMax
	s.writing.Unlock()
	if err != nil {
		s.setErr(&s.logErr, err)
		s.kick() // the syncer retries what is held
		return false
	}
	return true
}

// rawSyncMax is how long a leading sync (SyncNow) may have taken for the
// next to go in as a raw system call (writeDatasync): one that keeps its
// thread's P while the disk works, so that sysmon is not woken for it.
// While the P is held, a stop-the-world (the GC's) waits for the disk,
// and goroutines queued on that P wait for another to steal them; so the
// next sync is raw only while the disk answers within this, and only
// with a second P to run everything else meanwhile. A sync that took
// longer sends the next one through the runtime, which hands the P on
// if the disk is slow, and measures again. The TCP transport's reads
// that wait keep their P the same way, for at most 200 µs and with one
// P always left (server/tcp/readwait_linux.go).
const rawSyncMax = time.Millisecond
