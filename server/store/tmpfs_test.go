//go:build linux

package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRealDiskFull fills a real, small file system (a tmpfs mounted by
// whoever runs the test, named by WARREN_STORE_TINYFS; skipped without
// it, since mounting needs root):
//
//	mount -t tmpfs -o size=256k tmpfs /tmp/tinyfs
//	WARREN_STORE_TINYFS=/tmp/tinyfs go test -run RealDiskFull ./server/store
//
// Appending until the kernel says ENOSPC puts the store in its error
// state; freeing space lets the retries through; every record is there
// after a reopen.
func TestRealDiskFull(t *testing.T) {
	root := os.Getenv("WARREN_STORE_TINYFS")
	if root == "" {
		t.Skip("WARREN_STORE_TINYFS not set: no small file system to fill")
	}
	dir, err := os.MkdirTemp(root, "store")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// Take most of the space, so that the log fills the rest quickly.
	var st syscall.Statfs_t
	if err := syscall.Statfs(root, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	filler := filepath.Join(root, "filler")
	if err := os.WriteFile(filler, make([]byte, max(free-64<<10, 0)), 0o640); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(filler)

	s, _ := openT(t, dir, Options{RetryInterval: 1})
	payload := make([]byte, 1000)
	var last Pos
	for s.Err() == nil {
		last, _ = s.Append(payload)
		if last%16 == 0 {
			for s.Err() == nil && s.Durable() < last {
				<-s.Notify()
			}
		}
		if last > 1<<20 {
			t.Fatal("the file system never filled up")
		}
	}
	if !errors.Is(s.Err(), syscall.ENOSPC) {
		t.Fatalf("Err = %v, want ENOSPC", s.Err())
	}
	durable := s.Durable()
	if durable >= last {
		t.Fatalf("durable %d of %d while the disk is full", durable, last)
	}
	os.Remove(filler)
	if err := s.WaitSynced(last); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, r := openT(t, dir, Options{})
	n := 0
	r.Replay(func(Pos, []byte) error { n++; return nil })
	if Pos(n) != last {
		t.Fatalf("recovered %d records, appended %d", n, last)
	}
	t.Logf("disk full after %d records (%d durable), all %d back after space was freed", last, durable, n)
}
