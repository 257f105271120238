//go:build js && wasm

package vhostrole

import (
	"errors"
	"sync"
	"syscall/js"
	"time"

	"warren/server/broker"
	"warren/server/store"
	"warren/wasm/dobridge"
)

// objectLog is the broker's Log (server/broker) in the vhost object's
// SQLite storage, through the object's JavaScript (vhost.mjs): a record
// is in a row of the batches table with those written with it, a
// snapshot the rows of snap with its position in meta, written together
// with the deletion of the batches it replaces.
//
// Durability is the object's: what a request writes to storage is
// committed before anything the object sends after it leaves (the
// output gate), so a record counts as durable once it is written, and
// a confirm the broker releases then reaches the client only after the
// commit. Records are written in batches (flushSoon): those appended
// within a millisecond go in one call, in one transaction, as one row
// of the batches table (encodeBatch).
type objectLog struct {
	binding js.Value
	notify  chan struct{}

	mu       sync.Mutex
	flushing bool // a write is on its way (flushSoon)
	pending  [][]byte
	last     store.Pos // the last record appended
	durable  store.Pos // the last record written
	err      error     // the storage's last write error, while it lasts
	snapErr  error
	stats    store.Stats
}

// snapshotLogBytes is how much log makes a snapshot due: a restart then
// replays at most about this much, and the object's rows stay few.
const snapshotLogBytes = 8 << 20

// maxRecordBytes bounds a record as the data directory does (a message
// of the largest size the connections take, with its properties).
const maxRecordBytes = 17 << 20

// errStorage is a write the object's storage threw on.
type errStorage struct{ what string }

func (e *errStorage) Error() string {
	return "the Durable Object's storage refused a write (" + e.what + ") 持久对象存储拒绝了写入"
}

func newObjectLog(binding js.Value, held broker.Held, snapBytes int64, logRecords uint64, logBytes int64) *objectLog {
	l := &objectLog{binding: binding, notify: make(chan struct{}, 1), last: held.Last, durable: held.Last}
	l.stats = store.Stats{Dir: "Durable Object storage", SnapshotPos: held.SnapshotPos, SnapshotBytes: snapBytes,
		LogRecords: logRecords, LogBytes: logBytes, DiskFree: -1}
	if held.Snapshot != nil {
		l.stats.SnapshotTime = time.Now()
	}
	return l
}

func (l *objectLog) AppendDeferred(rec []byte) (store.Pos, error) {
	if len(rec) > maxRecordBytes {
		return 0, store.ErrTooLarge
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last++
	l.pending = append(l.pending, append([]byte(nil), rec...))
	l.stats.LogRecords++
	l.stats.LogBytes += int64(len(rec))
	return l.last, nil
}

// write hands the pending records to the object as one batch: one row
// (or a few, for a batch past a row's size), since rows written are what
// the object's storage is billed by, and a row per record would cost a
// row per message.
func (l *objectLog) write() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) == 0 {
		return
	}
	first := l.last - store.Pos(len(l.pending)) + 1
	if err := call(l.binding, "logAppend", float64(first), float64(l.last), dobridge.Uint8Array(encodeBatch(l.pending))); err != nil {
		l.err = err
		return
	}
	l.pending, l.durable, l.err = l.pending[:0], l.last, nil
}

// Wake schedules a write of the pending records (flushSoon).
func (l *objectLog) Wake() { l.flushSoon() }

// SyncNow leaves the write to flushSoon too: a confirm is released when
// Notify says the write is done.
func (l *objectLog) SyncNow() bool {
	l.flushSoon()
	return false
}

// flushDelay is how long records wait to be written with those that
// follow them. Every event the object handles (each WebSocket message a
// client sends: a publish, most often) ends with a commit of what it
// wrote, and a commit costs far more than a row; written at once, a
// pipelining publisher's messages cost a commit each. Written a moment
// later, in an event of their own (the timer's), the messages that came
// meanwhile share one. A confirm waits for its message's write, so this
// is latency a confirm pays, once per batch.
const flushDelay = time.Millisecond

// flushSoon writes the pending records flushDelay from now, unless a
// write is already on its way, and then tells the broker (Notify).
func (l *objectLog) flushSoon() {
	l.mu.Lock()
	if l.flushing || len(l.pending) == 0 {
		l.mu.Unlock()
		return
	}
	l.flushing = true
	l.mu.Unlock()
	go func() {
		time.Sleep(flushDelay)
		l.mu.Lock()
		l.flushing = false
		l.mu.Unlock()
		l.write()
		select {
		case l.notify <- struct{}{}:
		default:
		}
	}()
}

func (l *objectLog) Durable() store.Pos {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.durable
}

func (l *objectLog) Notify() <-chan struct{} { return l.notify }

func (l *objectLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *objectLog) LowDisk() error { return nil }

func (l *objectLog) SnapshotErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.snapErr
}

func (l *objectLog) NeedsSnapshot() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats.LogBytes >= snapshotLogBytes
}

func (l *objectLog) WriteSnapshot(data ...[]byte) error {
	return l.WriteSnapshotFrom(func() [][]byte { return data })
}

// WriteSnapshotFrom writes the snapshot at once, under the broker's lock:
// the object has no thread to write it beside the broker. The records
// still pending are in it, so they are dropped rather than written.
func (l *objectLog) WriteSnapshotFrom(finish func() [][]byte) error {
	pieces := finish()
	l.mu.Lock()
	defer l.mu.Unlock()
	parts := make([]any, len(pieces))
	var n int64
	for i, p := range pieces {
		parts[i] = dobridge.Uint8Array(p)
		n += int64(len(p))
	}
	if err := call(l.binding, "logSnapshot", float64(l.last), js.ValueOf(parts)); err != nil {
		l.snapErr = err
		return err
	}
	l.pending, l.durable, l.snapErr = l.pending[:0], l.last, nil
	l.stats.SnapshotPos, l.stats.SnapshotBytes, l.stats.SnapshotTime = l.last, n, time.Now()
	l.stats.LogRecords, l.stats.LogBytes = 0, 0
	// What waited for the records the snapshot holds (a confirm, an HTTP
	// publish's answer) is due now: tell the broker, as a write does.
	select {
	case l.notify <- struct{}{}:
	default:
	}
	return nil
}

func (l *objectLog) Stats() store.Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Appended, s.Durable = l.last, l.durable
	if l.err != nil {
		s.Err = l.err.Error()
	}
	if l.snapErr != nil {
		s.SnapshotError = l.snapErr.Error()
	}
	if size := l.binding.Call("storageBytes"); size.Type() == js.TypeNumber {
		s.DiskBytes = int64(size.Float())
	}
	return s
}

func (l *objectLog) DiskFree() store.DiskFree { return store.DiskFree{Free: -1} }

func (l *objectLog) Close() error {
	l.write()
	return l.Err()
}

// call calls the object's function name, turning a throw into an error.
func call(binding js.Value, name string, args ...any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = &errStorage{what: name + ": " + je.Error()}
			} else {
				err = &errStorage{what: name}
			}
		}
	}()
	binding.Call(name, args...)
	return nil
}

var _ broker.Log = (*objectLog)(nil)

var errNoVhost = errors.New("the object was started without its vhost's name")
