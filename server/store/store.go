package store

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Options tune a Store; the zero value is usable.
type Options struct {
	// OpenFile opens the files the store writes; os.OpenFile if nil.
	OpenFile OpenFileFunc
	// MaxRecordBytes limits one record; Append refuses a larger one and
	// recovery treats a larger length as corruption, so that a torn length
	// field cannot make it allocate gigabytes. Default 256 MiB, twice
	// RabbitMQ's largest message (max_message_size 128 MiB) plus room; at
	// most 2 GiB - 1 (a length with the top bit set marks a placeholder).
	MaxRecordBytes int
	// SnapshotLogBytes is the log size past which NeedsSnapshot is true.
	// Default 64 MiB: replaying that much takes well under a second.
	SnapshotLogBytes int64
	// RetryInterval is how long the store waits after a failed write
	// before trying again. Default 1 s.
	RetryInterval time.Duration
	// DiskFreeLimit is RabbitMQ's disk_free_limit: while the file system
	// holding the directory has fewer bytes free, LowDisk reports it and
	// the owner blocks publishers. Zero: no disk alarm. Snapshots are only
	// written where they leave this much free (snapshotRoom).
	DiskFreeLimit int64
	// DiskCheckInterval is how often free space is measured besides after
	// writes (diskfree.go). Default 1 s.
	DiskCheckInterval time.Duration
	// FreeSpace measures the bytes free on the file system holding dir;
	// statfs if nil. Tests give a fake disk.
	FreeSpace func(dir string) (int64, error)

	// crashAt, set by tests only, stops the syncer dead after the named
	// step of writing a snapshot, as a power cut would, leaving the files
	// as they are.
	crashAt string
}

func (o Options) withDefaults() Options {
	if o.OpenFile == nil {
		o.OpenFile = osOpenFile
	}
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = 256 << 20
	}
	o.MaxRecordBytes = min(o.MaxRecordBytes, maxRecordLimit)
	if o.SnapshotLogBytes <= 0 {
		o.SnapshotLogBytes = 64 << 20
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = time.Second
	}
	if o.DiskCheckInterval <= 0 {
		o.DiskCheckInterval = time.Second
	}
	if o.FreeSpace == nil {
		o.FreeSpace = statfsFree
	}
	return o
}

// Errors Append and WriteSnapshot return for misuse, not for disk trouble
// (that is Err()).
var (
	ErrClosed          = errors.New("store: closed")
	ErrTooLarge        = errors.New("store: record larger than MaxRecordBytes")
	ErrSnapshotPending = errors.New("store: a snapshot is still being written")
)

// Store is an open data directory. Append and WriteSnapshot belong to one
// owner at a time (the broker, which calls them under its lock); a
// background goroutine, the syncer, does the writes and fsyncs, so the
// owner never waits for the disk. A goroutine that has nothing to do but
// wait for its records (a publisher's, whose confirm waits) may write
// and fsync them itself instead, with SyncNow (lead.go).
type Store struct {
	dir    string
	opts   Options
	lock   *os.File
	notify chan struct{} // cap 1: Durable, Err or the snapshot changed
	wake   chan struct{} // cap 1: work for the syncer
	stop   chan struct{} // closed by Close
	done   chan struct{} // closed when the syncer has exited

	// writing is held by whoever writes the log: the syncer for each of
	// its rounds, or a goroutine in SyncNow. It guards the syncer's own
	// state below (seg, segs, held, heldLast).
	writing sync.Mutex

	mu      sync.Mutex
	cond    *sync.Cond // Broadcast when durable advances or the syncer exits
	next    Pos        // position the next Append gets
	buf     []byte     // framed records not yet taken by the syncer
	bufLast Pos        // position of the last record in buf
	unwoken bool       // buf has records AppendDeferred has not woken the syncer for
	pending *snapJob   // a WriteSnapshot the syncer has not started
	active  *snapJob   // the snapshot the syncer is writing
	durable Pos
	logErr  error // the log write or fsync that is failing
	snapErr error // why the last snapshot was not written; nil after one is
	// snapFailures counts snapshots failed in a row; snapRetryAt is when
	// the owner is asked for the next, or sooner once snapNeed bytes fit.
	snapFailures int
	snapRetryAt  time.Time
	snapNeed     int64
	// free is the free space last measured (-1: unknown); sinceCheck
	// counts bytes written since (diskfree.go).
	free       int64
	sinceCheck int64
	closing    bool
	exited     bool
	closeErr   error
	stats      statsState

	// logBytes counts framed bytes appended since the last snapshot; the
	// owner reads it on every command through NeedsSnapshot.
	logBytes atomic.Int64
	fsyncs   atomic.Uint64

	// The syncer's own state, touched only under writing.
	seg      openSegment
	segs     []string // paths of the live log files, oldest first
	held     []byte   // taken from buf, not yet durable
	heldLast Pos
}

// openSegment is the log file the syncer appends to.
type openSegment struct {
	f     File
	path  string
	first Pos
	off   int64 // end of the durable records
	dirty bool  // a write or fsync failed: bytes after off are suspect
	// alloc is the file's size: off, or more where zeros are preallocated
	// after the records (prealloc.go); noGrowBelow holds off the next
	// preallocation after one failed.
	alloc, noGrowBelow int64
}

// Open opens (creating if needed) the data directory dir, recovers what
// it holds and starts the syncer. The caller must apply rec before its
// first Append. A directory with damage other than a torn tail is a
// *DamagedError, and Open has then changed nothing in it (package doc).
func Open(dir string, opts Options) (*Store, *Recovered, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, nil, err
	}
	lock, err := lockExisting(dir)
	if err == nil && lock == nil {
		// No LOCK file yet (a new or copied directory): look before
		// creating it, so that a damaged directory is refused with
		// nothing added to it either.
		if l, ierr := inspect(dir, opts.MaxRecordBytes); ierr == nil && len(l.damage) > 0 {
			return nil, nil, &DamagedError{Report: l.report()}
		}
		lock, err = lockDir(dir)
	}
	if err != nil {
		return nil, nil, err
	}
	s, rec, err := open(dir, opts)
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	s.lock = lock
	go s.run()
	return s, rec, nil
}

func open(dir string, opts Options) (*Store, *Recovered, error) {
	r, err := recoverDir(dir, opts.MaxRecordBytes)
	if err != nil {
		return nil, nil, err
	}
	rec := r.rec
	s := &Store{
		dir: dir, opts: opts,
		notify: make(chan struct{}, 1), wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}),
		next: rec.Last + 1, durable: rec.Last, free: -1,
	}
	s.cond = sync.NewCond(&s.mu)
	s.checkFree()
	s.signal() // the owner reads the disk's state at once
	s.stats.snapPos, s.stats.snapBytes, s.stats.snapTime = rec.SnapshotPos, int64(len(rec.Snapshot)), rec.snapTime
	for _, sg := range rec.segs {
		s.segs = append(s.segs, sg.path)
		s.logBytes.Add(sg.end - logHeaderBytes)
	}
	if r.tail != nil {
		f, err := opts.OpenFile(r.tail.path, os.O_WRONLY, 0)
		if err != nil {
			return nil, nil, err
		}
		s.seg = openSegment{f: f, path: r.tail.path, first: r.tail.first, off: r.tail.end, alloc: r.tail.size}
	} else if err := s.createSegment(rec.Last + 1); err != nil {
		return nil, nil, err
	}
	for _, path := range r.obsolete {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			s.seg.f.Close()
			return nil, nil, err
		}
	}
	if err := syncDir(dir); err != nil {
		s.seg.f.Close()
		return nil, nil, err
	}
	return s, rec, nil
}

// createSegment starts a new, empty log file whose first record will be
// first, and makes it durable (header and directory entry) before any
// record goes into it.
func (s *Store) createSegment(first Pos) error {
	path := join(s.dir, segmentName(first))
	f, err := s.opts.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(logHeader(first), 0); err != nil {
		f.Close()
		return err
	}
	if err := s.sync(f); err != nil {
		f.Close()
		return err
	}
	if err := syncDir(s.dir); err != nil {
		f.Close()
		return err
	}
	s.seg = openSegment{f: f, path: path, first: first, off: logHeaderBytes, alloc: logHeaderBytes}
	s.segs = append(s.segs, path)
	return nil
}

// sync fsyncs f, counting fsyncs for Stats and the benchmarks.
func (s *Store) sync(f File) error {
	s.fsyncs.Add(1)
	return f.Sync()
}

// syncData makes f's data durable (datasync), counted as an fsync: what
// a round of the log takes, where only data or the size changed.
func (s *Store) syncData(f File) error {
	s.fsyncs.Add(1)
	return datasync(f)
}

// Append adds rec to the log and returns its position. It only copies rec
// into a buffer (no system call); the record is durable once Durable()
// reaches the returned position. Only the owner calls it.
func (s *Store) Append(rec []byte) (Pos, error) {
	p, err := s.AppendDeferred(rec)
	if err == nil {
		s.Wake()
	}
	return p, err
}

// AppendDeferred is Append without waking the syncer: the owner appends
// a request's records this way and then calls Wake, or SyncNow on the
// goroutine that waits for them, once, for all of them. Until then the
// records wait in memory, unless a round under way takes them with its
// next one. Only the owner calls it.
func (s *Store) AppendDeferred(rec []byte) (Pos, error) {
	if len(rec) > s.opts.MaxRecordBytes {
		return 0, ErrTooLarge
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	s.buf = appendRecord(s.buf, rec)
	p := s.next
	s.next++
	s.bufLast = p
	s.unwoken = true
	s.mu.Unlock()
	s.logBytes.Add(int64(recordHeaderBytes + len(rec)))
	return p, nil
}

// Wake hands the records AppendDeferred buffered to the syncer; it does
// nothing (no wake-up) when there are none.
func (s *Store) Wake() {
	s.mu.Lock()
	wake := s.unwoken
	s.unwoken = false
	s.mu.Unlock()
	if wake {
		s.kick()
	}
}

// kick wakes the syncer without ever blocking the owner.
func (s *Store) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Notify returns a channel that receives when Durable or Err change or a
// snapshot is complete. It holds at most one signal, so a slow reader
// sees the latest state rather than a backlog: read Durable(), Err() or
// Stats() after receiving.
func (s *Store) Notify() <-chan struct{} { return s.notify }

func (s *Store) signal() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Durable is the position of the last record known to be on disk.
func (s *Store) Durable() Pos {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.durable
}

// Err is the write error the store is stuck on (disk full, I/O error),
// nil when writes succeed. While it is set, records pile up in memory and
// the owner should block publishers; the store retries every
// RetryInterval and clears Err once a write and fsync succeed.
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errLocked()
}

// errLocked is the log's error: it is the one holding confirms back. A
// snapshot that fails blocks no one (snapshotFailed): the log after the
// previous one is intact, and it is tried again later.
func (s *Store) errLocked() error {
	return s.logErr
}

// WaitSynced blocks until record p is durable, or returns the error that
// stopped the store. Tests and Close use it; the owner uses Notify.
func (s *Store) WaitSynced(p Pos) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.durable < p && !s.exited {
		s.cond.Wait()
	}
	if s.durable >= p {
		return nil
	}
	if s.closeErr != nil {
		return s.closeErr
	}
	return ErrClosed
}

// NeedsSnapshot says the log since the last snapshot has grown past
// Options.SnapshotLogBytes and no snapshot is being written (nor, after
// one failed, waiting out its back-off): time for the owner to save its
// state and call WriteSnapshot.
func (s *Store) NeedsSnapshot() bool {
	if s.logBytes.Load() < s.opts.SnapshotLogBytes {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending == nil && s.active == nil && s.snapshotDueLocked()
}

// Close writes and fsyncs what is buffered, stops the syncer and closes
// the files. It returns the error if the buffered records could not be
// made durable (they are then lost, as in a crash: never confirmed).
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		<-s.done
		return s.closeErr
	}
	s.closing = true
	s.mu.Unlock()
	close(s.stop)
	s.kick()
	<-s.done
	s.writing.Lock()
	s.seg.trimPrealloc()
	err := s.seg.f.Close()
	s.writing.Unlock()
	if s.lock != nil {
		s.lock.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeErr == nil {
		s.closeErr = err
	}
	return s.closeErr
}
