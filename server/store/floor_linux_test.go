package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkFsyncFloor is what the kernel's fsync itself costs, the floor
// for a confirm that waits for its own fsync (window 1): a loop of one
// 60-byte write (a framed publish record's size) and one sync on a file
// in the benchmark's temporary directory — put TMPDIR on the disk of the
// data directory being compared. It reports the process's CPU (user +
// system, getrusage: what warren-bench reads from /proc/PID/stat) and
// its context switches per write+sync; `perf stat -e
// context-switches,cpu-clock` on the test binary gives the same.
//
// The variants are the ways a log can be made durable, so that the store
// uses the cheapest (docs/durability.md, "Preallocation"; prealloc.go):
//
//	fsync/append            write past the end, fsync (size changes)
//	fdatasync/append        the same with fdatasync: the size still
//	                        changes, so the journal still commits
//	fdatasync/fallocate     into a fallocate'd region: no size change,
//	                        but ext4 marks each written block of an
//	                        unwritten extent written, a metadata change
//	fdatasync/zeros         into a region of written zeros: data only
//	fsync/zeros             the same with fsync: mtime still changes
//	odsync/zeros            O_DSYNC pwrite into written zeros, no
//	                        separate sync call
//	rawfdatasync/zeros      fdatasync/zeros without telling the Go
//	                        scheduler (RawSyscall): the thread keeps its
//	                        P, so no hand-off, but a stop-the-world waits
//	                        for the disk; what the runtime's share costs
//	pwritev2dsync/zeros     one pwritev2 with RWF_DSYNC into written
//	                        zeros, the write and its sync in one call:
//	                        the store's (pwritev2Dsync, raw while the
//	                        disk answers within rawSlow)
//
// The loop never leaves the process idle, so the runtime's sysmon never
// sleeps deeply and a call through the scheduler costs here about what
// a raw one does; at window 1 every P is idle between confirms, and it
// does not (rawsync.go; warren-bench durable shows that share).
func BenchmarkFsyncFloor(b *testing.B) {
	const region = 64 << 20
	variants := []struct {
		name       string
		prep       string // "", "fallocate" or "zeros"
		sync       func(f *os.File) error
		oflag      int
		noFsync    bool
		dsyncWrite bool // one pwritev2(RWF_DSYNC), no separate sync
	}{
		{name: "fsync/append", sync: (*os.File).Sync},
		{name: "fdatasync/append", sync: fdatasync},
		{name: "fdatasync/fallocate", prep: "fallocate", sync: fdatasync},
		{name: "fdatasync/zeros", prep: "zeros", sync: fdatasync},
		{name: "fsync/zeros", prep: "zeros", sync: (*os.File).Sync},
		{name: "odsync/zeros", prep: "zeros", oflag: syscall.O_DSYNC, noFsync: true},
		{name: "rawfdatasync/zeros", prep: "zeros", sync: rawFdatasync},
		{name: "pwritev2dsync/zeros", prep: "zeros", dsyncWrite: true},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "floor")
			f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|v.oflag, 0o640)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			switch v.prep {
			case "fallocate":
				if err := syscall.Fallocate(int(f.Fd()), 0, 0, region); err != nil {
					b.Skip("fallocate:", err)
				}
			case "zeros":
				z, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := z.WriteAt(make([]byte, region), 0); err != nil {
					b.Fatal(err)
				}
				z.Sync()
				z.Close()
			}
			if v.prep != "" {
				f.Sync()
			}
			rec := make([]byte, 60)
			var off int64
			var r0, r1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			b.ResetTimer()
			for b.Loop() {
				if v.prep != "" && off+int64(len(rec)) > region {
					off = 0 // wrap: still inside the prepared region
				}
				if v.dsyncWrite {
					if err := pwriteDsync(f, rec, off); err != nil {
						b.Skip("pwritev2:", err)
					}
					off += int64(len(rec))
					continue
				}
				if _, err := f.WriteAt(rec, off); err != nil {
					b.Fatal(err)
				}
				off += int64(len(rec))
				if !v.noFsync {
					if err := v.sync(f); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			us := func(tv syscall.Timeval) float64 { return float64(tv.Sec)*1e6 + float64(tv.Usec) }
			cpu := us(r1.Utime) - us(r0.Utime) + us(r1.Stime) - us(r0.Stime)
			n := float64(b.N)
			b.ReportMetric(cpu/n, "cpu-µs/op")
			b.ReportMetric(float64(r1.Nvcsw-r0.Nvcsw+r1.Nivcsw-r0.Nivcsw)/n, "ctxsw/op")
		})
	}
}

func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }

func rawFdatasync(f *os.File) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_FDATASYNC, f.Fd(), 0, 0); e != 0 {
		return e
	}
	return nil
}

func pwriteDsync(f *os.File, p []byte, off int64) error {
	_, err := pwritev2Dsync(int(f.Fd()), p, off)
	return err
}
