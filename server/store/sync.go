package store

import (
	"errors"
	"time"
)

// run is the syncer: it takes everything appended since its last round,
// writes it with one write and makes it durable with one fsync. Records
// appended while an fsync is under way wait for the next round and share
// its fsync, so the number of fsyncs per second is bounded by the disk,
// not by the publish rate: group commit.
//
// A snapshot is written by a goroutine of its own (writeSnapshotFile)
// while the syncer carries on with the new log file, so a large snapshot
// does not hold confirms back.
func (s *Store) run() {
	defer func() {
		s.mu.Lock()
		s.exited = true
		s.cond.Broadcast()
		s.mu.Unlock()
		close(s.done)
	}()
	var logRetry <-chan time.Time // set while waiting to retry
	tick := time.NewTicker(s.opts.DiskCheckInterval)
	defer tick.Stop()
	for {
		s.writing.Lock()
		s.mu.Lock()
		s.takeLocked()
		closing := s.closing
		s.mu.Unlock()
		if closing {
			logRetry = nil // one last attempt
		}
		job := s.active
		if logRetry == nil && (len(s.held) > 0 || (job != nil && !job.segmentMade)) {
			err := s.round()
			s.writing.Unlock()
			if errors.Is(err, errCrashed) {
				return
			}
			s.setErr(&s.logErr, err)
			if err != nil {
				s.checkFree() // a full disk is also low on disk
				if closing {
					s.giveUp(err)
					return
				}
				logRetry = time.After(s.opts.RetryInterval)
			}
			continue
		}
		if job != nil && job.segmentMade && job.done == nil {
			s.startSnapshotFile(job)
			s.writing.Unlock()
			continue
		}
		heldEmpty := len(s.held) == 0
		s.writing.Unlock()
		var snapDone <-chan error
		if job != nil {
			snapDone = job.done
		}
		if closing && heldEmpty && snapDone == nil {
			return
		}
		var stop <-chan struct{}
		if !closing {
			stop = s.stop
		}
		select {
		case <-s.wake:
		case <-stop:
		case <-logRetry:
			logRetry = nil
		case <-tick.C:
			s.checkFree()
			s.mu.Lock()
			retry := s.snapErr != nil && s.pending == nil && s.active == nil && s.snapshotDueLocked()
			s.mu.Unlock()
			if retry {
				s.signal() // an idle owner learns a snapshot is due again
			}
		case err := <-snapDone:
			job.done = nil
			if errors.Is(err, errCrashed) {
				return
			}
			if err == nil {
				s.writing.Lock()
				s.finishSnapshot(job)
				s.writing.Unlock()
			} else {
				// The log holds everything; the snapshot only saves
				// replay time and space, and is asked for again later.
				s.snapshotFailed(job, err)
			}
		}
	}
}

// giveUp records why Close could not make the buffered records durable.
func (s *Store) giveUp(err error) {
	s.mu.Lock()
	s.closeErr = err
	s.mu.Unlock()
}

// takeLocked moves the owner's buffered records to the syncer. Between a
// WriteSnapshot and the new log file that follows it, only the records
// appended before the snapshot are taken: the others go in the new file.
func (s *Store) takeLocked() {
	if s.active == nil && s.pending != nil {
		s.active, s.pending = s.pending, nil
		s.held = append(s.held, s.active.tail...)
		s.heldLast = s.active.pos
		s.active.tail = nil
	}
	if (s.active != nil && !s.active.segmentMade) || len(s.buf) == 0 {
		return
	}
	s.unwoken = false // they are the syncer's now, or SyncNow's
	if len(s.held) == 0 {
		// Swap rather than copy: the owner reuses the syncer's old buffer.
		s.held, s.buf = s.buf, s.held[:0]
	} else {
		s.held = append(s.held, s.buf...)
		s.buf = s.buf[:0]
	}
	s.heldLast = s.bufLast
}

// round makes the held records durable, then, if a snapshot is starting,
// the new log file that follows it. A failure leaves everything in place
// to be tried again.
func (s *Store) round() error {
	if len(s.held) > 0 {
		if err := s.writeHeld(true); err != nil {
			return err
		}
	}
	if job := s.active; job != nil && !job.segmentMade {
		if s.crashed("records") {
			return errCrashed
		}
		if err := s.startSegmentAfter(job); err != nil {
			return err
		}
		if s.crashed("segment") {
			return errCrashed
		}
	}
	return nil
}

// writeHeld appends the held records to the log file and fsyncs it, and
// tells Notify's reader (signal), unless the caller learns of it from
// its return (SyncNow).
//
// After a failed write or fsync, the bytes past the last durable record
// are not trusted: Linux may drop dirty pages whose writeback failed and
// then report the next fsync as a success. So the file is cut back to the
// durable end and the records are written again from our own buffer,
// which is why held is kept until its fsync succeeds.
func (s *Store) writeHeld(signal bool) error {
	seg := &s.seg
	if seg.dirty {
		if err := seg.f.Truncate(seg.off); err != nil {
			return err
		}
		seg.dirty = false
		seg.alloc = seg.off
	}
	end := seg.off + int64(len(s.held))
	if err := s.writeSync(end); err != nil {
		seg.dirty = true
		return err
	}
	seg.off = end
	if end > seg.alloc {
		s.wrote(end - seg.alloc) // the zeros were counted as they were written
		seg.alloc = end
	}
	s.held = s.held[:0]
	s.mu.Lock()
	s.durable = s.heldLast
	s.cond.Broadcast()
	s.mu.Unlock()
	if signal {
		s.signal()
	}
	return nil
}

// writeSync writes the held records at the log's end and makes them
// durable. Into zeros an earlier round made durable, only the range
// written is not on disk, and one call does both (writeDatasync). A round
// that preallocates writes the records and fdatasyncs the whole file, so
// that the new zeros are on disk before records are written into them;
// past the zeros, too, the size changes, which fdatasync makes durable as
// well.
func (s *Store) writeSync(end int64) error {
	seg := &s.seg
	if end <= seg.alloc {
		done, err := writeDatasync(seg.f, s.held, seg.off)
		if done {
			s.fsyncs.Add(1)
			return err
		}
	}
	s.grow(end)
	if _, err := seg.f.WriteAt(s.held, seg.off); err != nil {
		return err
	}
	return s.syncData(seg.f)
}

// setErr records the outcome of a log or snapshot write in *slot; the
// owner is told when the store enters or leaves the error state.
func (s *Store) setErr(slot *error, err error) {
	s.mu.Lock()
	was := s.errLocked() != nil
	*slot = err
	if err != nil {
		s.stats.lastErr, s.stats.lastErrTime = err.Error(), time.Now()
	}
	changed := was != (s.errLocked() != nil)
	s.mu.Unlock()
	if changed {
		s.signal()
	}
}

// errCrashed ends the syncer at a test's simulated power cut.
var errCrashed = errors.New("store: simulated crash")

func (s *Store) crashed(step string) bool { return s.opts.crashAt == step }
