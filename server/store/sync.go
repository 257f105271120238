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
func (s *Store) run() {
	defer func() {
		s.mu.Lock()
		s.exited = true
		s.cond.Broadcast()
		s.mu.Unlock()
		close(s.done)
	}()
	for {
		s.mu.Lock()
		s.takeLocked()
		closing := s.closing
		s.mu.Unlock()
		if len(s.held) == 0 && s.active == nil {
			if closing {
				return
			}
			<-s.wake
			continue
		}
		err := s.round()
		if errors.Is(err, errCrashed) {
			return
		}
		s.setErr(err)
		if err == nil {
			continue
		}
		if closing {
			s.mu.Lock()
			s.closeErr = err
			s.mu.Unlock()
			return
		}
		select {
		case <-time.After(s.opts.RetryInterval):
		case <-s.stop:
		}
	}
}

// takeLocked moves the owner's buffered records to the syncer. While a
// snapshot is pending or being written, only the records appended before
// it are taken: those after it belong in the next log file.
func (s *Store) takeLocked() {
	if s.active == nil && s.pending != nil {
		s.active, s.pending = s.pending, nil
		s.held = append(s.held, s.active.tail...)
		s.heldLast = s.active.pos
		s.active.tail = nil
	}
	if s.active != nil || len(s.buf) == 0 {
		return
	}
	if len(s.held) == 0 {
		// Swap rather than copy: the owner reuses the syncer's old buffer.
		s.held, s.buf = s.buf, s.held[:0]
	} else {
		s.held = append(s.held, s.buf...)
		s.buf = s.buf[:0]
	}
	s.heldLast = s.bufLast
}

// round makes the held records durable, then carries on with a pending
// snapshot. A failure leaves everything in place to be tried again.
func (s *Store) round() error {
	if len(s.held) > 0 {
		if err := s.writeHeld(); err != nil {
			return err
		}
	}
	if s.active != nil {
		if s.crashed("records") {
			return errCrashed
		}
		return s.writeSnapshot()
	}
	return nil
}

// writeHeld appends the held records to the log file and fsyncs it.
//
// After a failed write or fsync, the bytes past the last durable record
// are not trusted: Linux may drop dirty pages whose writeback failed and
// then report the next fsync as a success. So the file is cut back to the
// durable end and the records are written again from our own buffer,
// which is why held is kept until its fsync succeeds.
func (s *Store) writeHeld() error {
	seg := &s.seg
	if seg.dirty {
		if err := seg.f.Truncate(seg.off); err != nil {
			return err
		}
		seg.dirty = false
	}
	if _, err := seg.f.WriteAt(s.held, seg.off); err != nil {
		seg.dirty = true
		return err
	}
	if err := s.sync(seg.f); err != nil {
		seg.dirty = true
		return err
	}
	seg.off += int64(len(s.held))
	s.held = s.held[:0]
	s.mu.Lock()
	s.durable = s.heldLast
	s.cond.Broadcast()
	s.mu.Unlock()
	s.signal()
	return nil
}

// setErr records the outcome of a round; the owner is told when the
// store enters or leaves the error state.
func (s *Store) setErr(err error) {
	s.mu.Lock()
	changed := (s.err == nil) != (err == nil)
	s.err = err
	if err != nil {
		s.stats.lastErr, s.stats.lastErrTime = err.Error(), time.Now()
	}
	s.mu.Unlock()
	if changed {
		s.signal()
	}
}

// errCrashed ends the syncer at a test's simulated power cut.
var errCrashed = errors.New("store: simulated crash")

func (s *Store) crashed(step string) bool { return s.opts.crashAt == step }
