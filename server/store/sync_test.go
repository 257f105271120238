package store

import (
	"errors"
	"syscall"
	"testing"
)

// TestGroupFsync holds the syncer inside an fsync while 999 more records
// arrive: they all share the next fsync.
func TestGroupFsync(t *testing.T) {
	fs := &faultFS{}
	s, _ := openT(t, t.TempDir(), Options{OpenFile: fs.open})
	defer s.Close()
	before := fs.syncs.Load()
	fs.mu.Lock()
	fs.gate, fs.entered = make(chan struct{}), make(chan struct{})
	fs.mu.Unlock()
	s.Append([]byte(rec(1)))
	<-fs.entered // the syncer is in the fsync of record 1
	var last Pos
	for i := 2; i <= 1000; i++ {
		last, _ = s.Append([]byte(rec(i)))
	}
	fs.mu.Lock()
	gate := fs.gate
	fs.gate = nil
	fs.mu.Unlock()
	close(gate)
	if err := s.WaitSynced(last); err != nil {
		t.Fatal(err)
	}
	if n := fs.syncs.Load() - before; n != 2 {
		t.Fatalf("1000 records took %d fsyncs, want 2", n)
	}
	if st := s.Stats(); st.Durable != 1000 || st.Appended != 1000 || st.LogRecords != 1000 {
		t.Fatalf("stats %+v", st)
	}
}

// TestNotifyOnDurable: the owner learns of progress through Notify alone.
func TestNotifyOnDurable(t *testing.T) {
	s, _ := openT(t, t.TempDir(), Options{})
	defer s.Close()
	p, _ := s.Append([]byte("x"))
	for s.Durable() < p {
		<-s.Notify()
	}
}

// TestDiskFull fails writes as a full disk does (half a batch lands, then
// ENOSPC): the store reports the error, keeps what was durable, retries,
// and once space is back writes every record exactly once.
func TestDiskFull(t *testing.T) {
	for _, fault := range []string{"write", "fsync"} {
		t.Run(fault, func(t *testing.T) {
			dir := t.TempDir()
			fs := &faultFS{}
			s, _ := openT(t, dir, Options{OpenFile: fs.open, RetryInterval: 1})
			appendN(t, s, 1, 10)
			setFault(fs, fault, syscall.ENOSPC)
			for i := 11; i <= 20; i++ {
				s.Append([]byte(rec(i)))
			}
			for s.Err() == nil {
				<-s.Notify()
			}
			if !errors.Is(s.Err(), syscall.ENOSPC) || s.Durable() != 10 {
				t.Fatalf("Err = %v, Durable = %d", s.Err(), s.Durable())
			}
			if st := s.Stats(); st.Err == "" || st.LastError == "" {
				t.Fatalf("stats do not say why: %+v", st)
			}
			setFault(fs, fault, nil)
			if err := s.WaitSynced(20); err != nil {
				t.Fatal(err)
			}
			for s.Err() != nil {
				<-s.Notify()
			}
			appendN(t, s, 21, 25)
			s.Close()
			_, r := openT(t, dir, Options{})
			wantRecords(t, records(t, r), 1, 25)
		})
	}
}

// TestCrashWhileDiskFull: what was durable before the disk filled up
// survives a crash in the error state. Of the half-written batch, the
// complete records may come back (never confirmed, they may or may not
// survive, as in any crash); a torn one never does.
func TestCrashWhileDiskFull(t *testing.T) {
	dir := t.TempDir()
	fs := &faultFS{}
	s, _ := openT(t, dir, Options{OpenFile: fs.open, RetryInterval: 1})
	appendN(t, s, 1, 10)
	fs.setWriteErr(syscall.ENOSPC)
	for i := 11; i <= 20; i++ {
		s.Append([]byte(rec(i)))
	}
	for s.Err() == nil {
		<-s.Notify()
	}
	abandon(s)
	_, r := openT(t, dir, Options{})
	got := records(t, r)
	if len(got) < 10 || len(got) > 20 {
		t.Fatalf("recovered %d records, want 10..20", len(got))
	}
	wantRecords(t, got, 1, len(got))
}

// TestCloseInErrorState: Close reports records it could not make durable.
func TestCloseInErrorState(t *testing.T) {
	fs := &faultFS{}
	s, _ := openT(t, t.TempDir(), Options{OpenFile: fs.open, RetryInterval: 1})
	fs.setSyncErr(syscall.EIO)
	p, _ := s.Append([]byte("lost"))
	if err := s.Close(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Close = %v, want EIO", err)
	}
	if err := s.WaitSynced(p); err == nil {
		t.Fatal("WaitSynced succeeded for a record never written")
	}
}

func setFault(fs *faultFS, fault string, err error) {
	if fault == "write" {
		fs.setWriteErr(err)
	} else {
		fs.setSyncErr(err)
	}
}
