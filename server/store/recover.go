package store

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
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
	// DroppedBytes counts bytes recovery cut off or set aside because they
	// were torn or failed a checksum: an unsynced tail after a crash.
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

// Replay calls fn with each log record after the snapshot, in order,
// reading the files again rather than holding the whole log in memory.
// The slice passed to fn is reused: copy what must outlive the call.
// An error from fn stops the replay and is returned.
func (r *Recovered) Replay(fn func(Pos, []byte) error) error {
	next := r.SnapshotPos + 1
	for _, sg := range r.segs {
		_, err := scanSegment(sg.path, r.maxRecordBytes, func(p Pos, rec []byte) error {
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

// recoverDir reads dir and repairs what a crash can leave behind: a
// half-written snapshot (*.tmp, deleted), a torn record at the end of the
// log (truncated), a log file whose header never reached the disk
// (removed). Any other damage — a checksum failing in the middle of the
// log — is handled the same way, keeping every complete record before it:
// the damaged file is truncated there and any later log files are renamed
// *.dropped, because records after a missing one cannot be applied.
// A gap (records after the snapshot whose predecessor is missing) is an
// error: starting would silently lose data.
func recoverDir(dir string, maxRecordBytes int) (recovery, error) {
	rec := &Recovered{maxRecordBytes: maxRecordBytes}
	out := recovery{rec: rec}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out, err
	}
	var snaps, segs []Pos
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") {
			if err := os.Remove(join(dir, name)); err != nil {
				return out, err
			}
			rec.Notes = append(rec.Notes, "removed unfinished snapshot "+name)
		} else if p, ok := parseName(name, "snap-", ".snap"); ok {
			snaps = append(snaps, p)
		} else if p, ok := parseName(name, "log-", ".wlog"); ok {
			segs = append(segs, p)
		}
	}
	slices.Sort(snaps)
	slices.Sort(segs)
	if err := pickSnapshot(dir, snaps, rec, &out); err != nil {
		return out, err
	}
	if err := chainSegments(dir, segs, rec, &out); err != nil {
		return out, err
	}
	return out, nil
}

// pickSnapshot loads the newest snapshot that checks out; older ones are
// obsolete, and corrupt newer ones are set aside.
func pickSnapshot(dir string, snaps []Pos, rec *Recovered, out *recovery) error {
	for i := len(snaps) - 1; i >= 0; i-- {
		path := join(dir, snapName(snaps[i]))
		if rec.Snapshot != nil {
			out.obsolete = append(out.obsolete, path)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pos, data, err := parseSnapshot(b)
		if err == nil && pos != snaps[i] {
			err = errCorrupt
		}
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				return fmt.Errorf("%s: %w", path, err)
			}
			rec.DroppedBytes += int64(len(b))
			rec.Notes = append(rec.Notes, "snapshot "+snapName(snaps[i])+" fails its checksum, set aside")
			if err := os.Rename(path, path+".dropped"); err != nil {
				return err
			}
			continue
		}
		rec.Snapshot, rec.SnapshotPos, rec.Last = data, pos, pos
		if info, err := os.Stat(path); err == nil {
			rec.snapTime = info.ModTime()
		}
	}
	return nil
}

// chainSegments scans the log files in order and keeps the unbroken chain
// of records that follows the snapshot, repairing the first damage found.
func chainSegments(dir string, firsts []Pos, rec *Recovered, out *recovery) error {
	damaged := false
	for _, first := range firsts {
		path := join(dir, segmentName(first))
		if damaged {
			if err := setAside(path, rec); err != nil {
				return err
			}
			continue
		}
		sg, err := scanSegment(path, rec.maxRecordBytes, nil)
		if err != nil {
			return err
		}
		if sg.bad || sg.first != first {
			// A header that never reached the disk: the crash came while
			// the file was being created, so it holds no records.
			damaged = true
			if err := setAside(path, rec); err != nil {
				return err
			}
			continue
		}
		n := len(rec.segs)
		switch {
		case n == 0 && sg.first <= rec.SnapshotPos && sg.last <= rec.SnapshotPos:
			out.obsolete = append(out.obsolete, path)
			continue
		case n == 0 && sg.first > rec.SnapshotPos+1:
			return fmt.Errorf("store: %s starts at record %d but the snapshot ends at %d: records are missing", path, sg.first, rec.SnapshotPos)
		case n > 0 && sg.first != rec.segs[n-1].last+1:
			return fmt.Errorf("store: %s starts at record %d, expected %d: a log file is missing", path, sg.first, rec.segs[n-1].last+1)
		}
		if sg.end < sg.size {
			if err := os.Truncate(path, sg.end); err != nil {
				return err
			}
			rec.DroppedBytes += sg.size - sg.end
			rec.Notes = append(rec.Notes, fmt.Sprintf("%s: cut %d bytes of torn or corrupt data after record %d", segmentName(first), sg.size-sg.end, sg.last))
			sg.size = sg.end
			damaged = true
		}
		rec.segs = append(rec.segs, sg)
		rec.Last = max(rec.Last, sg.last)
	}
	if n := len(rec.segs); n > 0 {
		out.tail = &rec.segs[n-1]
	}
	return nil
}

// setAside renames a log file that cannot be replayed, keeping it for
// inspection rather than deleting it; an empty or header-only file is
// simply removed.
func setAside(path string, rec *Recovered) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	rec.DroppedBytes += info.Size()
	if info.Size() <= logHeaderBytes {
		rec.Notes = append(rec.Notes, "removed log file with a torn header "+path)
		return os.Remove(path)
	}
	rec.Notes = append(rec.Notes, fmt.Sprintf("set aside %s (%d bytes) after damage before it", path, info.Size()))
	return os.Rename(path, path+".dropped")
}
