package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestReopenAppendCycles(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for cycle := range 5 {
		s, r := openT(t, dir, Options{})
		if r.Last != Pos(n) {
			t.Fatalf("cycle %d: Last = %d, want %d", cycle, r.Last, n)
		}
		wantRecords(t, records(t, r), 1, n)
		appendN(t, s, n+1, n+100*(cycle+1))
		n += 100 * (cycle + 1)
		// Records appended after Open are not replayed again.
		wantRecords(t, records(t, r), 1, n-100*(cycle+1))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAppendPositionsAndClose(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	for i := 1; i <= 10; i++ {
		p, err := s.Append([]byte(rec(i)))
		if err != nil || p != Pos(i) {
			t.Fatalf("Append %d = %d, %v", i, p, err)
		}
	}
	// Close flushes what is buffered without a WaitSynced.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append([]byte("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	_, r := openT(t, dir, Options{})
	wantRecords(t, records(t, r), 1, 10)
}

func TestEmptyRecordsAndLimit(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{MaxRecordBytes: 8})
	if _, err := s.Append(make([]byte, 9)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized Append: %v", err)
	}
	p1, _ := s.Append(nil)
	p2, _ := s.Append([]byte("12345678"))
	if err := s.WaitSynced(p2); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, r := openT(t, dir, Options{MaxRecordBytes: 8})
	got := records(t, r)
	if p1 != 1 || !slices.Equal(got, []string{"", "12345678"}) {
		t.Fatalf("got %q", got)
	}
}

func TestSecondOpenRefused(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	defer s.Close()
	if _, _, err := Open(dir, Options{}); err == nil {
		t.Fatal("a second Open of the same directory succeeded")
	}
}

func TestGapIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	appendN(t, s, 1, 10)
	if err := s.WriteSnapshot([]byte("state")); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, 11, 20)
	s.Close()
	// Losing the snapshot leaves records 11.. without their predecessors.
	if err := os.Remove(filepath.Join(dir, snapName(10))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(dir, Options{}); err == nil {
		t.Fatal("Open accepted a log whose start is missing")
	}
}
