// Package boltbench measures go.etcd.io/bbolt doing the store's job (the
// same closed-loop group commit, the same 1,000,000-record recovery), for
// the comparison in doc.go. It is its own module, so that bbolt never
// enters Warren's go.mod: cd here and run
//
//	go test -run '^$' -bench . -benchtime 2s
//	BATCH_DELAY=1ms go test -run '^$' -bench GroupCommit -benchtime 2s
package boltbench

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

var payload16 = []byte("0123456789abcdef")
var bucket = []byte("log")

func key(n uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], n)
	return k[:]
}

func openDB(b *testing.B, path string) *bolt.DB {
	db, err := bolt.Open(path, 0o640, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucket); return err }); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkGroupCommit: the same closed loop as the store's benchmark.
// inflight=1 is one Update (one commit) per record; more in flight uses
// db.Batch from that many goroutines, bbolt's own way to share a commit.
func BenchmarkGroupCommit(b *testing.B) {
	for _, inflight := range []int{1, 64, 1024} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			db := openDB(b, filepath.Join(b.TempDir(), "db"))
			if d := os.Getenv("BATCH_DELAY"); d != "" {
				db.MaxBatchDelay, _ = time.ParseDuration(d)
			}
			defer db.Close()
			var seq atomic.Uint64
			put := func(tx *bolt.Tx) error {
				return tx.Bucket(bucket).Put(key(seq.Add(1)), payload16)
			}
			start := time.Now()
			if inflight == 1 {
				for range b.N {
					if err := db.Update(put); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				var wg sync.WaitGroup
				var next atomic.Int64
				for range inflight {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for next.Add(1) <= int64(b.N) {
							if err := db.Batch(put); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
			}
			secs := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N)/secs, "records/s")
		})
	}
}

// BenchmarkRecover: open a bolt file holding 1,000,000 16-byte records
// and read them all in key order.
func BenchmarkRecover(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "db")
	db := openDB(b, path)
	for i := 0; i < n; i += 10000 {
		if err := db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket(bucket)
			for j := i; j < i+10000; j++ {
				if err := bk.Put(key(uint64(j+1)), payload16); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	db.Close()
	info, _ := os.Stat(path)
	b.ResetTimer()
	for b.Loop() {
		db, err := bolt.Open(path, 0o640, nil)
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		db.View(func(tx *bolt.Tx) error {
			return tx.Bucket(bucket).ForEach(func(k, v []byte) error { count++; return nil })
		})
		if count != n {
			b.Fatalf("read %d", count)
		}
		db.Close()
	}
	b.ReportMetric(float64(info.Size())/n, "disk-bytes/record")
}
