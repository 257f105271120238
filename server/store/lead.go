package store

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
// which retries them.
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
	err := s.writeHeld(false)
	s.writing.Unlock()
	if err != nil {
		s.setErr(&s.logErr, err)
		s.kick() // the syncer retries what is held
		return false
	}
	return true
}
