package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestSnapshotReplacesLog: after a snapshot the old log is gone, and
// start-up restores the snapshot plus the records after it.
func TestSnapshotReplacesLog(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{SnapshotLogBytes: 100 * 19})
	appendN(t, s, 1, 99)
	if s.NeedsSnapshot() {
		t.Fatal("NeedsSnapshot before the log reached its limit")
	}
	appendN(t, s, 100, 100)
	if !s.NeedsSnapshot() {
		t.Fatal("NeedsSnapshot false at the limit")
	}
	if err := s.WriteSnapshot([]byte("state@100")); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteSnapshot([]byte("again")); err != ErrSnapshotPending && err != nil {
		t.Fatal(err)
	}
	appendN(t, s, 101, 150)
	for s.Stats().SnapshotPos != 100 {
		<-s.Notify()
	}
	st := s.Stats()
	if st.SnapshotPos != 100 || st.SnapshotBytes != 9 || st.LogRecords != 50 || st.SnapshotTime.IsZero() {
		t.Fatalf("stats %+v", st)
	}
	s.Close()
	if got := names(t, dir); !slices.Equal(got, []string{"LOCK", segmentName(101), snapName(100)}) {
		t.Fatalf("directory holds %v", got)
	}
	s, r := openT(t, dir, Options{})
	if string(r.Snapshot) != "state@100" || r.SnapshotPos != 100 || r.Last != 150 {
		t.Fatalf("recovered snapshot %q at %d, last %d", r.Snapshot, r.SnapshotPos, r.Last)
	}
	wantRecords(t, records(t, r), 101, 150)
	// A snapshot right after another (no records between) keeps the log file.
	if err := s.WriteSnapshot([]byte("state@150")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, r = openT(t, dir, Options{})
	if string(r.Snapshot) != "state@150" || r.Last != 150 || len(records(t, r)) != 0 {
		t.Fatalf("recovered %q, last %d", r.Snapshot, r.Last)
	}
}

// TestSnapshotCrashPoints stops the syncer dead after each step of writing
// a snapshot, both for a first snapshot and for one replacing another:
// every point leaves a directory that recovers to the same state, and
// appending and snapshotting carry on from there.
func TestSnapshotCrashPoints(t *testing.T) {
	for _, prior := range []bool{false, true} {
		for _, step := range []string{"records", "snapshot-tmp", "snapshot", "segment"} {
			t.Run(step, func(t *testing.T) {
				dir := t.TempDir()
				base := 0
				if prior {
					s, _ := openT(t, dir, Options{})
					appendN(t, s, 1, 50)
					s.WriteSnapshot([]byte("state@50"))
					s.Close()
					base = 50
				}
				s, _ := openT(t, dir, Options{crashAt: step})
				appendN(t, s, base+1, base+100)
				s.Append([]byte(rec(base + 101)))
				if err := s.WriteSnapshot([]byte("state@new")); err != nil {
					t.Fatal(err)
				}
				// Appended after the snapshot: held for the new log file,
				// so never written before the crash.
				s.Append([]byte(rec(base + 102)))
				<-s.done
				abandon(s)

				s, r := openT(t, dir, Options{})
				got := state(t, r)
				want := "state@new"
				if r.SnapshotPos != Pos(base+101) {
					want = expected(prior, base+101)
				}
				// The record after the snapshot goes to the new log file
				// while the snapshot is written: a crash then may or may
				// not find it on disk.
				if got != want && got != want+"|"+rec(base+102) {
					t.Fatalf("after crash at %s: %q, want %q", step, got, want)
				}
				if r.Last == Pos(base+101) {
					appendN(t, s, base+102, base+102)
				}
				appendN(t, s, base+103, base+110)
				if err := s.WriteSnapshot([]byte("state@final")); err != nil {
					t.Fatal(err)
				}
				appendN(t, s, base+111, base+111)
				s.Close()
				_, r = openT(t, dir, Options{})
				if got := state(t, r); got != "state@final|"+rec(base+111) {
					t.Fatalf("after carrying on: %q", got)
				}
				for _, n := range names(t, dir) {
					if strings.HasSuffix(n, ".tmp") || strings.HasSuffix(n, ".dropped") {
						t.Fatalf("left behind %s", n)
					}
				}
			})
		}
	}
}

// state renders a recovery as snapshot|record|record...
func state(t *testing.T, r *Recovered) string {
	return strings.Join(append([]string{string(r.Snapshot)}, records(t, r)...), "|")
}

func expected(prior bool, last int) string {
	parts, first := []string{""}, 1
	if prior {
		parts, first = []string{"state@50"}, 51
	}
	for i := first; i <= last; i++ {
		parts = append(parts, rec(i))
	}
	return strings.Join(parts, "|")
}

// TestPartialSnapshotFiles: the files a crash can leave half-written — a
// temporary snapshot, a new log file without its full header — are
// cleaned up, and the state is that of the complete files.
func TestPartialSnapshotFiles(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	appendN(t, s, 1, 10)
	s.Close()
	full := append(snapHeader(10, []byte("state@10")), "state@10"...)
	for cut := 0; cut < len(full); cut++ {
		d := copyDir(t, dir)
		os.WriteFile(filepath.Join(d, snapName(10)+".tmp"), full[:cut], 0o640)
		os.WriteFile(filepath.Join(d, segmentName(11)), logHeader(11)[:cut%logHeaderBytes], 0o640)
		s, r := openT(t, d, Options{})
		if got := state(t, r); got != expected(false, 10) {
			t.Fatalf("cut %d: %q", cut, got)
		}
		appendN(t, s, 11, 11)
		s.Close()
		if got := names(t, d); !slices.Equal(got, []string{"LOCK", segmentName(1)}) {
			t.Fatalf("cut %d: directory holds %v", cut, got)
		}
	}
}

// TestSnapshotDiskFull: a snapshot that cannot be written blocks no one
// (Err stays nil), leaves no temporary file taking space and says why in
// Stats; the log goes on (records after the snapshot become durable in the
// new log file), nothing durable is lost, and the owner is asked for a new
// snapshot, which goes through once space is back.
func TestSnapshotDiskFull(t *testing.T) {
	dir := t.TempDir()
	fs := &faultFS{suffix: ".tmp"}
	s, _ := openT(t, dir, Options{OpenFile: fs.open, RetryInterval: 1, SnapshotLogBytes: 1})
	appendN(t, s, 1, 10)
	fs.setWriteErr(syscall.ENOSPC)
	if err := s.WriteSnapshot([]byte("state@10")); err != nil {
		t.Fatal(err)
	}
	for s.Stats().SnapshotError == "" {
		<-s.Notify()
	}
	if s.Err() != nil {
		t.Fatalf("a failed snapshot put the store in the error state: %v", s.Err())
	}
	appendN(t, s, 11, 11)
	if st := s.Stats(); st.SnapshotPos != 0 || st.LogRecords != 11 {
		t.Fatalf("snapshot counted as written: %+v", st)
	}
	for _, n := range names(t, dir) {
		if strings.HasSuffix(n, ".tmp") {
			t.Fatalf("left %s behind", n)
		}
	}
	if !s.NeedsSnapshot() {
		t.Fatal("the owner is not asked for a snapshot again")
	}
	fs.setWriteErr(nil)
	if err := s.WriteSnapshot([]byte("state@11")); err != nil {
		t.Fatal(err)
	}
	for s.Stats().SnapshotPos != 11 {
		<-s.Notify()
	}
	s.Close()
	if st := s.Stats(); st.SnapshotError != "" || st.LastError == "" {
		t.Fatalf("stats %+v", st)
	}
	_, r := openT(t, dir, Options{})
	if got := state(t, r); got != "state@11" {
		t.Fatalf("recovered %q", got)
	}
}

// TestSnapshotDoesNotHoldConfirms: while a snapshot's fsync is stalled,
// records appended after it still become durable in the new log file.
func TestSnapshotDoesNotHoldConfirms(t *testing.T) {
	dir := t.TempDir()
	fs := &faultFS{gateOnly: ".tmp"}
	s, _ := openT(t, dir, Options{OpenFile: fs.open})
	appendN(t, s, 1, 10)
	fs.mu.Lock()
	fs.gate, fs.entered = make(chan struct{}), make(chan struct{})
	fs.mu.Unlock()
	s.WriteSnapshot([]byte("state@10"))
	<-fs.entered // the snapshot's fsync is stalled
	appendN(t, s, 11, 20)
	if s.Stats().SnapshotPos != 0 {
		t.Fatal("snapshot complete before its fsync")
	}
	close(fs.gate)
	for s.Stats().SnapshotPos != 10 {
		<-s.Notify()
	}
	s.Close()
	_, r := openT(t, dir, Options{})
	if got := state(t, r); got != strings.Join([]string{"state@10", rec(11), rec(12), rec(13), rec(14), rec(15), rec(16), rec(17), rec(18), rec(19), rec(20)}, "|") {
		t.Fatalf("recovered %q", got)
	}
}

// TestSnapshotOfPieces: a snapshot handed over in pieces (the engine's
// SaveShared: a piece per large body) is written and recovered as the
// pieces one after the other, small pieces gathered and pieces larger
// than one gathered write written as they are.
func TestSnapshotOfPieces(t *testing.T) {
	big := strings.Repeat("B", pieceWrite+3)
	mid := strings.Repeat("m", pieceWrite/2+1)
	pieces := []string{"state", "", "@", mid, mid, big, "x", mid, "end"}
	var data [][]byte
	for _, p := range pieces {
		data = append(data, []byte(p))
	}
	want := strings.Join(pieces, "")
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	appendN(t, s, 1, 10)
	if err := s.WriteSnapshot(data...); err != nil {
		t.Fatal(err)
	}
	for s.Stats().SnapshotPos != 10 {
		<-s.Notify()
	}
	if got := s.Stats().SnapshotBytes; got != int64(len(want)) {
		t.Fatalf("SnapshotBytes %d, want %d", got, len(want))
	}
	s.Close()
	_, r := openT(t, dir, Options{})
	if string(r.Snapshot) != want {
		t.Fatalf("recovered a %d-byte snapshot, want the %d bytes of the pieces", len(r.Snapshot), len(want))
	}
}

// TestSnapshotFromFinish: WriteSnapshotFrom's finish runs once, as the
// snapshot is written, and its pieces are the snapshot of the position
// at the call, whatever was appended meanwhile.
func TestSnapshotFromFinish(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	appendN(t, s, 1, 10)
	calls := 0
	if err := s.WriteSnapshotFrom(func() [][]byte { calls++; return [][]byte{[]byte("state"), []byte("@10")} }); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, 11, 20)
	for s.Stats().SnapshotPos != 10 {
		<-s.Notify()
	}
	s.Close()
	if calls != 1 {
		t.Fatalf("finish ran %d times, want 1", calls)
	}
	_, r := openT(t, dir, Options{})
	if string(r.Snapshot) != "state@10" || r.SnapshotPos != 10 || r.Last != 20 {
		t.Fatalf("recovered %q at %d, last %d", r.Snapshot, r.SnapshotPos, r.Last)
	}
	wantRecords(t, records(t, r), 11, 20)
}
