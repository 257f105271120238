package store

import (
	"errors"
	"os"
	"time"
)

// snapJob is a snapshot on its way to disk.
type snapJob struct {
	// finish makes the snapshot's pieces, once, as writing it starts; data
	// are the pieces one after the other, and size is their length.
	finish func() [][]byte
	data   [][]byte
	size   int64
	pos    Pos    // the last record the snapshot includes
	tail   []byte // records appended before it, not yet taken by the syncer
	// logBytes is the log the snapshot replaces, counted back into
	// NeedsSnapshot's measure if it fails.
	logBytes int64
	// segmentMade is set once the log file for the records after pos
	// exists; done is set while the snapshot file is being written.
	segmentMade bool
	done        chan error
}

// WriteSnapshot hands the owner's saved state to the store, covering
// every record appended before the call, and returns at once. The syncer
// makes the records before it durable, starts a new log file for the
// records after it, and then, while records keep flowing into that file,
// writes the snapshot; once the snapshot is durable, the old log files
// and snapshots are deleted. The state is the pieces of data one after
// the other. The store keeps data until it is written, so the caller must
// not modify it.
//
// Each step is durable before the next begins (new log file: header,
// fsync, fsync of the directory; snapshot: temporary file, fsync, rename,
// fsync of the directory), so a crash anywhere leaves either the old
// snapshot with an unbroken log after it or the new snapshot, possibly
// beside files it makes obsolete, which Open deletes.
func (s *Store) WriteSnapshot(data ...[]byte) error {
	return s.WriteSnapshotFrom(func() [][]byte { return data })
}

// WriteSnapshotFrom is WriteSnapshot for a state whose bytes are made
// as the snapshot is written: finish runs once, on the goroutine that
// writes the file, and returns the pieces. It is for a broker's
// engine.Broker.SaveShared, whose finish encodes the queues' messages
// while the broker goes on. The state is still the one at the call, and
// covers every record appended before it.
func (s *Store) WriteSnapshotFrom(finish func() [][]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return ErrClosed
	}
	if s.pending != nil || s.active != nil {
		return ErrSnapshotPending
	}
	s.pending = &snapJob{finish: finish, pos: s.next - 1, tail: s.buf, logBytes: s.logBytes.Swap(0)}
	s.buf, s.unwoken = nil, false
	s.kick()
	return nil
}

// startSegmentAfter starts the log file that follows job's snapshot.
func (s *Store) startSegmentAfter(job *snapJob) error {
	if s.seg.first != job.pos+1 {
		// Otherwise no record came since the current file began: it is
		// already the file that follows the snapshot.
		// The old file's zeros go first, durably, so that only the
		// last file ever ends in zeros (a best effort: recovery takes
		// zeros there as the end too while the next file follows on).
		if s.seg.alloc > s.seg.off {
			s.seg.trimPrealloc()
			s.sync(s.seg.f)
		}
		old := s.seg
		if err := s.createSegment(job.pos + 1); err != nil {
			return err
		}
		old.f.Close()
	}
	job.segmentMade = true
	s.kick() // records appended since the snapshot can go now
	return nil
}

// startSnapshotFile writes job's snapshot on a goroutine of its own; the
// syncer receives the outcome on job.done.
func (s *Store) startSnapshotFile(job *snapJob) {
	job.done = make(chan error, 1)
	go func() {
		inBackground() // and end locked to the thread (inBackground)
		job.done <- s.writeSnapshotFile(job)
	}()
}

// finishSnapshot deletes what the durable snapshot replaced.
func (s *Store) finishSnapshot(job *snapJob) {
	s.removeObsolete(job.pos)
	s.mu.Lock()
	s.active = nil
	s.snapErr, s.snapFailures, s.snapNeed = nil, 0, 0
	s.stats.snapPos, s.stats.snapBytes, s.stats.snapTime = job.pos, job.size, time.Now()
	s.mu.Unlock()
	s.checkFree() // the replaced files' space is back
	s.signal()
}

// writeSnapshotFile writes job's data to snap-<pos>.snap atomically: the
// name only ever refers to a complete, fsynced file.
func (s *Store) writeSnapshotFile(job *snapJob) error {
	job.data, job.finish = job.finish(), nil
	job.size = piecesLen(job.data)
	s.mu.Lock()
	replaces, first := s.stats.snapBytes+job.logBytes, s.stats.snapTime.IsZero()
	s.mu.Unlock()
	// A new directory's first snapshot records the configuration the log
	// is replayed under; it is tiny, and always tried.
	if !first {
		if err := s.snapshotRoom(snapHeaderBytes+job.size, replaces); err != nil {
			return err
		}
	}
	final := join(s.dir, snapName(job.pos))
	tmp := final + ".tmp"
	f, err := s.opts.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(snapHeader(job.pos, job.data...), 0)
	if err == nil {
		err = writePieces(f, job.data, snapHeaderBytes)
	}
	if err == nil {
		err = s.sync(f)
	}
	s.wrote(snapHeaderBytes + job.size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && s.crashed("snapshot-tmp") {
		return errCrashed
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err == nil {
		if err = syncDir(s.dir); err == nil && s.crashed("snapshot") {
			return errCrashed
		}
		return err
	}
	// Leave no half-written file taking the space a retry needs.
	os.Remove(tmp)
	return err
}

// writePieces writes pieces one after the other at off, gathered into
// writes of up to pieceWrite bytes: a snapshot that shares the message
// bodies (engine.Broker.SaveShared) is a piece per body.
func writePieces(f File, pieces [][]byte, off int64) error {
	var buf []byte
	flush := func() error {
		_, err := f.WriteAt(buf, off)
		off += int64(len(buf))
		buf = buf[:0]
		return err
	}
	for _, p := range pieces {
		if len(buf) > 0 && len(buf)+len(p) > pieceWrite {
			if err := flush(); err != nil {
				return err
			}
		}
		if len(p) >= pieceWrite {
			if _, err := f.WriteAt(p, off); err != nil {
				return err
			}
			off += int64(len(p))
			continue
		}
		if buf == nil {
			buf = make([]byte, 0, pieceWrite)
		}
		buf = append(buf, p...)
	}
	if len(buf) > 0 {
		return flush()
	}
	return nil
}

// pieceWrite is the most writePieces gathers into one write.
const pieceWrite = 1 << 20

// removeObsolete deletes the log files and snapshots the snapshot at pos
// has replaced. A failure here loses nothing (Open deletes them later),
// so it is only reported in Stats.
func (s *Store) removeObsolete(pos Pos) {
	var errs []error
	for _, path := range s.segs {
		if path != s.seg.path {
			errs = append(errs, os.Remove(path))
		}
	}
	s.segs = []string{s.seg.path}
	entries, err := os.ReadDir(s.dir)
	errs = append(errs, err)
	for _, e := range entries {
		if p, ok := parseName(e.Name(), "snap-", ".snap"); ok && p != pos {
			errs = append(errs, os.Remove(join(s.dir, e.Name())))
		}
	}
	errs = append(errs, syncDir(s.dir))
	if err := errors.Join(errs...); err != nil {
		s.mu.Lock()
		s.stats.lastErr, s.stats.lastErrTime = err.Error(), time.Now()
		s.mu.Unlock()
	}
}
