package store

import "time"

// statsState is what Stats reports beyond counters, kept under Store.mu.
type statsState struct {
	snapPos     Pos
	snapBytes   int64
	snapTime    time.Time
	lastErr     string
	lastErrTime time.Time
}

// Stats is the store as management shows it (/api/overview, ctl status).
type Stats struct {
	Dir       string
	DiskBytes int64 // every file in the directory
	// SnapshotPos is the last record in the current snapshot; 0 if none.
	SnapshotPos   Pos
	SnapshotBytes int64
	SnapshotTime  time.Time // zero if none
	// LogRecords and LogBytes measure the log since the snapshot, which is
	// what start-up would replay.
	LogRecords uint64
	LogBytes   int64
	Appended   Pos // last record appended
	Durable    Pos // last record on disk
	Fsyncs     uint64
	// Err is the error the store is stuck on now; "" when writes succeed.
	Err string
	// SnapshotError is why the last snapshot was not written (no room, a
	// write error); "" once one is. It blocks no one.
	SnapshotError string
	// DiskFree is the free space last measured on the directory's file
	// system (-1: cannot be measured here); DiskFreeAlarm is true while it
	// is below DiskFreeLimit (RabbitMQ's disk_free, disk_free_limit and
	// disk_free_alarm).
	DiskFree      int64
	DiskFreeLimit int64
	DiskFreeAlarm bool
	// LastError is the most recent error, kept after it clears, with its time.
	LastError     string
	LastErrorTime time.Time
}

// Stats reads the directory size from the file system, so it costs a
// directory listing: fine for a management request, not for every command.
func (s *Store) Stats() Stats {
	disk := dirBytes(s.dir)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{
		Dir: s.dir, DiskBytes: disk,
		SnapshotPos: s.stats.snapPos, SnapshotBytes: s.stats.snapBytes, SnapshotTime: s.stats.snapTime,
		LogBytes: s.logBytes.Load(), Appended: s.next - 1, Durable: s.durable,
		Fsyncs: s.fsyncs.Load(), LastError: s.stats.lastErr, LastErrorTime: s.stats.lastErrTime,
	}
	if last := s.next - 1; last > st.SnapshotPos {
		st.LogRecords = uint64(last - st.SnapshotPos)
	}
	if err := s.errLocked(); err != nil {
		st.Err = err.Error()
	}
	if s.snapErr != nil {
		st.SnapshotError = s.snapErr.Error()
	}
	st.DiskFree, st.DiskFreeLimit, st.DiskFreeAlarm = s.free, s.opts.DiskFreeLimit, s.lowLocked()
	return st
}
