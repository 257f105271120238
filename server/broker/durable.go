package broker

import (
	"cmp"
	"errors"
	"fmt"
	"log"
	"math"
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
// the syncer's fsyncs and runs the releases that became due, in the order
// they were queued. A connection with one confirm in flight does its own
// fsync instead (ApplyLeavingSync) and runs the releases on its goroutine:
// no goroutine is woken between the publish and its confirm. A broker
// without a store has no durability: nothing waits.
type durability struct {
	mu  sync.Mutex
	end uint64 // position of the last record appended
	// lead is set when a confirm caused by the request under way waits
	// for the log (LogEnd): the request's goroutine then syncs the log
	// itself once it lets go of the lock (Broker.handOffLog).
	lead    bool
	synced  uint64    // position known to be on disk
	failed  error     // the store's write error, while it lasts
	refused bool      // a record was refused: end stays past any position
	waiting []release // in queueing order, so positions never decrease
}

// release is something to run once the log is on disk up to pos.
type release struct {
	pos uint64
	run func()
}

func newDurability() *durability { return &durability{} }

// LogEnd is the log position of the last command applied: what a confirm
// caused by it waits for. It is called under the broker's lock (sinks),
// for a confirm that will wait: the connection whose ApplyLeavingSync
// caused it may then fsync the log on its own goroutine (handOffLog).
func (b *Broker) LogEnd() uint64 {
	if b.dur == nil {
		return 0
	}
	b.dur.mu.Lock()
	defer b.dur.mu.Unlock()
	b.dur.lead = true
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

// endPos is the position of the last record appended (past any position
// once a record was refused).
func (d *durability) endPos() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.end
}

func (d *durability) setEnd(pos uint64) {
	d.mu.Lock()
	if !d.refused {
		d.end = pos
	}
	d.mu.Unlock()
}

// refuse makes every confirm from now on wait for a position no fsync
// reaches (Broker.refuse).
func (d *durability) refuse() {
	d.mu.Lock()
	d.refused, d.end = true, math.MaxUint64
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
// state, then every record logged after it, in order. A record is one of
// the engine's durable log (engine/durable.go: the kept messages' changes,
// applied to the state without redoing the work), or, in a directory an
// older Warren wrote, a checkpoint (a whole snapshot, which replaces the
// state) or a command it applied, which is applied again. The engine's
// events are dropped on the way (they went to clients that are gone);
// then the restart command applies RabbitMQ's rules for what a node keeps
// across a restart (engine.Broker.Restart), and the clock moves to now, so
// messages whose TTL ran out while the broker was down expire and are
// dead-lettered at once. A broker restored with a paused or manual clock
// keeps the time it had instead: the downtime does not count (clock.go);
// that is the time of its last durable change, since moving the clock is
// no durable change.
//
// A directory with nothing in it starts a new broker from cfg; its first
// snapshot is written at once, so that the configuration the log was
// recorded under (the epoch, the seed) is on disk with it. The durable
// log is on before the restart, so what the restart changes (held copies
// put back, a length limit trimming, messages expired over the downtime)
// are its first records, which the broker started on the result logs
// before anything else (StartDurable): the next recovery replays them
// after the rest, on the same snapshot. Nothing writes the whole state at
// a start; the store's snapshot (NeedsSnapshot) replaces the log once it
// has grown. A directory an older Warren wrote replays the same way: its
// state once replayed is like a snapshot's, connections and all.
func Recover(cfg engine.Config, now time.Time, mode ClockMode, st Log, rec *store.Recovered) (*engine.Broker, error) {
	return RecoverHeld(cfg, now, mode, st, Held{Snapshot: rec.Snapshot, SnapshotPos: rec.SnapshotPos, Last: rec.Last, Replay: rec.Replay})
}

// Held is what a Log holds at start, for RecoverHeld: a data directory's
// store.Recovered, or what a Durable Object's storage has.
type Held struct {
	// Snapshot is the newest snapshot, nil if none; SnapshotPos the last
	// record it includes.
	Snapshot    []byte
	SnapshotPos store.Pos
	// Last is the last record held (0 for an empty log).
	Last store.Pos
	// Replay calls fn with each record after the snapshot, in order.
	Replay func(fn func(store.Pos, []byte) error) error
}

// RecoverHeld is Recover for any Log: it rebuilds the engine from what
// the log holds.
func RecoverHeld(cfg engine.Config, now time.Time, mode ClockMode, st Log, rec Held) (*engine.Broker, error) {
	var eng *engine.Broker
	if rec.Snapshot != nil {
		var err error
		if eng, err = engine.Load(rec.Snapshot); err != nil {
			return nil, fmt.Errorf("data directory: snapshot %d: %w", rec.SnapshotPos, err)
		}
	} else {
		cfg.EpochMs = now.UnixMilli()
		eng = engine.New(cfg)
	}
	dropRecorded(eng)
	err := rec.Replay(func(pos store.Pos, data []byte) error {
		next, err := ReplayRecord(eng, data)
		if err != nil {
			return fmt.Errorf("data directory: log record %d: %w", pos, err)
		}
		eng = next
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
	if n := eng.DurableSkipped(); n > 0 {
		log.Printf("warren: data directory: %d log records name messages the records before them do not hold (records were lost, as a repair reports); they changed nothing 数据目录：%d 条日志记录提到的消息在之前的记录中不存在（有记录丢失，修复时会报告）；这些记录没有产生任何改变", n, n)
	}
	at := eng.Now()
	if mode == ClockLive {
		at = max(engineTime(eng, now), at)
	}
	dropRecorded(eng)
	eng.EnableDurableLog()
	eng.Restart(at)
	// The limits are the operator's flags of this start, not those the
	// broker was saved with.
	if l := (engine.Limits{MaxQueuesPerVhost: cfg.MaxQueuesPerVhost, MaxMessagesPerVhost: cfg.MaxMessagesPerVhost}); l != eng.Limits() {
		eng.SetLimits(l)
	}
	eng.AdvanceTo(at)
	// The restart's durable records stay for StartDurable to log.
	eng.DrainCommands(func([]byte) {})
	eng.DrainEventsTo(func([]engine.Event) {})
	return eng, nil
}

// ReplayRecord applies one log record to eng, as Recover does, and
// returns the broker it leaves: eng, or for a checkpoint the broker the
// checkpoint holds. The `warren store` commands replay with it too.
func ReplayRecord(eng *engine.Broker, data []byte) (*engine.Broker, error) {
	if engine.IsSnapshot(data) {
		next, err := engine.Load(data)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
		dropRecorded(next)
		return next, nil
	}
	c, err := engine.DecodeCommand(data)
	if err != nil {
		return nil, err
	}
	eng.Apply(c)
	dropRecorded(eng)
	return eng, nil
}

// dropRecorded drops what eng logged and emitted while being rebuilt.
func dropRecorded(eng *engine.Broker) {
	eng.DrainCommands(func([]byte) {})
	eng.DrainDurable(func([]byte) {})
	eng.DrainEventsTo(func([]engine.Event) {})
}

// firstSnapshot saves a new broker in a new data directory and waits
// until the snapshot is on disk: the commands logged after it are
// replayed on it, under the configuration (epoch, seed) it records.
func firstSnapshot(st Log, eng *engine.Broker) error {
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

// persist appends the engine's durable records since the last call to
// the store, in order, and moves LogEnd past them (engine/durable.go:
// transient work makes none). It runs under the broker's lock after every
// command and clock move, before the events are dispatched, so a sink that
// queues a confirm knows the position the confirm waits for. Every change
// of durable state has records (a policy, a vhost's deletion and a
// restart too): the broker never logs the whole state as a record.
func (b *Broker) persist() {
	if b.st == nil {
		return
	}
	b.drainDurable()
	b.st.Wake()
}

// persistDeferred is persist for the end of a request: the records wait
// for handOffLog, which gives them to the syncer or to the request's own
// goroutine, once for the whole request.
func (b *Broker) persistDeferred() {
	if b.st == nil {
		return
	}
	b.drainDurable()
}

// drainDurable appends the engine's durable records (see persist).
func (b *Broker) drainDurable() {
	if b.clk.mode != ClockLive {
		// A restart keeps a paused or manual clock's time; a live one
		// is the wall clock's.
		b.eng.LogClock()
	}
	b.eng.DrainDurable(b.persistFn)
}

// handOffLog ends a request under the lock: it wakes the store's syncer
// for the records the request appended, unless a confirm it caused waits
// for them (LogEnd) and canLead (ApplyLeavingSync). Then it returns
// true, and the caller, once it has let go of the lock, syncs them itself
// (syncLog) or wakes the syncer. Under the lock.
func (b *Broker) handOffLog(canLead bool) (lead bool) {
	if b.st == nil {
		return false
	}
	b.dur.mu.Lock()
	lead, b.dur.lead = b.dur.lead && canLead, false
	b.dur.mu.Unlock()
	if !lead {
		b.st.Wake()
	}
	return lead
}

// syncLog writes and fsyncs the log on the caller's goroutine, outside the
// lock, and runs the releases that became due (the caller's own confirm
// among them, or it finds its place synced when it comes). When another
// round is under way, the store's syncer covers the records instead and
// the forwarder releases them (store.SyncNow).
func (b *Broker) syncLog() {
	if b.st.SyncNow() {
		b.dur.setSynced(uint64(b.st.Durable()), b.st.Err())
	}
}

func (b *Broker) persistRecord(rec []byte) {
	pos, err := b.st.AppendDeferred(rec)
	if err != nil {
		b.refuse(len(rec), err)
		return
	}
	b.lastPos = pos
	b.dur.setEnd(uint64(pos))
}

// refuse handles a record the store refused: one past MaxRecordBytes
// (larger than any message the connections accept, so only with a
// smaller limit than the default), or any record once the store is
// closed (at shutdown). The command is applied already, and what it
// changed is not in the log. From then on nothing is confirmed (a
// confirm waits for a position no fsync reaches), publishers are blocked
// with the reason, and a snapshot of the state is taken at once
// (maybeSnapshot), which has no record limit: once it is on disk the
// change is too, and a restart brings it back; until then a crash loses
// it as it loses what was never confirmed. The log says so, once.
func (b *Broker) refuse(n int, err error) {
	if b.refused != nil {
		return
	}
	b.refused = fmt.Errorf("the data directory refused a log record of %d bytes (%w): nothing is confirmed and publishers are blocked until a restart; a snapshot holding it is being written 数据目录拒绝了一条 %d 字节的日志记录：在重启之前不再确认任何消息，生产者被阻塞；正在写入包含它的快照", n, err, n)
	b.dur.refuse()
	if errors.Is(err, store.ErrClosed) {
		return // shutting down: nothing to tell
	}
	log.Printf("warren: %v", b.refused)
	b.diskState(b.storeErr, b.lowDisk)
}

// forwardSyncs tells the writers whenever the store's durable position or
// error changes, and the broker (under its lock) when the write error or
// the low-disk state changes from last and lastLow (the state at start),
// until the broker stops. Snapshots the store
// had to drop are logged when they start and stop failing.
func (b *Broker) forwardSyncs(last, lastLow error) {
	var lastSnap error
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
		if blocked := cmp.Or(b.refused, b.storeErr, b.lowDisk); blocked != nil {
			f(blocked)
		}
	})
}

// diskState logs each change of the two disk reasons to block publishers,
// a failing write and low free space, and tells the hooks when the two
// together start or stop blocking.
func (b *Broker) diskState(err, low error) {
	was := b.blocked
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
	blocked := cmp.Or(b.refused, err, low)
	if (blocked != nil) == was {
		return
	}
	b.blocked = blocked != nil
	if blocked == nil {
		log.Printf("warren: publishers are unblocked 生产者已解除阻塞")
	}
	for _, f := range b.diskHooks {
		f(blocked)
	}
}

// maybeSnapshot replaces the log with a snapshot of the state once the
// log has grown past the store's limit, so that a restart replays little.
// It runs under the broker's lock at the end of every turn, when no events
// are pending; the store writes the bytes in the background, and if they
// do not reach the disk the log before the snapshot still holds the state
// (every change has its records). A snapshot waits for the work in flight
// to be done: a replay goes on from it with the records of that work.
func (b *Broker) maybeSnapshot() {
	if b.st == nil || b.eng.HasWorkInFlight() {
		return
	}
	// A refused record's change reaches the disk in a snapshot asked for
	// after it (refuse): the first one written since the last request
	// that the store took (it takes none while one is in flight), asked
	// for again a second after one that did not get there.
	owed := b.refused != nil && time.Since(b.refusedAsked) > time.Second &&
		(b.refusedAsked.IsZero() || !b.st.Stats().SnapshotTime.After(b.refusedAsked))
	if !owed && !b.st.NeedsSnapshot() {
		return
	}
	asked := time.Now()
	if err := b.st.WriteSnapshotFrom(b.eng.SaveShared()); err != nil {
		if !errors.Is(err, store.ErrSnapshotPending) {
			log.Printf("warren: snapshot 快照: %v", err)
		}
		return
	}
	if b.refused != nil {
		b.refusedAsked = asked
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
