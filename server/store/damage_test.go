package store

import (
	"crypto/sha256"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// dirHashes is a hash of every file in dir by name: what "the directory
// is left as it was" compares.
func dirHashes(t testing.TB, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	for _, n := range names(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = sha256.Sum256(b)
	}
	return out
}

// openRefused opens dir, which must be refused as damaged with nothing in
// it changed; it returns the refusal's report.
func openRefused(t *testing.T, dir, what string) *Report {
	t.Helper()
	before := dirHashes(t, dir)
	_, _, err := Open(dir, Options{})
	var de *DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("%s: Open = %v, want a DamagedError", what, err)
	}
	if after := dirHashes(t, dir); !maps.Equal(before, after) {
		t.Fatalf("%s: Open changed the directory: %v -> %v", what, slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
	r, err := Check(dir, Options{})
	if err != nil {
		t.Fatalf("%s: Check: %v", what, err)
	}
	if after := dirHashes(t, dir); !maps.Equal(before, after) {
		t.Fatalf("%s: Check changed the directory", what)
	}
	if len(r.Damage) == 0 {
		t.Fatalf("%s: Check found no damage", what)
	}
	return de.Report
}

// without is records first..last (by rec) but those in skip.
func without(first, last int, skip ...int) []string {
	var out []string
	for i := first; i <= last; i++ {
		if !slices.Contains(skip, i) {
			out = append(out, rec(i))
		}
	}
	return out
}

// TestEveryByteFlipped flips each byte of a small log in turn. A flip in
// the last record is a torn tail: Open cuts it and keeps every record
// before. A flip anywhere else (the header, an earlier record's length,
// checksum or payload) has intact records after it: Open refuses and the
// directory is byte for byte as it was; Repair then keeps every record
// but the damaged one, the damaged bytes are beside the log, and the log
// takes appends again.
func TestEveryByteFlipped(t *testing.T) {
	const n = 8
	src, _, starts := writeLog(t, n)
	for off := int64(0); off < starts[n]; off++ {
		dir := copyDir(t, src)
		path := filepath.Join(dir, segmentName(1))
		flipByte(t, path, off)
		hit := 0 // the damaged record; 0: the header
		for k := 1; k <= n; k++ {
			if off >= starts[k-1] && off < starts[k] {
				hit = k
			}
		}
		if hit == n {
			s, r := openT(t, dir, Options{})
			if got := records(t, r); !slices.Equal(got, without(1, n-1)) {
				t.Fatalf("flip at %d (torn tail): %q", off, got)
			}
			s.Close()
			continue
		}
		if off%2 == 0 {
			os.Remove(filepath.Join(dir, "LOCK")) // a refusal creates no LOCK either
		}
		rep := openRefused(t, dir, "flip at "+itoa(off))
		d := rep.Damage[0]
		if len(rep.Damage) != 1 || d.File != segmentName(1) {
			t.Fatalf("flip at %d: damage %+v", off, rep.Damage)
		}
		if hit == 0 && (d.Kind != DamagedHeader || d.Offset != 0) ||
			hit > 0 && (d.Kind != DamagedRecord || d.Offset != starts[hit-1] || d.Pos != Pos(hit) || d.Records != 1 || d.Intact != n-hit || !d.Exact) {
			t.Fatalf("flip at %d (record %d): damage %+v", off, hit, d)
		}
		var walked []string
		rep.Walk(func(p Pos, b []byte, damaged bool) error {
			if damaged != (p == Pos(hit)) {
				t.Fatalf("flip at %d: Walk says record %d damaged %v", off, p, damaged)
			}
			if !damaged {
				walked = append(walked, string(b))
			}
			return nil
		})
		if !slices.Equal(walked, without(1, n, hit)) {
			t.Fatalf("flip at %d: Walk gives %q", off, walked)
		}
		if _, err := Repair(dir, Options{}); err != nil {
			t.Fatalf("flip at %d: Repair: %v", off, err)
		}
		aside := filepath.Join(dir, segmentName(1)+"."+itoa(d.Offset)+".damaged")
		if b, err := os.ReadFile(aside); err != nil || int64(len(b)) != d.Bytes {
			t.Fatalf("flip at %d: damaged bytes not set aside (%v, %d bytes)", off, err, len(b))
		}
		s, r := openT(t, dir, Options{})
		if got := records(t, r); !slices.Equal(got, without(1, n, hit)) || r.Last != n {
			t.Fatalf("flip at %d: after repair %q, last %d", off, got, r.Last)
		}
		appendN(t, s, n+1, n+1)
		s.Close()
		_, r = openT(t, dir, Options{})
		if got := records(t, r); !slices.Equal(got, without(1, n+1, hit)) {
			t.Fatalf("flip at %d: after an append %q", off, got)
		}
	}
}

// TestZeroFilledTail: a file system can extend a file before its data
// reaches the disk; a zeroed tail is torn, cut, and every record is kept.
// Zeros over a record with records after it are damage.
func TestZeroFilledTail(t *testing.T) {
	src, path, starts := writeLog(t, 5)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append(b, make([]byte, 4096)...), 0o640)
	s, r := openT(t, src, Options{})
	wantRecords(t, records(t, r), 1, 5)
	s.Close()
	dir := copyDir(t, src)
	path = filepath.Join(dir, segmentName(1))
	b, _ = os.ReadFile(path)
	clear(b[starts[1]:starts[3]])
	os.WriteFile(path, b, 0o640)
	rep := openRefused(t, dir, "zeroed records 2 and 3")
	if d := rep.Damage[0]; d.Pos != 2 || d.Intact != 2 || d.Bytes != starts[3]-starts[1] || d.Exact {
		t.Fatalf("damage %+v", d)
	}
	Repair(dir, Options{})
	_, r = openT(t, dir, Options{})
	// In the last file nothing pins the positions down: the damaged
	// stretch counts as one record lost (at least), so 4 and 5 move up.
	if got := records(t, r); !slices.Equal(got, without(1, 5, 2, 3)) || r.Last != 4 {
		t.Fatalf("after repair %q, last %d", got, r.Last)
	}
}

// twoFiles makes records 1..5 in log-1 and 6..8 in log-6, as a crash
// during a snapshot leaves them.
func twoFiles(t *testing.T) string {
	dir := t.TempDir()
	s0, _ := openT(t, dir, Options{})
	appendN(t, s0, 1, 5)
	s0.Close()
	b := logHeader(6)
	for i := 6; i <= 8; i++ {
		b = appendRecord(b, []byte(rec(i)))
	}
	if err := os.WriteFile(filepath.Join(dir, segmentName(6)), b, 0o640); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDamageInEarlierFile: the end of a log file that is not the last is
// never torn (the next file is made after it is synced): damage there is
// refused, and Repair keeps the records of both files in their places.
func TestDamageInEarlierFile(t *testing.T) {
	src := twoFiles(t)
	fifth := int64(logHeaderBytes + 4*(recordHeaderBytes+len(rec(1))))
	for _, off := range []int64{logHeaderBytes + 3, fifth + 1} { // record 1, record 5
		dir := copyDir(t, src)
		flipByte(t, filepath.Join(dir, segmentName(1)), off)
		rep := openRefused(t, dir, "flip in log-1")
		lost := int(rep.Damage[0].Pos)
		if _, err := Repair(dir, Options{}); err != nil {
			t.Fatal(err)
		}
		s, r := openT(t, dir, Options{})
		if got := records(t, r); !slices.Equal(got, without(1, 8, lost)) || r.Last != 8 {
			t.Fatalf("flip at %d: after repair %q, last %d", off, got, r.Last)
		}
		s.Close()
	}
}

// TestDamagedHeaders: a damaged header of the first or of a later log
// file is refused (the records in it are intact and Repair keeps them all,
// rewriting the header from the file's name).
func TestDamagedHeaders(t *testing.T) {
	src := twoFiles(t)
	for _, file := range []string{segmentName(1), segmentName(6)} {
		for off := int64(0); off < logHeaderBytes; off++ {
			dir := copyDir(t, src)
			flipByte(t, filepath.Join(dir, file), off)
			rep := openRefused(t, dir, file+" header byte "+itoa(off))
			if d := rep.Damage[0]; d.Kind != DamagedHeader || d.File != file {
				t.Fatalf("%s byte %d: %+v", file, off, rep.Damage)
			}
			if _, err := Repair(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			s, r := openT(t, dir, Options{})
			wantRecords(t, records(t, r), 1, 8)
			s.Close()
		}
	}
}

// snapDir makes snap-10 ("state@10") and records 11..15 after it; with
// older, also snap-5 and the log 6..10 it needs, as a crash between a
// snapshot's rename and the deletion of what it replaced leaves them.
func snapDir(t *testing.T, older bool) string {
	dir := t.TempDir()
	s, _ := openT(t, dir, Options{})
	s.Close()
	os.Remove(filepath.Join(dir, segmentName(1)))
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	logOf := func(first, last int) []byte {
		b := logHeader(Pos(first))
		for i := first; i <= last; i++ {
			b = appendRecord(b, []byte(rec(i)))
		}
		return b
	}
	write(snapName(10), append(snapHeader(10, []byte("state@10")), "state@10"...))
	write(segmentName(11), logOf(11, 15))
	if older {
		write(snapName(5), append(snapHeader(5, []byte("state@5")), "state@5"...))
		write(segmentName(6), logOf(6, 10))
	}
	return dir
}

// TestDamagedSnapshot: a snapshot that fails its checksum is refused
// whether or not an older one is there. With an older snapshot and the
// log after it, Repair sets the damaged one aside and loses nothing;
// without, the damaged snapshot is the only copy of the state, Repair
// refuses and changes nothing, and no empty broker is ever started.
func TestDamagedSnapshot(t *testing.T) {
	for _, older := range []bool{false, true} {
		dir := snapDir(t, older)
		flipByte(t, filepath.Join(dir, snapName(10)), snapHeaderBytes+2)
		rep := openRefused(t, dir, "damaged snapshot")
		if d := rep.Damage[0]; d.Kind != DamagedSnapshot || d.File != snapName(10) {
			t.Fatalf("older %v: %+v", older, rep.Damage)
		}
		before := dirHashes(t, dir)
		r, err := Repair(dir, Options{})
		if !older {
			if !errors.Is(err, ErrCannotRepair) || r.CannotRepair == "" || !maps.Equal(before, dirHashes(t, dir)) {
				t.Fatalf("Repair of the only snapshot: %v, %q", err, r.CannotRepair)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		s, rec := openT(t, dir, Options{})
		if got := state(t, rec); got != "state@5|"+strings.Join(without(6, 15), "|") {
			t.Fatalf("after repair %q", got)
		}
		s.Close()
		if _, err := os.Stat(filepath.Join(dir, snapName(10)+".damaged")); err != nil {
			t.Fatal(err)
		}
	}
	// The older snapshot without the log after it cannot stand in.
	dir := snapDir(t, true)
	os.Remove(filepath.Join(dir, segmentName(6)))
	flipByte(t, filepath.Join(dir, snapName(10)), 0)
	openRefused(t, dir, "damaged snapshot, older one without its log")
	if _, err := Repair(dir, Options{}); !errors.Is(err, ErrCannotRepair) {
		t.Fatalf("Repair: %v", err)
	}
}

// TestCheckIsReadOnly: Check creates nothing, not even LOCK, and refuses
// while a store has the directory open.
func TestCheckIsReadOnly(t *testing.T) {
	src, _, _ := writeLog(t, 3)
	dir := copyDir(t, src)
	os.Remove(filepath.Join(dir, "LOCK"))
	before := dirHashes(t, dir)
	r, err := Check(dir, Options{})
	if err != nil || len(r.Damage) != 0 || r.Last != 3 || !maps.Equal(before, dirHashes(t, dir)) {
		t.Fatalf("Check: %v %+v", err, r)
	}
	s, _ := openT(t, dir, Options{})
	defer s.Close()
	if _, err := Check(dir, Options{}); err == nil {
		t.Fatal("Check of a directory in use succeeded")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestRestoredPayload: one flipped byte anywhere in a small record (its
// length, its checksum, its payload) is explained, so Check can say
// exactly what the lost record was; two flipped bytes are not claimed.
func TestRestoredPayload(t *testing.T) {
	const n = 4
	src, _, starts := writeLog(t, n)
	for off := starts[1]; off < starts[2]; off++ {
		for _, second := range []int64{-1, starts[2] - 1} {
			if second == off {
				continue
			}
			dir := copyDir(t, src)
			path := filepath.Join(dir, segmentName(1))
			flipByte(t, path, off)
			if second >= 0 {
				flipByte(t, path, second)
			}
			r, err := Check(dir, Options{})
			if err != nil || len(r.Damage) != 1 {
				t.Fatalf("flip at %d: %v %+v", off, err, r)
			}
			d := r.Damage[0]
			if second < 0 && (!d.Restored || string(d.Payload) != rec(2)) {
				t.Fatalf("flip at %d: restored %v, payload %q", off, d.Restored, d.Payload)
			}
			if second >= 0 && d.Restored && string(d.Payload) != rec(2) {
				t.Fatalf("flips at %d and %d: claimed %q", off, second, d.Payload)
			}
		}
	}
}

// TestRepairInterrupted: a repair cut short leaves its temporary files
// beside a log that is still damaged, so Open still refuses, unchanged; a
// second repair finishes the job, and the next Open tidies the leftovers.
// A repaired log then takes appends and snapshots as any other.
func TestRepairInterrupted(t *testing.T) {
	src, path, starts := writeLog(t, 6)
	flipByte(t, path, starts[2]+9)
	dir := src
	name := segmentName(1)
	os.WriteFile(filepath.Join(dir, name+".repair.tmp"), []byte("half a new log"), 0o640)
	os.WriteFile(filepath.Join(dir, name+"."+itoa(starts[2])+".damaged.repair.tmp"), []byte("half"), 0o640)
	openRefused(t, dir, "after an interrupted repair")
	for range 2 {
		if _, err := Repair(dir, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	s, r := openT(t, dir, Options{})
	if got := records(t, r); !slices.Equal(got, without(1, 6, 3)) {
		t.Fatalf("after repair %q", got)
	}
	for _, n := range names(t, dir) {
		if strings.HasSuffix(n, ".tmp") {
			t.Fatalf("left %s behind", n)
		}
	}
	appendN(t, s, 7, 8)
	if err := s.WriteSnapshot([]byte("state@8")); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, 9, 9)
	s.Close()
	_, r = openT(t, dir, Options{})
	if got := state(t, r); got != "state@8|"+rec(9) {
		t.Fatalf("after a snapshot %q", got)
	}
}
