package store

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRecoverTail appends arbitrary bytes to a valid log, as a crash or
// a damaged disk might leave it: Open must not panic; it either refuses
// the directory as damaged (intact records after the damage) leaving it
// as it was, or keeps the five complete records and comes to the same
// result when run again on what it cut.
func FuzzRecoverTail(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0})
	f.Add(appendRecord(nil, []byte("forged")))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5})
	// The preallocated zeros (prealloc.go): alone, after a torn record,
	// and with a stray byte in them.
	f.Add(make([]byte, 4096))
	f.Add(append(appendRecord(nil, []byte("torn!"))[:9], make([]byte, 4096)...))
	f.Add(append(make([]byte, 100), 7, 0, 0, 0))
	f.Fuzz(func(t *testing.T, tail []byte) {
		dir := t.TempDir()
		b := logHeader(1)
		for i := 1; i <= 5; i++ {
			b = appendRecord(b, []byte(rec(i)))
		}
		if err := os.WriteFile(filepath.Join(dir, segmentName(1)), append(b, tail...), 0o640); err != nil {
			t.Fatal(err)
		}
		before := dirHashes(t, dir)
		s, r, err := Open(dir, Options{MaxRecordBytes: 1 << 16})
		var de *DamagedError
		if errors.As(err, &de) {
			if !maps.Equal(before, dirHashes(t, dir)) {
				t.Fatal("a refused Open changed the directory")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got := records(t, r)
		s.Close()
		if len(got) < 5 {
			t.Fatalf("kept %d records, want at least 5", len(got))
		}
		wantRecords(t, got[:5], 1, 5)
		s, r = openT(t, dir, Options{MaxRecordBytes: 1 << 16})
		again := records(t, r)
		s.Close()
		if len(again) != len(got) || r.DroppedBytes != 0 {
			t.Fatalf("second recovery: %d records, dropped %d; first: %d", len(again), r.DroppedBytes, len(got))
		}
	})
}
