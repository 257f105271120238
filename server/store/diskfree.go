package store

import (
	"errors"
	"fmt"
	"time"
)

// DiskFree is the free space of the file system that holds the data
// directory, as the store last measured it, against Options.DiskFreeLimit.
// Free is -1 where it cannot be measured (a platform without statfs): then
// there is no disk alarm, as RabbitMQ disables its disk monitor on
// platforms it does not recognise.
type DiskFree struct {
	Free  int64 // bytes an unprivileged writer may still use
	Limit int64
	Low   bool // Free is below Limit: the owner blocks publishers
}

// LowDiskError is the store's low-disk state: fewer bytes free than the
// disk-free limit (RabbitMQ's disk alarm, disk_free_limit).
type LowDiskError struct{ Free, Limit int64 }

func (e *LowDiskError) Error() string {
	return fmt.Sprintf("%d bytes free on the data directory's file system, below the disk-free limit of %d 数据目录所在文件系统只剩 %d 字节可用，低于磁盘空闲下限 %d 字节", e.Free, e.Limit, e.Free, e.Limit)
}

// NoRoomError is why a snapshot was not written: it needs Need bytes and
// writing it would have taken the disk below what the store keeps free
// (snapshotRoom). The log goes on; the owner is asked again later.
type NoRoomError struct{ Need, Free, Limit int64 }

func (e *NoRoomError) Error() string {
	return fmt.Sprintf("store: snapshot of %d bytes deferred, %d bytes free with a disk-free limit of %d 快照（%d 字节）推迟写入：可用 %d 字节，磁盘空闲下限 %d 字节", e.Need, e.Free, e.Limit, e.Need, e.Free, e.Limit)
}

// errNoStatfs is what freeSpace returns where free space cannot be read.
var errNoStatfs = errors.New("store: free disk space cannot be measured on this platform")

// Free disk space is measured every DiskCheckInterval and, between two
// ticks, after every write once the bytes written since the last
// measurement could have used a quarter of the distance to the limit (at
// least minCheckBytes): the nearer the limit, the more often, as
// RabbitMQ's disk monitor checks more often as space runs out. A statfs
// costs about a microsecond, against an fsync's hundreds.
const minCheckBytes = 64 << 10

// DiskFree reports the free space last measured and whether it is low.
func (s *Store) DiskFree() DiskFree {
	s.mu.Lock()
	defer s.mu.Unlock()
	return DiskFree{Free: s.free, Limit: s.opts.DiskFreeLimit, Low: s.lowLocked()}
}

// LowDisk is a *LowDiskError while free space is below the limit, else nil.
func (s *Store) LowDisk() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.lowLocked() {
		return nil
	}
	return &LowDiskError{Free: s.free, Limit: s.opts.DiskFreeLimit}
}

// SnapshotErr is why the last snapshot was not written, nil once one is.
func (s *Store) SnapshotErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapErr
}

func (s *Store) lowLocked() bool {
	return s.opts.DiskFreeLimit > 0 && s.free >= 0 && s.free < s.opts.DiskFreeLimit
}

// checkFree measures the free space now and tells the owner (Notify) when
// the low state changes. The syncer and the snapshot writer call it.
func (s *Store) checkFree() {
	free, err := s.opts.FreeSpace(s.dir)
	if err != nil {
		free = -1
	}
	s.mu.Lock()
	was := s.lowLocked()
	s.free, s.sinceCheck = free, 0
	changed := was != s.lowLocked()
	s.mu.Unlock()
	if changed {
		s.signal()
	}
}

// wrote counts n bytes just written and measures the free space again
// once they add up to a quarter of the distance to the limit.
func (s *Store) wrote(n int64) {
	s.mu.Lock()
	s.sinceCheck += n
	due := s.free >= 0 && s.sinceCheck >= max(minCheckBytes, (s.free-s.opts.DiskFreeLimit)/4)
	s.mu.Unlock()
	if due {
		s.checkFree()
	}
}

// snapshotRoom says whether a snapshot of need bytes may be written now,
// from a fresh measurement. A snapshot exists beside the files it replaces
// until it is durable, so it needs its own size free for a moment. It is
// written when that leaves the disk-free limit untouched, or, when it
// would dip into the limit, only if it frees at least as much again as it
// takes (the old snapshot and log it replaces are at least twice its
// size) and leaves half the limit free: that is how a broker whose
// publishers are blocked for disk gets its space back once consumers have
// drained it, while a broker whose state only grows is not blocked for a
// moment at every snapshot for little gain. Otherwise it is
// deferred and publishers are not blocked for it: the log goes on until
// the disk-free limit itself blocks them. So the broker uses the disk down
// to the limit, not down to the size of its state.
func (s *Store) snapshotRoom(need, replaces int64) error {
	s.checkFree()
	s.mu.Lock()
	free, limit := s.free, s.opts.DiskFreeLimit
	s.mu.Unlock()
	if free < 0 || need <= free-limit || (2*need <= replaces && need <= free-limit/2) {
		return nil
	}
	return &NoRoomError{Need: need, Free: free, Limit: limit}
}

// snapshotFailed drops a snapshot that could not be written (no room, a
// write error): the log after the previous snapshot is intact, so nothing
// is lost and publishers are not blocked. The owner is asked for a new
// snapshot of its then current state (NeedsSnapshot) after a back-off that
// doubles with each failure in a row, from RetryInterval to 64 times it,
// or as soon as the free space would hold the one that had no room.
func (s *Store) snapshotFailed(job *snapJob, err error) {
	s.mu.Lock()
	s.active = nil
	s.snapErr = err
	s.snapFailures++
	s.snapRetryAt = time.Now().Add(s.opts.RetryInterval << min(s.snapFailures-1, 6))
	s.snapNeed = 0
	if nr := (*NoRoomError)(nil); errors.As(err, &nr) {
		s.snapNeed = nr.Need
	}
	s.stats.lastErr, s.stats.lastErrTime = err.Error(), time.Now()
	s.mu.Unlock()
	s.logBytes.Add(job.logBytes)
	s.signal()
}

// snapshotDueLocked says a failed snapshot may be tried again.
func (s *Store) snapshotDueLocked() bool {
	if s.snapErr == nil {
		return true
	}
	if s.snapNeed > 0 && s.free >= 0 && s.snapNeed <= s.free-s.opts.DiskFreeLimit {
		return true
	}
	return !time.Now().Before(s.snapRetryAt)
}
