package engine

import (
	"sort"

	"warren/engine/deadline"
)

// Config sets the broker's fixed parameters.
type Config struct {
	// Seed seeds the generator for server-chosen names (amq.gen-…,
	// amq.ctag-…). The same seed gives the same names.
	Seed uint64
	// ConsumerTimeoutMs is RabbitMQ's consumer_timeout: a delivery not
	// acknowledged within it closes its channel with 406. Zero means the
	// RabbitMQ default of 30 minutes; negative disables the timeout.
	ConsumerTimeoutMs int64
	// EpochMs is the Unix time, in milliseconds, of engine time 0. The
	// engine's clock starts at 0 so scripts and the playground read
	// naturally; timestamps that leave the engine (x-death's time) add
	// this. A wall-clock driver sets it to its start time.
	EpochMs int64
	// MaxQueuesPerVhost and MaxMessagesPerVhost limit what one vhost may
	// hold (RabbitMQ's vhost max-queues limit, and a ready-message cap);
	// zero means unlimited. Past them queue.declare and basic.publish fail
	// with 406 and nothing already accepted is lost.
	MaxQueuesPerVhost   int
	MaxMessagesPerVhost int64
	// MaxDeadLetterHops bounds how many times one AdvanceTo or command may
	// re-dead-letter the same message in a chain (a limit, not a rule: real
	// cycles are cut by the x-death rule first). Zero means 1000.
	MaxDeadLetterHops int
	// MaxBatch bounds how many messages one engine call delivers from a
	// queue to its consumers, expires from it when its message-TTL timer
	// fires, or reports purged, discarded or overflowed (and
	// dead-lettered) when it is purged, deleted or cut to a length limit,
	// and how many queues a policy change or a vhost deletion visits
	// (queuewalk.go); more continue in later calls (see backlog.go). Zero
	// means DefaultMaxBatch.
	MaxBatch int
	// RecordCommands makes Apply log every command it applies, for the
	// driver to take with DrainCommands: the broker's history as data, to
	// persist or to send to replicas (command_log.go).
	RecordCommands bool
}

// DefaultConsumerTimeoutMs is RabbitMQ's default consumer_timeout (30 min).
const DefaultConsumerTimeoutMs = 30 * 60 * 1000

// Broker is the whole broker as a deterministic state machine. It is not
// safe for concurrent use: one owner drives it.
//
// The driver's duties:
//  1. Call AdvanceTo(now) before each command, with a non-decreasing now,
//     and again whenever NextDeadline is reached.
//  2. After every command or AdvanceTo, drain the events with DrainEvents
//     and handle every one of them, in order.
//  3. Treat a returned *Error as an AMQP exception: the engine has already
//     closed the channel (or connection) it names.
//  4. With Config.RecordCommands, drain the command records with
//     DrainCommands too: every input goes through Apply, and the records
//     replay to this same broker (command.go).
type Broker struct {
	cfg    Config
	now    Time
	rng    uint64
	events eventLog
	cmds   commandLog
	// dlog is the durable log, nil unless EnableDurableLog turned it on
	// (durable.go); orphans are the held copies of a broker being
	// recovered (durable_replay.go).
	dlog *durableLog
	// restarting is set while a restart brings deliveries back.
	restarting bool
	replay     *durableReplay

	vhosts map[string]*vhost
	users  userDB // users and their permissions (users.go)
	conns  map[ConnID]*connection
	chans  map[ChannelID]*channel
	// lastChan is the channel the last command named: a driver usually
	// sends runs of commands on one channel, and this saves the map lookup.
	lastChan *channel
	timers   deadline.Heap[timerRef]
	// connRefs and chanRefs list the open connections and channels for
	// the management API (see listing).
	connRefs listing[ConnRef]
	chanRefs listing[ChannelRef]
	nextCon  ConnID
	nextMsg  uint64

	pendingDL []pendingDeadLetter
	// ends are purged or deleted queues' messages whose events are still
	// to come, and other work left for later calls, oldest first
	// (bulkend.go); endsTimer continues them. They are pointers because
	// a step of one may hold another (a requeue dropping many from a
	// queue's head), which may move the slice.
	ends      []*bulkEnd
	endsTimer deadline.Timer[timerRef]
	ready     tally // ready messages in every queue
	unacked   tally // deliveries awaiting acknowledgement, on every channel
	delayed   tally // messages held by delayed-message exchanges
	// lastDLSource is shared by consecutive deaths from the same queue.
	lastDLSource *deadLetterSource
	// lastDeath is the last death history built, shared by the next
	// dead-lettered message that would get an identical one.
	lastDeath    *msgExtra
	lastDeathKey deathKey
	consumerSeq  uint64
	// bindingSerial numbers bindings as they are created (see binding).
	bindingSerial uint64

	// Routing scratch space, reused so that routing does not allocate.
	routeGen     uint64
	routeWork    []routeStep
	topicScratch []*binding
	queueScratch []target
	// delayedCount counts messages ever held by delayed-message exchanges,
	// so a caller of route can tell that an empty route held the message.
	delayedCount uint64
}

// New returns an empty broker with the default vhost "/" and its predeclared
// exchanges.
func New(cfg Config) *Broker {
	if cfg.ConsumerTimeoutMs == 0 {
		cfg.ConsumerTimeoutMs = DefaultConsumerTimeoutMs
	}
	if cfg.MaxDeadLetterHops == 0 {
		cfg.MaxDeadLetterHops = 1000
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	b := &Broker{
		cfg:    cfg,
		rng:    cfg.Seed ^ 0x9E3779B97F4A7C15,
		vhosts: map[string]*vhost{},
		conns:  map[ConnID]*connection{},
		chans:  map[ChannelID]*channel{},
	}
	b.addVhost("/")
	b.events = eventLog{}
	return b
}

// Now returns the broker's current virtual time.
func (b *Broker) Now() Time { return b.now }

// DrainEvents appends the pending events to dst, clears them and returns
// the extended slice. Passing the previous slice re-sliced to zero length
// reuses its memory: the engine may then return its own buffer and keep
// dst's to fill next, so the events are not copied. Either way the returned
// slice is the caller's until it is passed back.
func (b *Broker) DrainEvents(dst []Event) []Event { return b.events.drain(dst) }

// DrainEventsTo hands the pending events to fn, in order, in one or more
// batches, and clears them. Nothing is copied: a burst of millions of
// events (a queue's worth expiring at once) is handed over in the chunks it
// was recorded in. The slices belong to the engine and are valid only
// until fn returns. fn may call the engine; the events that causes wait
// for the next drain.
func (b *Broker) DrainEventsTo(fn func([]Event)) { b.events.drainTo(fn) }

// PendingEvents returns the number of undrained events.
func (b *Broker) PendingEvents() int { return b.events.len() }

func (b *Broker) emit(e Event) {
	e.Time = b.now
	b.events.add(e)
}

// emitted appends an event of kind k at the current time and returns it, to
// be filled in before anything else is emitted. The per-message paths use
// it rather than emit: an Event is large, and filling it in place saves
// building it and copying it twice.
func (b *Broker) emitted(k EventKind) *Event {
	e := b.events.next()
	e.Kind, e.Time = k, b.now
	return e
}

// random returns the next value of a splitmix64 sequence seeded by
// Config.Seed.
func (b *Broker) random() uint64 {
	b.rng += 0x9E3779B97F4A7C15
	z := b.rng
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

const nameAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// genName returns prefix followed by 22 URL-safe characters, the shape of
// RabbitMQ's amq.gen-… and amq.ctag-… names.
func (b *Broker) genName(prefix string) string {
	buf := make([]byte, 0, len(prefix)+22)
	buf = append(buf, prefix...)
	var r uint64
	for i := 0; i < 22; i++ {
		if i%10 == 0 {
			r = b.random()
		}
		buf = append(buf, nameAlphabet[r&63])
		r >>= 6
	}
	return string(buf)
}

func (b *Broker) newMsgID() uint64 {
	b.nextMsg++
	return b.nextMsg
}

// timerKind says which rule a timer belongs to.
type timerKind uint8

const (
	timerQueueExpiry   timerKind = iota + 1 // message TTL at a queue head
	timerQueueLease                         // x-expires
	timerDelayed                            // delayed-exchange release
	timerAckTimeout                         // consumer_timeout on a channel
	timerQueueDispatch                      // deliveries left over by a batch
	timerBulkEnd                            // purged or discarded messages' events left over
)

// timerRef is a timer's payload: which rule and whose.
type timerRef struct {
	kind timerKind
	q    *queue
	ch   *channel
	d    *delayedMsg
	// armedDue says the timer was armed at or before the current time:
	// it is a continuation (see AdvanceTo), not a deadline.
	armedDue bool
}

// NextDeadline returns when the next timer fires, and false if none is armed.
func (b *Broker) NextDeadline() (Time, bool) {
	t := b.peekLive()
	if t == nil {
		return 0, false
	}
	return Time(t.At), true
}

// peekLive returns the earliest timer that will really fire, first dropping
// idle ack timers from the top of the heap (see armAckTimer).
func (b *Broker) peekLive() *deadline.Timer[timerRef] {
	for {
		t := b.timers.Peek()
		if t == nil || !idleTimer(t.Value) {
			return t
		}
		b.timers.Remove(t)
		t.Value.ch.ackIdle = false
	}
}

func (b *Broker) advanceTo(t Time) {
	t = min(t, MaxTime)
	armedBefore := b.timers.LastSeq()
	for {
		top := b.peekLive()
		if top == nil || Time(top.At) > t {
			break
		}
		if top.Value.armedDue && top.Seq() > armedBefore {
			return // a continuation: the next call fires it
		}
		if Time(top.At) > b.now {
			b.now = Time(top.At)
		}
		b.timers.Remove(top)
		b.fire(top.Value)
	}
	if t > b.now {
		b.now = t
	}
}

func (b *Broker) step() (Time, bool) {
	t, ok := b.NextDeadline()
	if !ok || t > MaxTime {
		return b.now, false
	}
	if t < b.now {
		t = b.now
	}
	b.advanceTo(t)
	return t, true
}

func (b *Broker) fire(r timerRef) {
	switch r.kind {
	case timerQueueExpiry, timerQueueLease, timerQueueDispatch:
		b.fireQueue(r)
	case timerBulkEnd:
		b.continueEnds()
	case timerDelayed:
		b.releaseDelayed(r.d)
	case timerAckTimeout:
		r.ch.ackTimedOut()
	}
}

// fireQueue fires one of a queue's timers. A policy change not yet
// applied to the queue applies first; a queue whose vhost is being
// deleted waits for its deletion (queuewalk.go).
func (b *Broker) fireQueue(r timerRef) {
	q := r.q
	if q.vhost.deleted {
		return
	}
	switch r.kind {
	case timerQueueExpiry:
		q.current()
		if q.expireDue() {
			// Deliveries wait until every due message has gone: no
			// consumer may receive one that expired before it.
			q.dispatch()
		}
		b.flush()
	case timerQueueDispatch:
		q.dispatch()
		b.flush()
	case timerQueueLease:
		if expires := q.set.expiresMs; q.policyGen != q.vhost.policyGen {
			q.current()
			if q.set.expiresMs != expires {
				// The change started a lease of its own.
				b.flush()
				return
			}
		}
		q.leaseLapsed()
	}
}

// PendingTimer is one armed timer, for snapshots and "what happens next".
type PendingTimer struct {
	At      Time
	Kind    string // "message-ttl", "queue-expires", "delayed-release", "consumer-timeout", "dispatch", "bulk-end"
	Vhost   string
	Queue   string
	Channel ChannelID
	MsgID   uint64
}

// TimersUntil lists the armed timers due at or before at, in firing order,
// at most n of them (all when n <= 0), and says how many there are. The
// first few of 100,000 (what a page shows, "what happens next") cost a
// pass over the timers, not a sort of them all.
func (b *Broker) TimersUntil(at Time, n int) ([]PendingTimer, int) {
	items := b.timers.Items()
	var sorted []*deadline.Timer[timerRef]
	count := 0
	for _, t := range items {
		if idleTimer(t.Value) || Time(t.At) > at {
			continue
		}
		count++
		sorted = keepFirst(sorted, t, n)
	}
	sort.SliceStable(sorted, func(i, j int) bool { return deadlineLess(sorted[i], sorted[j]) })
	out := make([]PendingTimer, 0, len(sorted))
	for _, t := range sorted {
		p := PendingTimer{At: Time(t.At)}
		r := t.Value
		switch r.kind {
		case timerQueueExpiry:
			p.Kind, p.Vhost, p.Queue = "message-ttl", r.q.vhost.name, r.q.name
			if e := r.q.nextExpiring(); e != nil {
				p.MsgID = e.msg.ID
			}
		case timerQueueLease:
			p.Kind, p.Vhost, p.Queue = "queue-expires", r.q.vhost.name, r.q.name
		case timerQueueDispatch:
			p.Kind, p.Vhost, p.Queue = "dispatch", r.q.vhost.name, r.q.name
		case timerBulkEnd:
			p.Kind = "bulk-end"
			if len(b.ends) > 0 {
				// (The timer stays armed, with nothing left, when a
				// continuation's own batch held more work and finished it.)
				p.Vhost, p.Queue = b.ends[0].vhost, b.ends[0].queue
			}
		case timerDelayed:
			p.Kind, p.Vhost, p.MsgID = "delayed-release", r.d.x.vhost.name, r.d.msg.ID
			p.Queue = r.d.x.name
		case timerAckTimeout:
			p.Kind, p.Channel = "consumer-timeout", r.ch.id
			p.Vhost = r.ch.conn.vhost.name
		}
		out = append(out, p)
	}
	return out, count
}

// keepFirst adds t to first, which holds at most n timers (any number when
// n <= 0): past n, a max-heap by firing order whose top, the latest, makes
// room for t when t fires before it.
func keepFirst(first []*deadline.Timer[timerRef], t *deadline.Timer[timerRef], n int) []*deadline.Timer[timerRef] {
	less := func(i, j int) bool { return deadlineLess(first[j], first[i]) } // max-heap
	switch {
	case n <= 0:
		return append(first, t)
	case len(first) < n:
		first = append(first, t)
		for i := len(first) - 1; i > 0; {
			p := (i - 1) / 2
			if !less(i, p) {
				break
			}
			first[i], first[p] = first[p], first[i]
			i = p
		}
		return first
	case !deadlineLess(t, first[0]):
		return first
	}
	first[0] = t
	for i := 0; ; {
		l, r, top := 2*i+1, 2*i+2, i
		if l < len(first) && less(l, top) {
			top = l
		}
		if r < len(first) && less(r, top) {
			top = r
		}
		if top == i {
			return first
		}
		first[i], first[top] = first[top], first[i]
		i = top
	}
}

// deadlineLess orders timers as the heap does; used only for listing.
func deadlineLess(a, b *deadline.Timer[timerRef]) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.Seq() < b.Seq()
}

// Config returns the broker's configuration (with its defaults filled
// in): a driver restoring a saved broker reads its epoch from it.
func (b *Broker) Config() Config { return b.cfg }

// Limits are the operator's per-vhost limits (see Config), which may change
// over a broker's life: a restored broker keeps its saved Config, and the
// operator restarts it with new flags.
type Limits struct {
	MaxQueuesPerVhost   int
	MaxMessagesPerVhost int64
}

// Limits returns the limits in force.
func (b *Broker) Limits() Limits {
	return Limits{MaxQueuesPerVhost: b.cfg.MaxQueuesPerVhost, MaxMessagesPerVhost: b.cfg.MaxMessagesPerVhost}
}
