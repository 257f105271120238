package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkFsyncFloor is what the kernel's fsync itself costs, the floor
// for a confirm that waits for its own fsync (window 1): a loop of one
// 60-byte write (a framed publish record's size) and one fsync on a file
// in the benchmark's temporary directory — put TMPDIR on the disk of the
// data directory being compared. It reports the process's CPU (user +
// system, getrusage: what warren-bench reads from /proc/PID/stat) and
// its context switches per write+fsync; `perf stat -e
// context-switches,cpu-clock` on the test binary gives the same.
func BenchmarkFsyncFloor(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "floor"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec := make([]byte, 60)
	var off int64
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.WriteAt(rec, off); err != nil {
			b.Fatal(err)
		}
		off += int64(len(rec))
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	us := func(tv syscall.Timeval) float64 { return float64(tv.Sec)*1e6 + float64(tv.Usec) }
	cpu := us(r1.Utime) - us(r0.Utime) + us(r1.Stime) - us(r0.Stime)
	n := float64(b.N)
	b.ReportMetric(cpu/n, "cpu-µs/op")
	b.ReportMetric(float64(r1.Nvcsw-r0.Nvcsw+r1.Nivcsw-r0.Nivcsw)/n, "ctxsw/op")
}
