package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func openT(t testing.TB, dir string, opts Options) (*Store, *Recovered) {
	t.Helper()
	s, rec, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s, rec
}

// records replays rec into strings. Positions rise by one per record,
// except over the placeholders a repair leaves for lost records.
func records(t testing.TB, rec *Recovered) []string {
	t.Helper()
	var out []string
	prev := rec.SnapshotPos
	if err := rec.Replay(func(p Pos, b []byte) error {
		if p <= prev {
			return fmt.Errorf("record at %d after %d", p, prev)
		}
		prev = p
		out = append(out, string(b))
		return nil
	}); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return out
}

func rec(i int) string { return fmt.Sprintf("record-%04d", i) }

// appendN appends records first..last (by rec) and waits until durable.
func appendN(t testing.TB, s *Store, first, last int) {
	t.Helper()
	var p Pos
	for i := first; i <= last; i++ {
		var err error
		if p, err = s.Append([]byte(rec(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WaitSynced(p); err != nil {
		t.Fatal(err)
	}
}

func wantRecords(t testing.TB, got []string, first, last int) {
	t.Helper()
	if len(got) != last-first+1 {
		t.Fatalf("got %d records, want %d..%d (%d)", len(got), first, last, last-first+1)
	}
	for i, g := range got {
		if g != rec(first+i) {
			t.Fatalf("record %d = %q, want %q", i, g, rec(first+i))
		}
	}
}

// abandon drops a store as a crash would: nothing more is written, the
// files and the lock are let go. The syncer must already have stopped
// (crashAt) or have nothing left to do.
func abandon(s *Store) {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	close(s.stop)
	s.kick()
	<-s.done
	s.seg.f.Close()
	s.lock.Close()
}

// copyDir copies the regular files of src into a new temporary directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func names(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// faultFS opens real files but can fail their writes and fsyncs, count
// fsyncs, and hold an fsync until the test lets it go: a disk that fills
// up or stalls, without filling or stalling one.
type faultFS struct {
	failWrite atomic.Pointer[error] // WriteAt fails with it (after writing half)
	suffix    string                // if set, only files named ...suffix fail
	// failWriteOver: a WriteAt as long as the zeros a preallocation
	// writes in (not a round of small records) fails with it.
	failWriteOver atomic.Pointer[error]
	failSync      atomic.Pointer[error] // Sync fails with it
	syncs         atomic.Int64
	mu            sync.Mutex
	gate          chan struct{} // if set, Sync waits until it is closed
	gateOnly      string        // if set, only files named ...gateOnly wait
	entered       chan struct{} // Sync signals here when it waits at the gate
}

func (fs *faultFS) open(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{f: f, fs: fs, name: name}, nil
}

func (fs *faultFS) setWriteErr(err error) {
	if err == nil {
		fs.failWrite.Store(nil)
	} else {
		fs.failWrite.Store(&err)
	}
}

func (fs *faultFS) setSyncErr(err error) {
	if err == nil {
		fs.failSync.Store(nil)
	} else {
		fs.failSync.Store(&err)
	}
}

type faultFile struct {
	f    *os.File
	fs   *faultFS
	name string
}

func (ff *faultFile) WriteAt(p []byte, off int64) (int, error) {
	if e := ff.fs.failWrite.Load(); e != nil && strings.HasSuffix(ff.name, ff.fs.suffix) {
		// A full disk typically takes part of a write before refusing.
		n, _ := ff.f.WriteAt(p[:len(p)/2], off)
		return n, *e
	}
	if e := ff.fs.failWriteOver.Load(); e != nil && len(p) >= len(zeros) {
		n, _ := ff.f.WriteAt(p[:len(p)/2], off)
		return n, *e
	}
	return ff.f.WriteAt(p, off)
}

func (ff *faultFile) Sync() error {
	ff.fs.mu.Lock()
	gate, entered := ff.fs.gate, ff.fs.entered
	if !strings.HasSuffix(ff.name, ff.fs.gateOnly) {
		gate = nil
	}
	ff.fs.mu.Unlock()
	if gate != nil {
		entered <- struct{}{}
		<-gate
	}
	ff.fs.syncs.Add(1)
	if e := ff.fs.failSync.Load(); e != nil {
		return *e
	}
	return ff.f.Sync()
}

func (ff *faultFile) Truncate(n int64) error { return ff.f.Truncate(n) }
func (ff *faultFile) Close() error           { return ff.f.Close() }
