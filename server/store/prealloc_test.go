package store

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// crashedWithZeros appends records 1..n to a new store and leaves it as a
// power cut would, the log file still ending in its preallocated zeros;
// it returns the directory and the end of the records.
func crashedWithZeros(t *testing.T, n int) (dir string, end int64) {
	t.Helper()
	dir = t.TempDir()
	s, _ := openT(t, dir, Options{})
	appendN(t, s, 1, n)
	s.writing.Lock()
	end, alloc := s.seg.off, s.seg.alloc
	s.writing.Unlock()
	abandon(s)
	if size := fileSize(t, filepath.Join(dir, segmentName(1))); alloc != preallocChunk || size != alloc {
		t.Fatalf("log file of %d bytes, preallocated to %d: want %d", size, alloc, preallocChunk)
	}
	return dir, end
}

// TestPreallocatedTailIsTheEnd: after a crash the log file ends in the
// zeros preallocated after its records. They are its clean end: every
// record is recovered with nothing cut or noted, Check finds no damage,
// the next records go into the zeros, and Close cuts what is left.
func TestPreallocatedTailIsTheEnd(t *testing.T) {
	dir, end := crashedWithZeros(t, 5)
	if r, err := Check(dir, Options{}); err != nil || len(r.Damage) != 0 || r.Torn != nil || r.Last != 5 {
		t.Fatalf("Check: %v %+v", err, r)
	}
	s, r := openT(t, dir, Options{})
	wantRecords(t, records(t, r), 1, 5)
	if len(r.Notes) != 0 || r.DroppedBytes != 0 {
		t.Fatalf("notes %q, dropped %d: the zeros are no torn tail", r.Notes, r.DroppedBytes)
	}
	path := filepath.Join(dir, segmentName(1))
	if got := fileSize(t, path); got != preallocChunk {
		t.Fatalf("Open changed the file's size to %d", got)
	}
	if st := s.Stats(); st.DiskBytes < preallocChunk {
		t.Fatalf("DiskBytes %d leaves out the preallocated zeros", st.DiskBytes)
	}
	appendN(t, s, 6, 8)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := end + 3*int64(recordHeaderBytes+len(rec(6)))
	if got := fileSize(t, path); got != want {
		t.Fatalf("after Close the file is %d bytes, want its records' %d", got, want)
	}
	_, r = openT(t, dir, Options{})
	wantRecords(t, records(t, r), 1, 8)
}

// TestTornRecordBeforeZeros: a record torn on its way into the zeros is
// a torn tail as ever, reported at its own size, not the zeros'.
func TestTornRecordBeforeZeros(t *testing.T) {
	dir, end := crashedWithZeros(t, 5)
	path := filepath.Join(dir, segmentName(1))
	torn := appendRecord(nil, []byte(rec(6)))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(torn[:len(torn)-3], end) // its last bytes never made it
	f.Close()
	r, err := Check(dir, Options{})
	if err != nil || len(r.Damage) != 0 || r.Torn == nil {
		t.Fatalf("Check: %v %+v", err, r)
	}
	if r.Torn.Offset != end || r.Torn.Bytes != int64(len(torn)) || r.Torn.Pos != 6 {
		t.Fatalf("torn tail %+v, want %d bytes at %d", r.Torn, len(torn), end)
	}
	s, rec := openT(t, dir, Options{})
	wantRecords(t, records(t, rec), 1, 5)
	if len(rec.Notes) != 1 || rec.DroppedBytes != int64(len(torn)) {
		t.Fatalf("notes %q, dropped %d", rec.Notes, rec.DroppedBytes)
	}
	appendN(t, s, 6, 6)
	s.Close()
	_, rec = openT(t, dir, Options{})
	wantRecords(t, records(t, rec), 1, 6)
}

// TestDamageBeforeZeros: damage with intact records after it is refused
// as ever; the zeros after them are not a second damaged stretch, and
// Repair drops them with the damage set aside.
func TestDamageBeforeZeros(t *testing.T) {
	dir, _ := crashedWithZeros(t, 5)
	path := filepath.Join(dir, segmentName(1))
	flipByte(t, path, logHeaderBytes+recordHeaderBytes+1) // record 1's payload
	rep := openRefused(t, dir, "record 1 flipped")
	if len(rep.Damage) != 1 || rep.Damage[0].Pos != 1 || rep.Damage[0].Intact != 4 || rep.Torn != nil {
		t.Fatalf("damage %+v, torn %+v", rep.Damage, rep.Torn)
	}
	if _, err := Repair(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	_, r := openT(t, dir, Options{})
	if got := records(t, r); !slices.Equal(got, without(1, 5, 1)) || r.Last != 5 {
		t.Fatalf("after repair %q, last %d", got, r.Last)
	}
}

// TestZerosInEarlierFile: an earlier log file's zeros are cut when the
// next file begins; were the cut lost in a crash, zeros there are the
// end too, as long as the next file follows on from its last record.
func TestZerosInEarlierFile(t *testing.T) {
	src := twoFiles(t)
	path := filepath.Join(src, segmentName(1))
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(make([]byte, 4096))
	f.Close()
	_, r := openT(t, copyDir(t, src), Options{})
	wantRecords(t, records(t, r), 1, 8)
	if len(r.Notes) != 0 {
		t.Fatalf("notes %q", r.Notes)
	}
}

// TestSnapshotCutsZeros: the log file a snapshot leaves behind holds its
// records only, and the new one is preallocated in its turn.
func TestSnapshotCutsZeros(t *testing.T) {
	dir := t.TempDir()
	fs := &faultFS{gateOnly: ".tmp"}
	s, _ := openT(t, dir, Options{OpenFile: fs.open})
	appendN(t, s, 1, 5)
	old := filepath.Join(dir, segmentName(1))
	if got := fileSize(t, old); got != preallocChunk {
		t.Fatalf("log file %d bytes before the snapshot", got)
	}
	fs.mu.Lock()
	fs.gate, fs.entered = make(chan struct{}), make(chan struct{})
	fs.mu.Unlock()
	s.WriteSnapshot([]byte("state@5"))
	<-fs.entered // the new log file is made; the snapshot's fsync waits
	if got, want := fileSize(t, old), int64(logHeaderBytes+5*(recordHeaderBytes+len(rec(1)))); got != want {
		t.Fatalf("old log file %d bytes, want %d", got, want)
	}
	appendN(t, s, 6, 6)
	if got := fileSize(t, filepath.Join(dir, segmentName(6))); got != preallocChunk {
		t.Fatalf("new log file %d bytes", got)
	}
	close(fs.gate)
	s.Close()
}

// TestNoRoomToPreallocate: on a disk with no room for the zeros, the
// round writes its records past the end of the file as it would without
// preallocation, and they are durable.
func TestNoRoomToPreallocate(t *testing.T) {
	dir := t.TempDir()
	fs := &faultFS{}
	enospc := error(syscall.ENOSPC)
	fs.failWriteOver.Store(&enospc)
	s, _ := openT(t, dir, Options{OpenFile: fs.open})
	appendN(t, s, 1, 5)
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	path := filepath.Join(dir, segmentName(1))
	want := int64(logHeaderBytes + 5*(recordHeaderBytes+len(rec(1))))
	if got := fileSize(t, path); got != want {
		t.Fatalf("log file %d bytes, want %d (no zeros)", got, want)
	}
	fs.failWriteOver.Store(nil)
	appendN(t, s, 6, 6)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, r := openT(t, dir, Options{})
	wantRecords(t, records(t, r), 1, 6)
}

// TestPreallocationCountsAsWritten: the zeros take disk space the moment
// they are written, so they count towards the next free-space check as
// records do: one small record whose round preallocates a chunk is
// enough to measure the disk again.
func TestPreallocationCountsAsWritten(t *testing.T) {
	disk := &fakeDisk{}
	disk.free.Store(2 << 20)
	s, _ := openT(t, t.TempDir(), Options{DiskFreeLimit: 1 << 20, FreeSpace: disk.space, DiskCheckInterval: time.Hour})
	defer s.Close()
	disk.free.Store(1 << 19) // the zeros (and something else) took it
	appendN(t, s, 1, 1)
	if s.LowDisk() == nil {
		t.Fatal("a chunk of zeros written without measuring the disk again")
	}
}
