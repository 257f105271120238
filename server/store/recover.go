package store

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Recovered is what Open found on disk: the newest valid snapshot and the
// log records after it. Applying Snapshot then every record of Replay, in
// order, rebuilds the state as of record Last.
type Recovered struct {
	// Snapshot is the newest snapshot whose checksum holds; nil if none.
	Snapshot []byte
	// SnapshotPos is the last record the snapshot includes (0 if none).
	SnapshotPos Pos
	// Last is the last record recovered; the next Append returns Last+1.
	Last Pos
	// DroppedBytes counts the bytes of a torn tail recovery cut off: what
	// a crash in the middle of a write leaves (damage elsewhere is refused).
	DroppedBytes int64
	// Notes says, one line each, what recovery repaired, for the log.
	Notes []string

	segs           []segment
	maxRecordBytes int
	snapTime       time.Time
}

// errStopReplay ends a scan at the last recovered record, so that records
// appended since Open are not replayed a second time.
var errStopReplay = errors.New("store: replay done")

// Replay calls fn with each log record after the snapshot, in order
// (skipping the placeholders Repair leaves for records lost to damage),
// reading the files again rather than holding the whole log in memory.
// The slice passed to fn is reused: copy what must outlive the call.
// An error from fn stops the replay and is returned.
func (r *Recovered) Replay(fn func(Pos, []byte) error) error {
	next := r.SnapshotPos + 1
	for _, sg := range r.segs {
		_, err := scanSegment(sg.path, r.maxRecordBytes, func(p Pos, rec []byte, lost bool) error {
			if p > r.Last {
				return errStopReplay
			}
			if p < next {
				return nil
			}
			if p != next {
				return fmt.Errorf("store: replay expected record %d, found %d", next, p)
			}
			next++
			if lost {
				return nil // a placeholder Repair wrote: nothing to apply
			}
			return fn(p, rec)
		})
		if errors.Is(err, errStopReplay) {
			break
		}
		if err != nil {
			return err
		}
	}
	if next != r.Last+1 {
		return fmt.Errorf("store: replay ended at record %d, recovery found %d", next-1, r.Last)
	}
	return nil
}

// recovery is recoverDir's result: the Recovered for the caller, the
// segment new records go to (nil: make one at Last+1), and the files the
// snapshot made obsolete, to delete once the store is open.
type recovery struct {
	rec      *Recovered
	tail     *segment
	obsolete []string
}

// recoverDir reads dir and, if nothing in it is damaged, tidies what a
// crash can leave behind: a half-written snapshot (*.tmp, deleted), a
// torn record at the end of the log (cut), a last log file whose header
// never reached the disk (removed). Any other damage — a checksum failing
// with intact records after it, a damaged file header or snapshot, a
// missing log file — is a *DamagedError, and then nothing in dir has been
// changed: Check says what a repair would lose, Repair mends it.
func recoverDir(dir string, maxRecordBytes int) (recovery, error) {
	l, err := inspect(dir, maxRecordBytes)
	if err != nil {
		return recovery{}, err
	}
	if len(l.damage) > 0 {
		return recovery{}, &DamagedError{Report: l.report()}
	}
	rec := l.rec
	out := recovery{rec: rec, obsolete: l.obsolete}
	for _, name := range l.tmps {
		if err := os.Remove(join(dir, name)); err != nil {
			return out, err
		}
		rec.Notes = append(rec.Notes, "removed unfinished file "+name)
	}
	if l.tornFile != "" {
		if info, err := os.Stat(l.tornFile); err == nil {
			rec.DroppedBytes += info.Size()
		}
		if err := os.Remove(l.tornFile); err != nil {
			return out, err
		}
		rec.Notes = append(rec.Notes, "removed log file with a torn header "+l.tornFile)
	}
	if t := l.torn; t != nil {
		sg := &rec.segs[len(rec.segs)-1]
		if err := os.Truncate(sg.path, t.Offset); err != nil {
			return out, err
		}
		rec.DroppedBytes += t.Bytes
		rec.Notes = append(rec.Notes, fmt.Sprintf("%s: cut %d bytes of a torn tail (a crash during a write) after record %d 截掉了第 %[3]d 条记录之后残缺的末尾（%[2]d 字节，写入时崩溃所致）", t.File, t.Bytes, t.Pos-1))
		sg.size, sg.end = t.Offset, t.Offset
	}
	if n := len(rec.segs); n > 0 {
		out.tail = &rec.segs[n-1]
	}
	return out, nil
}
