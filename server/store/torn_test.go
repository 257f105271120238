package store

import (
	"os"
	"path/filepath"
	"testing"
)

// writeLog makes a directory with records 1..n in one log file and
// returns it, the log's path and the offset where each record starts.
func writeLog(t *testing.T, n int) (dir, path string, starts []int64) {
	t.Helper()
	dir = t.TempDir()
	s, _ := openT(t, dir, Options{})
	appendN(t, s, 1, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	off := int64(logHeaderBytes)
	for i := 1; i <= n; i++ {
		starts = append(starts, off)
		off += int64(recordHeaderBytes + len(rec(i)))
	}
	starts = append(starts, off) // the end of the file
	return dir, filepath.Join(dir, segmentName(1)), starts
}

// TestTornLastRecord cuts the log at every byte offset of its last record,
// as a crash in the middle of writing it would: recovery keeps every
// record before it, cuts the rest off, and the log takes appends again.
func TestTornLastRecord(t *testing.T) {
	const n = 20
	src, _, starts := writeLog(t, n)
	for cut := starts[n-1]; cut <= starts[n]; cut++ {
		dir := copyDir(t, src)
		path := filepath.Join(dir, segmentName(1))
		if err := os.Truncate(path, cut); err != nil {
			t.Fatal(err)
		}
		s, r := openT(t, dir, Options{})
		kept := n - 1
		if cut == starts[n] {
			kept = n
		}
		wantRecords(t, records(t, r), 1, kept)
		if want := cut - starts[kept]; r.DroppedBytes != want {
			t.Fatalf("cut at %d: DroppedBytes = %d, want %d", cut, r.DroppedBytes, want)
		}
		appendN(t, s, kept+1, kept+1)
		s.Close()
		_, r = openT(t, dir, Options{})
		wantRecords(t, records(t, r), 1, kept+1)
	}
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x5a
	if err := os.WriteFile(path, b, 0o640); err != nil {
		t.Fatal(err)
	}
}

// TestLargeRecord: a record larger than the read buffer takes the copying
// path in scanSegment; it round-trips, and a torn one is dropped.
func TestLargeRecord(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	big := make([]byte, readBufferBytes+12345)
	for i := range big {
		big[i] = byte(i * 7)
	}
	s.Append([]byte("a"))
	s.Append(big)
	p, _ := s.Append([]byte("b"))
	s.WaitSynced(p)
	s.Close()
	s, r := openT(t, dir, Options{})
	got := records(t, r)
	s.Close()
	if len(got) != 3 || got[0] != "a" || got[1] != string(big) || got[2] != "b" {
		t.Fatalf("large record did not round-trip (%d records)", len(got))
	}
	for _, cut := range []int64{1, 100, int64(len(big)) / 2, int64(len(big)) + 7} {
		d := copyDir(t, dir)
		path := filepath.Join(d, segmentName(1))
		os.Truncate(path, logHeaderBytes+recordHeaderBytes+1+cut)
		s, r := openT(t, d, Options{})
		if got := records(t, r); len(got) != 1 || got[0] != "a" {
			t.Fatalf("cut %d: got %d records", cut, len(got))
		}
		s.Close()
	}
}
