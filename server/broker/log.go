package broker

import "warren/server/store"

// Log is where a durable broker keeps what a restart keeps: the engine's
// durable records (durable.go) and, now and then, a snapshot that
// replaces them. warren serve's is the data directory (*store.Store); the
// edge's is a vhost's Durable Object storage (wasm/broker/dolog). The
// broker calls these under its lock (the appends, Wake, NeedsSnapshot,
// WriteSnapshotFrom) or from its forwarder goroutine (Notify and the
// state after it); what they report follows store.Store's documentation.
type Log interface {
	// AppendDeferred appends one record and returns its position,
	// leaving the write to the log's own time (Wake, SyncNow).
	AppendDeferred(rec []byte) (store.Pos, error)
	// Wake tells the log that records wait to be written.
	Wake()
	// SyncNow writes and syncs what was appended on the caller's
	// goroutine; false when another round covers it (Notify says when).
	SyncNow() bool
	// Durable is the last position on stable storage.
	Durable() store.Pos
	// Notify signals changes of Durable, Err, LowDisk and SnapshotErr.
	Notify() <-chan struct{}
	// Err is the write error the log is stuck on, while it lasts.
	Err() error
	// LowDisk is a *store.LowDiskError while free space is below the
	// limit.
	LowDisk() error
	// SnapshotErr is why the last snapshot was not written.
	SnapshotErr() error
	// NeedsSnapshot says the log has grown enough to be replaced.
	NeedsSnapshot() bool
	// WriteSnapshot and WriteSnapshotFrom replace the log with the state
	// (store.ErrSnapshotPending while one is being written).
	WriteSnapshot(data ...[]byte) error
	WriteSnapshotFrom(finish func() [][]byte) error
	Stats() store.Stats
	DiskFree() store.DiskFree
	// Close writes what is buffered and lets the storage go.
	Close() error
}

var _ Log = (*store.Store)(nil)
