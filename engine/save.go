package engine

import (
	"sort"

	"warren/engine/deadline"
)

// timerItem is one timer of the broker's heap.
type timerItem = deadline.Timer[timerRef]

// Saving and loading the whole broker.
//
// Save writes everything that decides what the broker does next: the
// config, the clock, the name generator, every counter that numbers
// things, the vhosts with their exchanges, bindings, queues, policies and
// delayed messages, the connections, channels, consumers and unacked
// deliveries, the armed timers with their arming numbers, the dead
// letters waiting for the next flush, and the work batches left for later
// (bulkend.go, bulkreturn.go, bulkack.go, queuewalk.go, txcommit.go).
// Load builds a broker from it that, given the same later commands and
// AdvanceTo calls, produces exactly the events the saved one would: a
// snapshot plus the log of commands since is the state (raft's snapshot
// and log tail).
//
// What is not saved is what cannot change the events: caches (a channel's
// last exchange, routing memos, the last channel named), routing scratch
// space, the shared-chunk flags of borrowed listings, and the requeue work
// counter tests read. Undrained events and command records are the
// driver's, not state: Save must be called with none pending (after
// DrainEvents and DrainCommands), and panics otherwise, as for any broken
// driver duty.
//
// The form is compact and canonical: varints, strings interned per
// snapshot (save_codec.go), a message shared by several queues written
// once and shared again on Load, and unordered things (maps, heaps) in a
// fixed order, so two brokers in the same state save the same bytes.
//
// Layout (snapshotVersion 3): the header; the config and broker counters;
// the number of vhosts, exchanges, queues, connections, channels and
// consumers; then their records in that order, each naming the others by
// index (so Load makes every object first and links them after); then the
// timers, the pending work, the dead letters, the last death history, the
// management listings, the users with their permissions, the channels'
// direct reply-to consumers, and last the queues' ready messages, queue
// by queue (save_shared.go says why they come last). Objects no longer
// live but still referred to (a deleted queue an unacked delivery came
// from, a closed channel whose returns are under way, a deleted exchange
// holding delayed messages) are saved like live ones and marked so.
//
// Load checks the form of what it reads (lengths, indexes, references,
// that every live object is listed once) and turns any damage into an
// error; it does not re-derive every invariant, so bytes that Save did
// not write may load and misbehave later.
//
// Adding state: a new kind of record (like the users, save_users.go) is
// one more section, a count and its records, written at the end of
// saveBroker (save_records.go) and read at the same place in loadBroker
// (load_records.go), before the queues' ready messages, which stay last
// (readySection, readyMessages); a new field of an object or of Config
// is one more write at the end of its record and one more read at the
// same place.
// Once snapshots are kept anywhere, snapshotVersion goes up with either:
// Load refuses a version it does not know rather than guess, and reads
// an older one as that version wrote it (loader.version).
// TestSaveFieldInventory fails on a field no one has decided about, and
// TestSaveLoadProperty on state a record forgets, as soon as the random
// commands reach it.

// snapshotMagic starts every snapshot.
const snapshotMagic = "WRNS"

// snapshotVersion is the format's version. Load reads it and the
// earlier ones, whose snapshots are still on disk: version 2 added the
// direct reply-to section (save_replyto.go); version 3 moved each queue's
// ready messages from its record to a section of their own at the end.
const snapshotVersion = 3

// Save returns the broker's whole state (see the file comment). There
// must be no undrained events.
func (b *Broker) Save() []byte {
	s := b.save(false)
	s.readySection()
	return s.buf
}

// save writes the snapshot; with share, bodies of at least sharedBodyMin
// bytes are not copied (SaveShared).
func (b *Broker) save(share bool) *saver {
	if b.events.len() > 0 || b.PendingCommands() > 0 {
		panic("engine: Save with undrained events or command records: drain them first")
	}
	if b.replay != nil {
		panic("engine: Save while replaying the durable log: restart first (durable_replay.go)")
	}
	// A message takes about 30 bytes besides its body: start near the
	// size (the totals bound only the start, see newMsgIndex). SaveShared
	// starts near what it writes while the broker is held, the deliveries
	// and delayed messages; finish makes room for the queues' ready
	// messages (readySection).
	index, msgs := b.ready.msgs+b.unacked.msgs+b.delayed.msgs, b.ready.msgs+b.unacked.msgs
	if share {
		index, msgs = b.unacked.msgs+b.delayed.msgs, b.unacked.msgs+b.delayed.msgs
	}
	s := newSaver(b, share, index)
	s.buf = make([]byte, 0, 1024+32*min(max(msgs, 0), 1<<20))
	if share {
		// Two pieces for each body shared, which the bytes bound too.
		s.pieces = make([][]byte, 0, 1+2*min(max(msgs, 0), 1<<20, max(b.unacked.bytes+b.delayed.bytes, 0)/sharedBodyMin))
	}
	s.collect()
	s.saveBroker()
	if s.err != nil {
		// A table value no AMQP field type maps to: a driver's bug.
		panic("engine: Save: " + s.err.Error())
	}
	return s
}

// saver numbers the objects a snapshot names and writes them.
type saver struct {
	encoder
	b *Broker

	vhosts    []*vhost
	exchanges []*exchange
	queues    []*queue
	conns     []*connection
	chans     []*channel
	consumers []*consumer
	vhostIx   map[*vhost]int
	xIx       map[*exchange]int
	qIx       map[*queue]int
	connIx    map[*connection]int
	chanIx    map[*channel]int
	conIx     map[*consumer]int

	msgs   *msgIndex
	extras map[*msgExtra]uint64
	// propsIx numbers the headerless Properties written so far; nil for
	// an encoding whose every record stands alone (the durable log's
	// entries), where nothing would be found again: a propsKey is over
	// 128 bytes, so a map stores it apart and each insert allocates.
	propsIx map[propsKey]uint64
	// lastProps is the last headerless Properties written, and its number.
	lastProps   *Properties
	lastPropsIx uint64
	vias        map[*Via]uint64
	lastID      uint64 // the last message id written, for deltas
	ends        map[*queueWalk]int

	// share, pieces and cut are SaveShared's (save_shared.go).
	share  bool
	pieces [][]byte
	cut    int
	// readyQs are the queues in the order of their records, whose ready
	// messages Save writes in the section at the end; for SaveShared,
	// ready holds copies of them, made as each record is written.
	readyQs []*queue
	ready   []storeCopy
}

// newSaver makes a saver whose message index starts with room for about
// indexHint messages.
func newSaver(b *Broker, share bool, indexHint int64) *saver {
	return &saver{
		share:   share,
		encoder: newSnapshotEncoder(),
		b:       b,
		vhostIx: map[*vhost]int{}, xIx: map[*exchange]int{}, qIx: map[*queue]int{},
		connIx: map[*connection]int{}, chanIx: map[*channel]int{}, conIx: map[*consumer]int{},
		msgs:   newMsgIndex(indexHint),
		extras: map[*msgExtra]uint64{}, vias: map[*Via]uint64{}, propsIx: map[propsKey]uint64{},
		ends: map[*queueWalk]int{},
	}
}

func (s *saver) addVhost(v *vhost) {
	if _, ok := s.vhostIx[v]; !ok {
		s.vhostIx[v] = len(s.vhosts)
		s.vhosts = append(s.vhosts, v)
	}
}

func (s *saver) addExchange(x *exchange) {
	if _, ok := s.xIx[x]; !ok {
		s.xIx[x] = len(s.exchanges)
		s.exchanges = append(s.exchanges, x)
	}
}

func (s *saver) addQueue(q *queue) {
	if _, ok := s.qIx[q]; !ok {
		s.qIx[q] = len(s.queues)
		s.queues = append(s.queues, q)
	}
}

func (s *saver) addConn(c *connection) {
	if _, ok := s.connIx[c]; !ok {
		s.connIx[c] = len(s.conns)
		s.conns = append(s.conns, c)
	}
}

func (s *saver) addChan(ch *channel) {
	if _, ok := s.chanIx[ch]; !ok {
		s.chanIx[ch] = len(s.chans)
		s.chans = append(s.chans, ch)
	}
}

func (s *saver) addConsumer(c *consumer) {
	if c == nil {
		return
	}
	if _, ok := s.conIx[c]; !ok {
		s.conIx[c] = len(s.consumers)
		s.consumers = append(s.consumers, c)
	}
}

func (s *saver) addDelivery(d *delivery) {
	s.addQueue(d.q)
	s.addConsumer(d.c)
}

// collect numbers every object the snapshot names: the live ones in a
// fixed order (vhosts by name, their exchanges and queues in listing
// order, connections by id, channels by number), then, in the order they
// are reached, those no longer live that something still refers to.
func (s *saver) collect() {
	b := s.b
	for _, name := range b.Vhosts() {
		s.addVhost(b.vhosts[name])
	}
	for _, id := range b.connIDs() {
		s.addConn(b.conns[id])
	}
	for _, t := range s.sortedTimers() {
		if t.Value.kind == timerDelayed {
			s.addExchange(t.Value.d.x)
		}
	}
	for _, end := range b.ends {
		if end.ch != nil {
			s.addChan(end.ch)
		}
		for i := 0; i < end.acked.len(); i++ {
			s.addDelivery(end.acked.at(i))
		}
		for _, q := range end.then {
			s.addQueue(q)
		}
		for _, q := range end.autoDelete {
			s.addQueue(q)
		}
		if end.walk != nil {
			s.addVhost(end.walk.v)
		}
		if end.dl != nil {
			s.addVhost(end.dl.vhost)
		}
	}
	for _, p := range b.pendingDL {
		s.addVhost(p.vhost)
	}
	// Scan what each object refers to until nothing new turns up.
	var nv, nx, nq, nc, nch, ncon int
	for nv < len(s.vhosts) || nx < len(s.exchanges) || nq < len(s.queues) || nc < len(s.conns) || nch < len(s.chans) || ncon < len(s.consumers) {
		for ; nv < len(s.vhosts); nv++ {
			v := s.vhosts[nv]
			eachListed(&v.counts.exchangeNames, func(n string) { s.addExchange(v.exchanges[n]) })
			eachListed(&v.counts.queueNames, func(n string) { s.addQueue(v.queues[n]) })
		}
		for ; nx < len(s.exchanges); nx++ {
			x := s.exchanges[nx]
			s.addVhost(x.vhost)
			for _, bd := range x.bindings {
				if bd.dst.q != nil {
					s.addQueue(bd.dst.q)
				} else {
					s.addExchange(bd.dst.x)
				}
			}
		}
		for ; nq < len(s.queues); nq++ {
			q := s.queues[nq]
			s.addVhost(q.vhost)
			if q.owner != nil {
				s.addConn(q.owner)
			}
			for _, c := range q.consumers {
				s.addConsumer(c)
			}
			s.addConsumer(q.exclusiveC)
			s.addConsumer(q.active)
		}
		for ; nc < len(s.conns); nc++ {
			c := s.conns[nc]
			s.addVhost(c.vhost)
			for _, n := range sortedChannelNums(c) {
				s.addChan(c.channels[n])
			}
		}
		for ; nch < len(s.chans); nch++ {
			s.scanChannel(s.chans[nch])
		}
		for ; ncon < len(s.consumers); ncon++ {
			c := s.consumers[ncon]
			s.addChan(c.ch)
			s.addQueue(c.q)
		}
	}
}

func (s *saver) scanChannel(ch *channel) {
	s.addConn(ch.conn)
	for _, c := range ch.consumerOrder {
		s.addConsumer(c)
	}
	for i := 0; i < ch.unacked.len(); i++ {
		s.addDelivery(ch.unacked.at(i))
	}
	for _, p := range ch.txPubs {
		s.addExchange(p.x)
	}
	for i := range ch.txAcks {
		s.addDelivery(&ch.txAcks[i].d)
	}
	if c := ch.commit; c != nil {
		for _, p := range c.pubs[min(c.next, len(c.pubs)):] {
			s.addExchange(p.x)
		}
		for i := max(0, c.next-len(c.pubs)); i < len(c.acks); i++ {
			s.addDelivery(&c.acks[i].d)
		}
		for _, q := range c.queues {
			s.addQueue(q)
		}
	}
}

// eachListed calls fn for a listing's items in order.
func eachListed[T any](l *listing[T], fn func(T)) {
	for _, c := range l.chunks {
		for _, v := range c {
			fn(v)
		}
	}
}

// sortedTimers returns the armed timers in firing order, which is the
// order they are saved in: a sorted array is already a heap, and the
// order does not depend on how the heap happens to be laid out.
//
// Idle ack timers are left out (and channels saved as having none; see
// armAckTimer): an idle timer never fires and a delivery re-arms it
// exactly as it arms a dropped one, but whether one is still in the heap
// depends on reads (NextDeadline drops those it meets), which no command
// log records. Leaving them out makes Save a function of the commands
// applied, so that a session's replicas can compare state hashes.
func (s *saver) sortedTimers() []*timerItem {
	items := s.b.timers.Items()
	out := make([]*timerItem, 0, len(items))
	for _, t := range items {
		if !idleTimer(t.Value) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return deadlineLess(out[i], out[j]) })
	return out
}
