package broker

import "sync"

// durability tracks how far the broker's command log is on disk, for the
// connections' writers: a publisher confirm (or tx.commit-ok) that promises
// a message survives a crash waits until the log records of the command
// that caused it are synced (issue "nothing confirmed is lost").
//
// The broker goroutine advances end as it appends records; the store's
// syncer advances synced; writers read both through Durable. A broker
// without a store has end 0, so nothing ever waits.
type durability struct {
	mu      sync.Mutex
	end     uint64        // position after the last record appended (broker goroutine)
	synced  uint64        // position known to be on disk
	failed  error         // the store's write error, while it lasts
	changed chan struct{} // closed and replaced when synced or failed change
}

func newDurability() *durability { return &durability{changed: make(chan struct{})} }

// LogEnd is the position a confirm caused by the command just applied
// must wait for. It is called on the broker goroutine (from sinks).
func (b *Broker) LogEnd() uint64 {
	if b.dur == nil {
		return 0
	}
	b.dur.mu.Lock()
	defer b.dur.mu.Unlock()
	return b.dur.end
}

// Durable reports the log position known to be on disk, the store's write
// error if it is failing, and a channel closed when either next changes.
// It is safe from any goroutine.
func (b *Broker) Durable() (synced uint64, failed error, changed <-chan struct{}) {
	if b.dur == nil {
		return ^uint64(0), nil, nil
	}
	b.dur.mu.Lock()
	defer b.dur.mu.Unlock()
	return b.dur.synced, b.dur.failed, b.dur.changed
}

func (d *durability) setEnd(pos uint64) {
	d.mu.Lock()
	d.end = pos
	d.mu.Unlock()
}

// setSynced records what the store has synced, and its error state.
func (d *durability) setSynced(pos uint64, failed error) {
	d.mu.Lock()
	if pos > d.synced || failed != d.failed {
		if pos > d.synced {
			d.synced = pos
		}
		d.failed = failed
		close(d.changed)
		d.changed = make(chan struct{})
	}
	d.mu.Unlock()
}
