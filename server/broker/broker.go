package broker

import (
	"errors"
	"runtime"
	"sync"
	"time"

	"warren/driver/sink"
	"warren/engine"
	"warren/server/store"
)

// Broker serialises access to one engine.Broker: one request at a time,
// under mu.
type Broker struct {
	done  chan struct{}
	start time.Time
	now   func() time.Time
	// kick wakes the timer goroutine (loop) when a request left it work:
	// a deadline earlier than the one it waits for, a backlog, a clock
	// moving or a clock request to answer.
	kick chan struct{}

	// mu is held by whoever runs the engine; everything below is theirs.
	mu      sync.Mutex
	stopped bool
	// armed says the loop waits for the deadline armedAt.
	armed   bool
	armedAt engine.Time
	eng     *engine.Broker
	sinks   map[engine.ConnID]attached
	// wanted is the union of the kinds the sinks want (kinds.go).
	wanted     sink.Kinds
	observers  map[int]sink.Sink
	watchers   map[int]func(engine.MessageTotals)
	nextObs    int
	dispatchFn func([]engine.Event) // dispatchBatch, bound once
	// byConn sorts a command's events by connection when they belong to
	// several (a fanout's deliveries). Its slices are kept between commands,
	// emptied rather than deleted, so that sorting allocates nothing once
	// warm; touched lists the connections the current command filled.
	byConn  map[engine.ConnID][]engine.Event
	touched []engine.ConnID

	// st keeps the command log and snapshots on disk, and dur says how
	// far it got (durable.go); both nil when the broker keeps its state
	// in memory only.
	st        Log
	dur       *durability
	persistFn func([]byte) // persistRecord, bound once
	lastPos   store.Pos    // the position of the last record appended
	// refused is the store's refusal of a record (persistRecord): from
	// then on nothing is confirmed and publishers are blocked.
	refused error
	blocked bool // diskState has told the hooks the disk blocks publishers
	// refusedAsked is when the store last took a snapshot to hold it
	// (maybeSnapshot).
	refusedAsked time.Time
	storeErr     error // the store's write error as last told to the hooks
	lowDisk      error // the store's low-disk state (*store.LowDiskError), likewise
	diskHooks    []func(error)

	clk clock // the clock's mode and where it is going (clock.go)

	onArm func(at time.Time, ok bool) // Options.OnArm

	stopOnce sync.Once
}

// ErrStopped is returned by Apply, ApplyOne, OpenConnection, Visit and
// the Reader after Stop.
var ErrStopped = errors.New("broker stopped")

// Options configure a broker at start.
type Options struct {
	// Now is the wall clock; time.Now when nil.
	Now func() time.Time
	// Clock is the clock's mode at start (clock.go); live by default.
	Clock ClockMode
	// Store, when set, keeps the durable log and snapshots (durable.go):
	// the broker appends what a restart keeps to it.
	Store Log
	// OnArm, when set, is told the wall time of the engine's next
	// deadline whenever the broker's timer is set for a different one
	// (ok false: none): a Durable Object sets its alarm from it, so that
	// a TTL fires with the object out of memory. It runs on the timer's
	// goroutine, outside the lock.
	OnArm func(at time.Time, ok bool)
}

// Start starts a broker around a new engine, with the broker's timer
// goroutine running (requests run on their callers' goroutines, under the
// lock). now is the wall clock (time.Now when nil); engine time is
// milliseconds since Start.
func Start(cfg engine.Config, now func() time.Time) *Broker {
	return StartWith(cfg, Options{Now: now})
}

// StartWith starts a broker around a new engine, as Start does, with the
// clock mode (and store) of opts.
func StartWith(cfg engine.Config, opts Options) *Broker {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg.EpochMs = opts.Now().UnixMilli()
	return run(engine.New(cfg), opts)
}

// StartDurable starts a broker around eng, rebuilt from opts.Store by
// Recover, as Start does, and logs to the store what a restart keeps of
// what it applies (durable.go), starting with the records of the restart
// Recover applied.
func StartDurable(eng *engine.Broker, opts Options) *Broker {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return run(eng, opts)
}

func run(eng *engine.Broker, opts Options) *Broker {
	b := &Broker{
		kick:      make(chan struct{}, 1),
		done:      make(chan struct{}),
		now:       opts.Now,
		start:     time.UnixMilli(eng.Config().EpochMs),
		eng:       eng,
		sinks:     map[engine.ConnID]attached{},
		observers: map[int]sink.Sink{},
		watchers:  map[int]func(engine.MessageTotals){},
		byConn:    map[engine.ConnID][]engine.Event{},
	}
	b.dispatchFn = b.dispatchBatch
	b.onArm = opts.OnArm
	b.startClock(opts.Clock)
	if st := opts.Store; st != nil {
		b.st, b.dur = st, newDurability()
		b.persistFn = b.persistRecord
		// The engine logs what a restart keeps (engine/durable.go):
		// Recover turned that on before its restart, whose records come
		// first. No checkpoint of the whole state: the snapshot and log
		// the broker was recovered from, with those records, are its
		// state (a start of a broker holding a million messages writes
		// only what its restart changed).
		b.eng.EnableDurableLog()
		b.eng.DrainCommands(func([]byte) {})
		b.eng.DrainDurable(b.persistFn)
		st.Wake()
		// The disk's state at start is read here, before any connection
		// can publish: a broker started below the disk-free limit blocks
		// its first publish, not only those after forwardSyncs wakes.
		// No hook is registered yet: OnDiskError tells each at once.
		b.diskState(st.Err(), st.LowDisk())
		go b.forwardSyncs(b.storeErr, b.lowDisk)
	}
	b.eng.DrainEvents(nil)
	go b.loop()
	return b
}

// kickIfDue wakes the timer goroutine when the request just run left it
// something to do: a deadline earlier than the one it waits for (a
// message with a TTL, say), a backlog, a paused or manual clock on its
// way to a target, or a clock request to answer. Otherwise the loop sleeps
// on, and a stream of publishes costs it nothing.
func (b *Broker) kickIfDue() {
	due := b.clockBehind() || len(b.clk.waiters) > 0
	if at, ok := b.eng.NextDeadline(); ok && b.clk.mode == ClockLive && (!b.armed || at < b.armedAt || at <= b.eng.Now()) {
		due = true
	}
	if due {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
}

// Attach routes the events of connection id to s (replacing any sink).
func (b *Broker) Attach(id engine.ConnID, s sink.Sink) {
	b.locked(func() {
		b.sinks[id] = attach(s)
		b.wanted = b.wantedKinds()
	})
}

// Detach stops routing connection id's events.
func (b *Broker) Detach(id engine.ConnID) {
	b.locked(func() {
		delete(b.sinks, id)
		delete(b.byConn, id)
		b.wanted = b.wantedKinds()
	})
}

// Observe sends every event to s until the returned cancel is called.
func (b *Broker) Observe(s sink.Sink) (cancel func()) {
	var id int
	b.locked(func() {
		b.nextObs++
		id = b.nextObs
		b.observers[id] = s
	})
	return func() { b.locked(func() { delete(b.observers, id) }) }
}

// WatchTotals tells f the engine's message totals after every batch of
// events until the returned cancel is called: the memory alarm compares
// them with its watermark (driver/conn/alarm.go). f runs under the lock,
// as a sink does, and is given the totals, not the engine.
func (b *Broker) WatchTotals(f func(engine.MessageTotals)) (cancel func()) {
	var id int
	b.locked(func() {
		b.nextObs++
		id = b.nextObs
		b.watchers[id] = f
	})
	return func() { b.locked(func() { delete(b.watchers, id) }) }
}

// Stop stops the broker: the timer goroutine ends, and requests from now
// on, and those waiting for the lock, return ErrStopped. Stop waits for a
// request under way to finish.
func (b *Broker) Stop() {
	b.stopOnce.Do(func() {
		b.mu.Lock()
		b.stopped = true
		close(b.done)
		b.mu.Unlock()
	})
}

// Done is closed when the broker has stopped.
func (b *Broker) Done() <-chan struct{} { return b.done }

// engineNow is the time the clock shows: in live mode the wall clock on
// the engine's clock plus the offset (clock.go), in paused and manual mode
// the time it is moving to. It never goes back, even if the wall clock
// does (across a restart, say).
func (b *Broker) engineNow() engine.Time {
	if b.clk.mode != ClockLive {
		return max(b.clk.target, b.eng.Now())
	}
	return max(engine.Time(b.wallMs()+b.clk.offsetMs), b.eng.Now())
}

// loop is the broker's timer goroutine: it takes the lock when the
// engine's next deadline arrives or a request kicks it, fires what is due,
// answers clock requests, and sleeps until the next deadline.
func (b *Broker) loop() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	// told and toldAt are what onArm was last told.
	var told bool
	var toldAt engine.Time
	for {
		b.mu.Lock()
		if b.stopped {
			b.mu.Unlock()
			return
		}
		b.eng.AdvanceTo(b.clockTarget())
		b.persist()
		b.dispatch()
		b.maybeSnapshot()
		b.handOffLog(false)
		if at, ok := b.eng.NextDeadline(); ok && at <= b.eng.Now() || b.clockBehind() {
			// A backlog is being worked off, a batch per AdvanceTo
			// (engine/backlog.go), or a paused or manual clock is
			// moving to its target a deadline at a time (clock.go):
			// let the requests waiting for the lock run before the
			// next step. The clock stays where the backlog holds it,
			// as AdvanceTo would leave it.
			b.mu.Unlock()
			runtime.Gosched()
			continue
		}
		b.releaseClock()
		b.armed = false
		var d time.Duration = -1
		if at, ok := b.eng.NextDeadline(); ok && b.clk.mode == ClockLive {
			d = time.Duration(at-b.engineNow()) * time.Millisecond
			if d < 0 {
				d = 0
			}
			b.armed, b.armedAt = true, at
		}
		armedAt := b.armedAt
		b.mu.Unlock()
		if d >= 0 {
			timer.Reset(d)
		}
		if b.onArm != nil && ((d >= 0) != told || d >= 0 && armedAt != toldAt) {
			told, toldAt = d >= 0, armedAt
			b.onArm(time.Now().Add(d), told)
		}
		select {
		case <-b.kick:
			timer.Stop()
		case <-timer.C:
		case <-b.done:
			timer.Stop()
			return
		}
	}
}

// dispatch drains the engine's events and hands them to sinks: each
// connection's sink gets its own events, in order; observers get all. The
// engine hands them over in place (DrainEventsTo), so a burst that concerns
// no connection (100,000 messages expiring into a dead-letter queue) is
// never copied.
func (b *Broker) dispatch() { b.eng.DrainEventsTo(b.dispatchFn) }

// oneConnection reports whether the events of a kind some sink wants all
// belong to one connection, first (0 when there are none).
func (b *Broker) oneConnection(events []engine.Event) (first engine.ConnID, one bool) {
	for i := range events {
		ev := &events[i]
		if ev.Channel.Conn == 0 || !b.wanted.Has(ev.Kind) {
			continue
		}
		if first == 0 {
			first = ev.Channel.Conn
		} else if ev.Channel.Conn != first {
			return 0, false
		}
	}
	return first, true
}

// allOf reports whether every event belongs to connection id.
func allOf(events []engine.Event, id engine.ConnID) bool {
	for i := range events {
		if events[i].Channel.Conn != id {
			return false
		}
	}
	return true
}

// dispatchBatch dispatches one batch of events (see dispatch).
func (b *Broker) dispatchBatch(events []engine.Event) {
	for _, o := range b.observers {
		o.Events(events)
	}
	if len(b.watchers) > 0 {
		t := b.eng.MessageTotals()
		for _, w := range b.watchers {
			w(t)
		}
	}
	// Most commands' events concern one connection: hand them over
	// without sorting (kinds.go).
	if first, one := b.oneConnection(events); one {
		a, ok := b.sinks[first]
		if !ok {
			return // no sink wants any of them, or first's is gone
		}
		if a.filtered || allOf(events, first) {
			a.s.Events(events)
			return
		}
	}
	for i := range events {
		id := events[i].Channel.Conn
		if id == 0 || !b.wanted.Has(events[i].Kind) {
			continue
		}
		evs, ok := b.byConn[id]
		if len(evs) == 0 {
			if _, listens := b.sinks[id]; !ok && !listens {
				continue // nobody listens (a connection being torn down)
			}
			b.touched = append(b.touched, id)
		}
		b.byConn[id] = append(evs, events[i])
	}
	for _, id := range b.touched {
		evs := b.byConn[id]
		if a, ok := b.sinks[id]; ok {
			a.s.Events(evs)
		}
		clear(evs)
		b.byConn[id] = evs[:0]
	}
	b.touched = b.touched[:0]
}
