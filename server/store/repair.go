package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrCannotRepair is Repair's refusal when what is damaged is the only
// copy of state that nothing else rebuilds (Report.CannotRepair says
// which); the directory is left as it was.
var ErrCannotRepair = errors.New("store: the damage cannot be repaired")

// Check reads the data directory dir without changing anything (it does
// not even create the LOCK file) and reports what Open would load, the
// torn tail it would cut and the damage that makes it refuse. It fails if
// a running broker holds the directory: its files change under a check.
func Check(dir string, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	lock, err := lockExisting(dir)
	if err != nil {
		return nil, err
	}
	if lock != nil {
		defer lock.Close()
	}
	l, err := inspect(dir, opts.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	return l.report(), nil
}

// Repair mends the damage Check reports, keeping every intact record
// before and after it, and returns the report of what it set aside.
//
// A damaged log file is rewritten with its intact records in their
// places and, where records were lost, one placeholder per lost position
// (a record with the length lostMark and no payload, which Replay skips).
// Keeping the positions rather than renumbering is what lets each file
// be rewritten on its own with one atomic rename: a renumbered file would
// disagree with the files after it until they were renamed too, and a
// crash in between could replay records twice. The broker replays the
// intact records in their order, as if the lost commands had never been
// sent; what that loses (a publish, a declare) is what Check reports.
//
// The damaged bytes go to <file>.<offset>.damaged beside it; a damaged
// header is rewritten from the file's name, whose position Open checks.
// A damaged snapshot is renamed <file>.damaged when an older snapshot and
// the log after it still hold the same state; otherwise Repair refuses
// (ErrCannotRepair), as it does for a missing log file.
//
// Every file is written under a temporary name, fsynced and renamed over
// the damaged one, so a crash during Repair leaves each file either as it
// was (Open still refuses; run Repair again) or mended.
func Repair(dir string, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	l, err := inspect(dir, opts.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	r := l.report()
	if r.CannotRepair != "" {
		return r, ErrCannotRepair
	}
	mends := l.mends
	if l.tornMend != nil {
		mends = append(mends, *l.tornMend)
	}
	for _, md := range mends {
		written, err := md.write()
		r.Written = append(r.Written, written...)
		if err != nil {
			return r, err
		}
	}
	moves := l.snaps
	if l.tornFile != "" {
		moves = append(moves, l.tornFile)
	}
	for _, path := range moves {
		if err := os.Rename(path, path+".damaged"); err != nil {
			return r, err
		}
		r.Written = append(r.Written, filepath.Base(path)+".damaged")
	}
	return r, syncDir(dir)
}

// write sets md's damaged pieces aside and rewrites the file without them.
func (md mend) write() ([]string, error) {
	var written []string
	aside := func(off int64, b []byte) error {
		name := fmt.Sprintf("%s.%d.damaged", filepath.Base(md.path), off)
		written = append(written, name)
		return writeSynced(join(filepath.Dir(md.path), name), b)
	}
	if !md.m.headerOK {
		if err := aside(0, md.b[:min(len(md.b), logHeaderBytes)]); err != nil {
			return written, err
		}
	}
	out := logHeader(md.m.first)
	for i, p := range md.m.pieces {
		switch {
		case p.lost:
			out = appendPlaceholder(out)
		case p.intact:
			out = append(out, md.b[p.off:p.off+p.n]...)
		default:
			if err := aside(p.off, md.b[p.off:p.off+p.n]); err != nil {
				return written, err
			}
			for range md.lost[i] {
				out = appendPlaceholder(out)
			}
		}
	}
	written = append(written, filepath.Base(md.path))
	return written, writeSynced(md.path, out)
}

// writeSynced writes b to path atomically: a temporary file, fsynced, then
// renamed over path, and the directory fsynced.
func writeSynced(path string, b []byte) error {
	tmp := path + ".repair.tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}
