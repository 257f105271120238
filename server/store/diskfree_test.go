package store

import (
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeDisk is a file system whose free space the test sets.
type fakeDisk struct{ free atomic.Int64 }

func (d *fakeDisk) space(string) (int64, error) { return d.free.Load(), nil }

// TestLowDisk: free space below the limit is the low-disk state, told
// through Notify, measured on the periodic check and after writes; it is
// not a write error, and it clears once space is back.
func TestLowDisk(t *testing.T) {
	disk := &fakeDisk{}
	disk.free.Store(1 << 30)
	s, _ := openT(t, t.TempDir(), Options{DiskFreeLimit: 50 << 20, FreeSpace: disk.space, DiskCheckInterval: time.Millisecond})
	defer s.Close()
	if err := s.LowDisk(); err != nil {
		t.Fatal(err)
	}
	disk.free.Store(10 << 20)
	for s.LowDisk() == nil {
		<-s.Notify()
	}
	var low *LowDiskError
	if !errors.As(s.LowDisk(), &low) || low.Free != 10<<20 || low.Limit != 50<<20 || s.Err() != nil {
		t.Fatalf("LowDisk = %v, Err = %v", s.LowDisk(), s.Err())
	}
	if st := s.Stats(); !st.DiskFreeAlarm || st.DiskFree != 10<<20 || st.DiskFreeLimit != 50<<20 {
		t.Fatalf("stats %+v", st)
	}
	disk.free.Store(60 << 20)
	for s.LowDisk() != nil {
		<-s.Notify()
	}
}

// TestLowDiskAfterWrites: between periodic checks, writing is what
// measures the disk again, at the latest every minCheckBytes near the
// limit, so publishers are blocked within that many bytes of it.
func TestLowDiskAfterWrites(t *testing.T) {
	disk := &fakeDisk{}
	disk.free.Store(5 << 20)
	s, _ := openT(t, t.TempDir(), Options{DiskFreeLimit: 1 << 20, FreeSpace: disk.space, DiskCheckInterval: time.Hour})
	defer s.Close()
	// Something else fills the disk; the store measures again after a
	// quarter of the 4 MiB it had above the limit, 1 MiB.
	disk.free.Store(1 << 19)
	body := make([]byte, 1000-recordHeaderBytes)
	var last Pos
	for range 1000 {
		last, _ = s.Append(body)
	}
	s.WaitSynced(last)
	if s.LowDisk() != nil {
		t.Fatal("measured again before 1 MiB was written")
	}
	for range 100 {
		last, _ = s.Append(body)
	}
	s.WaitSynced(last)
	if s.LowDisk() == nil {
		t.Fatal("not low after writing past 1 MiB")
	}
}

// TestSnapshotRoom is the rule for when a snapshot is written: when it
// leaves the disk-free limit untouched, or dips into it only to free as
// much again as it takes, and leaves half of it.
func TestSnapshotRoom(t *testing.T) {
	const limit = 1000
	for _, c := range []struct {
		name                 string
		free, need, replaces int64
		write                bool
	}{
		{"fits above the limit", 10000, 9000, 0, true},
		{"exactly the limit left", 10000, 9000, 0, true},
		{"would dip into the limit, frees nothing", 10000, 9001, 9001, false},
		{"dips into the limit, frees as much again", 1200, 700, 1400, true},
		{"dips into the limit, frees less than that", 1200, 700, 1399, false},
		{"frees more but leaves under half the limit", 1200, 701, 5000, false},
		{"already below the limit, frees more", 900, 400, 5000, true},
		{"bigger than the free space", 900, 901, 5000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			disk := &fakeDisk{}
			disk.free.Store(c.free)
			s, _ := openT(t, t.TempDir(), Options{DiskFreeLimit: limit, FreeSpace: disk.space})
			defer s.Close()
			err := s.snapshotRoom(c.need, c.replaces)
			var nr *NoRoomError
			if c.write != (err == nil) || (err != nil && !errors.As(err, &nr)) {
				t.Fatalf("snapshotRoom(need %d, replaces %d) with %d free = %v", c.need, c.replaces, c.free, err)
			}
		})
	}
}

// TestSnapshotDeferredForRoom: a snapshot with no room is not written at
// all (no temporary file), blocks no one, and the owner is asked again as
// soon as the disk would hold it, without waiting out the back-off.
func TestSnapshotDeferredForRoom(t *testing.T) {
	dir := t.TempDir()
	disk := &fakeDisk{}
	disk.free.Store(1 << 30)
	var opened atomic.Int32
	open := func(name string, flag int, perm os.FileMode) (File, error) {
		if strings.HasSuffix(name, ".tmp") {
			opened.Add(1)
		}
		return osOpenFile(name, flag, perm)
	}
	s, _ := openT(t, dir, Options{DiskFreeLimit: 100, FreeSpace: disk.space, SnapshotLogBytes: 1, RetryInterval: time.Hour, DiskCheckInterval: time.Hour, OpenFile: open})
	defer s.Close()
	// A first snapshot is always tried (it records the configuration);
	// the ones after it are those the room decides.
	if err := s.WriteSnapshot([]byte("first")); err != nil {
		t.Fatal(err)
	}
	for s.Stats().SnapshotTime.IsZero() {
		<-s.Notify()
	}
	opened.Store(0)
	appendN(t, s, 1, 10)
	disk.free.Store(150)
	state := []byte(strings.Repeat("s", 200))
	if err := s.WriteSnapshot(state); err != nil {
		t.Fatal(err)
	}
	for s.Stats().SnapshotError == "" {
		<-s.Notify()
	}
	if opened.Load() != 0 || s.Err() != nil || !strings.Contains(s.Stats().SnapshotError, "deferred") {
		t.Fatalf("opened %d temporary files, Err %v, stats %+v", opened.Load(), s.Err(), s.Stats())
	}
	if s.NeedsSnapshot() {
		t.Fatal("asked again at once with no more room")
	}
	disk.free.Store(1 << 20)
	s.checkFree() // as the periodic check does
	if !s.NeedsSnapshot() {
		t.Fatal("not asked again once the disk holds the snapshot")
	}
	if err := s.WriteSnapshot(state); err != nil {
		t.Fatal(err)
	}
	for s.Stats().SnapshotPos != 10 {
		<-s.Notify()
	}
}
