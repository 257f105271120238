package broker

import (
	"cmp"
	"fmt"
	"log"
	"sync"
	"time"

	"warren/engine"
	"warren/server/store"
)

// durability tracks how far the broker's command log is on disk, and
// holds what must not happen before it is: a publisher confirm (or
// tx.commit-ok) that promises a message survives a crash waits until the
// log records of the command that caused it are synced (issue "nothing
// confirmed is lost").
//
// The lock's holder advances end as it appends records and queues
// releases; the forwarder goroutine advances synced as the store reports
// fsyncs and runs the releases that became due, in the order they were
// queued. A broker without a store has no durability: nothing waits.
type durability struct {
	mu      sync.Mutex
	end     uint64    // position of the last record appended
	synced  uint64    // position known to be on disk
	failed  error     // the store's write error, while it lasts
	waiting []release // in queueing order, so positions never decrease
}

// release is something to run once the log is on disk up to pos.
type release struct {
	pos uint64
	run func()
}

func newDurability() *durability { return &durability{} }

// LogEnd is the log position of the last command applied: what a confirm
// caused by it waits for. It is called under the broker's lock (sinks).
func (b *Broker) LogEnd() uint64 {
	if b.dur == nil {
		return 0
	}
	b.dur.mu.Lock()
	defer b.dur.mu.Unlock()
	return b.dur.end
}

// AfterDurable runs f once the command log is on disk up to pos, after
// everything queued before it; at once if that is so already (and always
// without a data directory). f runs under the broker's lock or on the
// goroutine that learns of the fsync, so it must only queue work (push to
// an outbox). A pos of 0 waits for nothing but keeps f's place in line.
func (b *Broker) AfterDurable(pos uint64, f func()) {
	if b.dur == nil {
		f()
		return
	}
	d := b.dur
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.waiting) == 0 && pos <= d.synced {
		f()
		return
	}
	d.waiting = append(d.waiting, release{pos, f})
}

// DiskError is the store's write error while writes fail, else nil.
func (b *Broker) DiskError() error {
	if b.dur == nil {
		return nil
	}
	b.dur.mu.Lock()
	defer b.dur.mu.Unlock()
	return b.dur.failed
}

func (d *durability) setEnd(pos uint64) {
	d.mu.Lock()
	d.end = pos
	d.mu.Unlock()
}

// setSynced records what the store has synced, and its error state, and
// runs the releases that became due, in order. They run under the lock,
// so that a release queued meanwhile cannot overtake them.
func (d *durability) setSynced(pos uint64, failed error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.synced = max(d.synced, pos)
	d.failed = failed
	n := 0
	for n < len(d.waiting) && d.waiting[n].pos <= d.synced {
		d.waiting[n].run()
		d.waiting[n] = release{}
		n++
	}
	if n > 0 {
		d.waiting = append(d.waiting[:0], d.waiting[n:]...)
	}
}

// Recover rebuilds the engine a data directory holds: the snapshot's
// state, then every command logged after it, applied as they were. The
// engine's events are dropped on the way (they went to clients that are
// gone); then the restart command applies RabbitMQ's rules for what a
// node keeps across a restart (engine.Broker.Restart), and the clock
// moves to now, so messages whose TTL ran out while the broker was down
// expire and are dead-lettered at once. A broker restored with a paused
// or manual clock keeps the time it had instead: the downtime does not
// count (clock.go).
//
// A directory with nothing in it starts a new broker from cfg; its first
// snapshot is written at once, so that the configuration the log was
// recorded under (the epoch, the seed) is on disk with it.
func Recover(cfg engine.Config, now time.Time, mode ClockMode, st *store.Store, rec *store.Recovered) (*engine.Broker, error) {
	var eng *engine.Broker
	if rec.Snapshot != nil {
		var err error
		if eng, err = engine.Load(rec.Snapshot); err != nil {
			return nil, fmt.Errorf("data directory: snapshot %d: %w", rec.SnapshotPos, err)
		}
	} else {
		cfg.EpochMs = now.UnixMilli()
		cfg.RecordCommands = true
		eng = engine.New(cfg)
	}
	discardRecords := func([]byte) {}
	discardEvents := func([]engine.Event) {}
	eng.DrainCommands(discardRecords)
	eng.DrainEventsTo(discardEvents)
	err := rec.Replay(func(pos store.Pos, data []byte) error {
		c, err := engine.DecodeCommand(data)
		if err != nil {
			return fmt.Errorf("data directory: log record %d: %w", pos, err)
		}
		eng.Apply(c)
		eng.DrainCommands(discardRecords)
		eng.DrainEventsTo(discardEvents)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rec.Snapshot == nil && rec.Last == 0 {
		if err := firstSnapshot(st, eng); err != nil {
			return nil, err
		}
	}
	// The restart and the clock's jump over the downtime are commands
	// like any other: logged, so a crash during start-up replays them.
	at := eng.Now()
	if mode == ClockLive {
		at = max(engineTime(eng, now), at)
	}
	eng.Restart(at)
	// The limits are the operator's flags of this start, not those the
	// broker was saved with.
	if l := (engine.Limits{MaxQueuesPerVhost: cfg.MaxQueuesPerVhost, MaxMessagesPerVhost: cfg.MaxMessagesPerVhost}); l != eng.Limits() {
		eng.SetLimits(l)
	}
	eng.AdvanceTo(at)
	eng.DrainEventsTo(discardEvents)
	return eng, nil
}

// firstSnapshot saves a new broker in a new data directory and waits
// until the snapshot is on disk: the commands logged after it are
// replayed on it, under the configuration (epoch, seed) it records.
func firstSnapshot(st *store.Store, eng *engine.Broker) error {
	if err := st.WriteSnapshot(eng.Save()); err != nil {
		return err
	}
	deadline := time.After(10 * time.Second)
	for st.Stats().SnapshotTime.IsZero() {
		select {
		case <-st.Notify():
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			return fmt.Errorf("data directory: the first snapshot could not be written: %v", st.Err())
		}
	}
	return nil
}

// engineTime is wall-clock time t on eng's clock: milliseconds since the
// epoch its configuration was created with.
func engineTime(eng *engine.Broker, t time.Time) engine.Time {
	return engine.Time(t.UnixMilli() - eng.Config().EpochMs)
}

// persist appends the commands the engine applied since the last call to
// the store, in order, and moves LogEnd past them. It runs under the
// broker's lock after every command and clock move, before the events are
// dispatched, so a sink that queues a confirm knows the position the
// confirm waits for.
func (b *Broker) persist() {
	if b.st == nil {
		return
	}
	b.eng.DrainCommands(b.persistFn)
}

func (b *Broker) persistRecord(rec []byte) {
	pos, err := b.st.Append(rec)
	if err != nil {
		// Append refuses only a record past MaxRecordBytes (larger than
		// any message the connections accept) or a closed store (at
		// shutdown). The command is applied already; what it changed is
		// lost at the next restart, as if the broker had crashed before
		// writing it, and nothing that waits for it is confirmed.
		b.dur.setSynced(0, err)
		return
	}
	b.dur.setEnd(uint64(pos))
}

// forwardSyncs tells the writers whenever the store's durable position or
// error changes, and the broker (under its lock) when the write error or
// the low-disk state changes, until the broker stops. Snapshots the store
// had to drop are logged when they start and stop failing.
func (b *Broker) forwardSyncs() {
	var last, lastLow, lastSnap error
	for {
		select {
		case <-b.st.Notify():
		case <-b.done:
			return
		}
		err, low := b.st.Err(), b.st.LowDisk()
		b.dur.setSynced(uint64(b.st.Durable()), err)
		if (err == nil) != (last == nil) || (low == nil) != (lastLow == nil) {
			last, lastLow = err, low
			b.own(func() { b.diskState(err, low) })
		}
		if snap := b.st.SnapshotErr(); (snap == nil) != (lastSnap == nil) {
			// Once per streak of failures: retries back off to a minute.
			lastSnap = snap
			if snap != nil {
				log.Printf("warren: no snapshot for now, the log goes on, nothing is blocked, and it is tried again later 暂不写快照，日志继续写入，不阻塞任何人，稍后重试: %v", snap)
			} else {
				log.Printf("warren: a snapshot was written again 快照已再次写入")
			}
		}
		if b.st.NeedsSnapshot() {
			// Due again after one failed, with no command coming (a
			// drained broker whose publishers are blocked): take it now.
			b.own(func() {})
		}
	}
}

// OnDiskError registers f to be told, under the broker's lock, when the
// store starts failing to write or free disk space falls below the
// disk-free limit (err), and when neither holds any more (nil): the
// memory-and-disk alarm blocks publishers meanwhile.
// A hook registered while the disk already blocks publishers (a broker
// started on a full disk) is told at once.
func (b *Broker) OnDiskError(f func(err error)) {
	b.locked(func() {
		b.diskHooks = append(b.diskHooks, f)
		if blocked := cmp.Or(b.storeErr, b.lowDisk); blocked != nil {
			f(blocked)
		}
	})
}

// diskState logs each change of the two disk reasons to block publishers,
// a failing write and low free space, and tells the hooks when the two
// together start or stop blocking.
func (b *Broker) diskState(err, low error) {
	was := b.storeErr != nil || b.lowDisk != nil
	if (err == nil) != (b.storeErr == nil) {
		if err != nil {
			log.Printf("warren: writing the data directory failed, publishers are blocked until it works again 写入数据目录失败，生产者被阻塞，直到可以再次写入: %v", err)
		} else {
			log.Printf("warren: the data directory is writable again 数据目录恢复可写")
		}
	}
	if (low == nil) != (b.lowDisk == nil) {
		if low != nil {
			log.Printf("warren: low on disk, publishers are blocked until free space is back above the limit 磁盘空间不足，生产者被阻塞，直到可用空间回到下限以上: %v", low)
		} else {
			d := b.st.DiskFree()
			log.Printf("warren: free disk space is back above the limit (%d bytes free, limit %d) 磁盘可用空间已回到下限以上（可用 %d 字节，下限 %d 字节）", d.Free, d.Limit, d.Free, d.Limit)
		}
	}
	b.storeErr, b.lowDisk = err, low
	blocked := cmp.Or(err, low)
	if (blocked != nil) == was {
		return
	}
	if blocked == nil {
		log.Printf("warren: publishers are unblocked 生产者已解除阻塞")
	}
	for _, f := range b.diskHooks {
		f(blocked)
	}
}

// maybeSnapshot replaces the log with a snapshot of the state once the
// log has grown past the store's limit, so that a restart replays little.
// It runs under the broker's lock between commands, when no events are
// pending; the store writes the bytes in the background.
func (b *Broker) maybeSnapshot() {
	if b.st == nil || !b.st.NeedsSnapshot() {
		return
	}
	if err := b.st.WriteSnapshot(b.eng.Save()); err != nil {
		log.Printf("warren: snapshot 快照: %v", err)
	}
}

// StoreStats describes the data directory for the management API; ok is
// false when the broker keeps its state in memory only. It is safe from
// any goroutine.
func (b *Broker) StoreStats() (s store.Stats, ok bool) {
	if b.st == nil {
		return store.Stats{}, false
	}
	return b.st.Stats(), true
}

// CloseStore writes what the store has buffered and closes it, after the
// broker has stopped (graceful shutdown).
func (b *Broker) CloseStore() error {
	if b.st == nil {
		return nil
	}
	return b.st.Close()
}
