package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// payload16 is the size the issue measures bytes on disk for: a 16-byte
// message body. (An engine publish command adds its exchange, routing key
// and properties to that; this measures the store's own cost.)
var payload16 = []byte("0123456789abcdef")

// BenchmarkAppend is the owner's cost per record: Append only buffers.
func BenchmarkAppend(b *testing.B) {
	s, _ := openT(b, b.TempDir(), Options{})
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		s.Append(payload16)
	}
}

// BenchmarkGroupCommit keeps `inflight` records waiting for the disk at
// all times, as that many publishers each waiting for a confirm before
// publishing again would: every record is appended, fsynced and its
// durability noticed by the owner through Notify.
func BenchmarkGroupCommit(b *testing.B) {
	for _, inflight := range []int{1, 64, 1024} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			s, _ := openT(b, b.TempDir(), Options{})
			defer s.Close()
			fsyncs0 := s.Stats().Fsyncs
			start := time.Now()
			total := Pos(b.N)
			var appended Pos
			for appended < total {
				for appended < total && appended-s.Durable() < Pos(inflight) {
					appended, _ = s.Append(payload16)
				}
				<-s.Notify()
			}
			if err := s.WaitSynced(total); err != nil {
				b.Fatal(err)
			}
			secs := time.Since(start).Seconds()
			fsyncs := float64(s.Stats().Fsyncs - fsyncs0)
			b.ReportMetric(float64(b.N)/secs, "records/s")
			b.ReportMetric(fsyncs/secs, "fsyncs/s")
			b.ReportMetric(float64(b.N)/fsyncs, "records/fsync")
		})
	}
}

// BenchmarkRecover opens a directory holding 1,000,000 records of 16
// bytes and replays them all: start-up time for a log that long.
func BenchmarkRecover(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	s, _ := openT(b, dir, Options{})
	for range n {
		s.Append(payload16)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, segmentName(1)))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		s, r := openT(b, dir, Options{})
		count := 0
		if err := r.Replay(func(Pos, []byte) error { count++; return nil }); err != nil || count != n {
			b.Fatalf("replayed %d: %v", count, err)
		}
		s.Close()
	}
	b.ReportMetric(float64(info.Size())/n, "disk-bytes/record")
}

// BenchmarkSyncNow is one record appended and made durable by the
// appending goroutine itself, as a publisher waiting for its confirm at
// window 1 does (broker.ApplyThenSync): an fsync per op, and no
// allocation.
func BenchmarkSyncNow(b *testing.B) {
	s, _ := openT(b, b.TempDir(), Options{})
	defer s.Close()
	b.ReportAllocs()
	led := 0
	for b.Loop() {
		p, _ := s.AppendDeferred(payload16)
		if s.SyncNow() {
			led++
		} else if err := s.WaitSynced(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(led)/float64(b.N), "led/op")
}
