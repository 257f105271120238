package store

import (
	"errors"
	"os"
	"time"
)

// snapJob is a snapshot on its way to disk.
type snapJob struct {
	data []byte
	pos  Pos    // the last record the snapshot includes
	tail []byte // records appended before it, not yet taken by the syncer
	// stage is how far writing got, so that a retry after a failure
	// resumes there: 0 nothing, 1 snapshot durable, 2 new log file made.
	stage int
}

// WriteSnapshot hands the owner's saved state to the syncer, covering
// every record appended before the call. It returns at once; the syncer
// writes the snapshot after the records before it are durable, then
// starts a new log file for the records appended after it, then deletes
// the old log files and snapshots. The store keeps data until it is
// written, so the caller must not modify it.
//
// Each step is durable before the next begins (snapshot: temporary file,
// fsync, rename, fsync of the directory; new log file: header, fsync,
// fsync of the directory), so a crash anywhere leaves either the old
// snapshot with its whole log or the new snapshot, possibly beside log
// files it makes obsolete, which Open deletes.
func (s *Store) WriteSnapshot(data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return ErrClosed
	}
	if s.pending != nil || s.active != nil {
		return ErrSnapshotPending
	}
	s.pending = &snapJob{data: data, pos: s.next - 1, tail: s.buf}
	s.buf = nil
	s.logBytes.Store(0)
	s.kick()
	return nil
}

// writeSnapshot runs the active job's remaining steps.
func (s *Store) writeSnapshot() error {
	job := s.active
	if job.stage == 0 {
		if err := s.writeSnapshotFile(job); err != nil {
			return err
		}
		job.stage = 1
		if s.crashed("snapshot") {
			return errCrashed
		}
	}
	if job.stage == 1 && s.seg.first == job.pos+1 {
		// No record since the current log file began: it is already the
		// file that follows the snapshot.
		job.stage = 2
	}
	if job.stage == 1 {
		old := s.seg
		if err := s.createSegment(job.pos + 1); err != nil {
			return err
		}
		old.f.Close()
		job.stage = 2
		if s.crashed("segment") {
			return errCrashed
		}
	}
	s.removeObsolete(job.pos)
	s.mu.Lock()
	s.active = nil
	s.stats.snapPos, s.stats.snapBytes, s.stats.snapTime = job.pos, int64(len(job.data)), time.Now()
	s.mu.Unlock()
	// Records appended meanwhile wait in buf for the new log file.
	s.kick()
	return nil
}

// writeSnapshotFile writes job's data to snap-<pos>.snap atomically: the
// name only ever refers to a complete, fsynced file.
func (s *Store) writeSnapshotFile(job *snapJob) error {
	final := join(s.dir, snapName(job.pos))
	tmp := final + ".tmp"
	f, err := s.opts.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(snapHeader(job.pos, job.data), 0)
	if err == nil {
		_, err = f.WriteAt(job.data, snapHeaderBytes)
	}
	if err == nil {
		err = s.sync(f)
	}
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
		return syncDir(s.dir)
	}
	// Leave no half-written file taking the space a retry needs.
	os.Remove(tmp)
	return err
}

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
