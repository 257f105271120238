package engine

// The durable log: what a data directory needs to bring back what a
// restart keeps, and nothing else.
//
// A broker with a data directory used to log every command it applied,
// and rebuild itself by replaying them all before applying the restart's
// rules (restart.go). Most of that work is thrown away by the restart:
// transient messages, non-durable and exclusive queues, connections,
// channels, consumers and the deliveries and acknowledgements of
// messages no restart keeps. So 100,000 transient messages through a
// non-durable queue cost 5.7 MB of log and 902 fsyncs for nothing.
//
// Filtering the commands cannot help: a command's meaning depends on
// transient context (an ack names a delivery tag on a channel; a
// transient publish may push a persistent message out of a durable
// queue with a length limit; a route to a durable queue may pass a
// transient exchange). So with durable logging on (EnableDurableLog, the
// server's choice: a broker without one does none of this), the engine
// writes, while it applies a command, what it did to the state a
// restart keeps, as records that need no context (durable_cmds.go):
//
//   - a kept message copy (survives: a persistent message in a durable
//     queue, any message in a quorum queue) put into a queue's ready
//     messages (CmdDurablePut: published, dead-lettered into it,
//     requeued), taken out of them (CmdDurableTake: delivered, fetched,
//     expired, dropped by a length limit, purged), held unacknowledged
//     by a channel (CmdDurableHold) and ended there (CmdDurableDone),
//     each naming the queue by vhost and name and the copy by its
//     arrival number;
//   - the clock, before the records of a command that moved it
//     (CmdDurableClock), so that a recovered broker has the time of its
//     last durable change;
//   - the definitions that need no context and change no message (users,
//     permissions, a new vhost, limits): their commands;
//   - durable queues and exchanges declared and deleted, and bindings
//     whose both ends are durable made and removed (CmdDurableQueue,
//     CmdDurableBind, ...), and the messages a delayed-message exchange
//     holds, which all survive, held and released (CmdDurableDelay,
//     CmdDurableRelease);
//   - a policy set or cleared (CmdDurablePolicy): the definition alone,
//     which changes no queue on replay. A policy change reaches a
//     vhost's queues one batch at a time (queuewalk.go), and each
//     durable queue it reaches writes CmdDurableRetime, on which a replay
//     resolves the queue's settings again and re-times its ready copies
//     by them, as the change did; what the change then expired, dropped
//     and dead-lettered are the Take and Put records that follow, as for
//     any other cause. A queue the walk had not reached when the broker
//     stopped takes the change up at the restart (restart.go), as the
//     walk's end does on a broker that never stopped. A policy at
//     100,000 queues writes a record per durable queue and per message
//     it drops, not the whole state;
//   - a vhost deleted (CmdDurableVhostGone): one record, on which a
//     replay deletes the vhost with everything in it (its queues and
//     their ready and held copies, exchanges, bindings, held delayed
//     messages, policies, permissions). The deletion's walk writes
//     nothing more: no record names a deleted vhost's queue or exchange
//     (its hooks check vhost.deleted), so a vhost of the same name added
//     meanwhile is not confused with it; a deletion dead-letters nothing
//     out of the vhost, so nothing else changes;
//   - a restart (CmdRestart): what it does to durable state (the held
//     copies put back, a length limit trimming, a policy change taken
//     up) are records like any other, so the server logs no checkpoint
//     as it starts: the records of the restart follow the log it
//     recovered from (server/broker/durable.go).
//
// Every command's changes of durable state are records (durableClass
// says how each command kind gets its own), so the log never needs a
// checkpoint of the whole state. An older Warren wrote one for a policy,
// a vhost's deletion and at every start, as one record that replaced the
// broker on replay; a directory holding them still loads (IsSnapshot).
//
// Recovery loads the last snapshot (or an older Warren's checkpoint),
// applies the records after it (BeginDurableReplay first: the copies the
// base's channels held become the broker's own held copies, its
// connections gone), and then applies the restart as before. A held copy
// comes back as its channel's closing would have brought it back, in
// channel and tag order, so the restart gives the state it gives today;
// the durable log's property test (durable_property_test.go) checks that
// after every step of random and scripted workloads, and
// durable_walk_test.go for a broker stopped half way through a policy
// change or a vhost's deletion.
//
// A transient message in a non-durable queue makes no record at all, and
// the hooks cost a nil check when durable logging is off: the hot path of
// a broker without a data directory is unchanged.

// durableLog is the broker's durable log while it is on.
type durableLog struct {
	b    *Broker
	recs commandLog
	// clock is the time the last record carried.
	clock Time
	// popped is the copy the last Take took, which a Hold right after it
	// names without writing it again.
	poppedQ   *queue
	poppedSeq uint64
	entry     saver // encodes entries, its tables reset for each
}

// EnableDurableLog turns durable logging on (see the file comment). The
// broker stops recording its commands (Config.RecordCommands): the
// durable log replaces that log.
func (b *Broker) EnableDurableLog() {
	if b.dlog != nil {
		return
	}
	b.dlog = &durableLog{b: b, clock: b.now}
	b.dlog.entry = saver{encoder: newSnapshotEncoder(), extras: map[*msgExtra]uint64{}, vias: map[*Via]uint64{}}
	b.cfg.RecordCommands = false
	for _, v := range b.vhosts {
		for _, q := range v.queues {
			if q.durable {
				q.ready.jq = q
			}
		}
	}
}

// DrainDurable hands the durable log's records since the last drain to
// fn, in order, as DrainCommands does for the command log: each is one
// DecodeCommand record, valid until fn returns.
func (b *Broker) DrainDurable(fn func(rec []byte)) {
	if b.dlog != nil {
		b.dlog.recs.drain(fn)
	}
}

// PendingDurable returns the number of undrained durable records.
func (b *Broker) PendingDurable() int {
	if b.dlog == nil {
		return 0
	}
	return len(b.dlog.recs.ends)
}

// HasWorkInFlight reports whether work decided by earlier commands is
// still to be done in later calls (backlog.go, bulkend.go): a snapshot
// (Save) waits until Settle has done it.
func (b *Broker) HasWorkInFlight() bool { return len(b.ends) > 0 || len(b.pendingDL) > 0 }

// IsSnapshot reports whether a log record is a snapshot an older Warren
// wrote as a checkpoint rather than a command record (CommandFormat
// first).
func IsSnapshot(rec []byte) bool {
	return len(rec) >= len(snapshotMagic) && string(rec[:len(snapshotMagic)]) == snapshotMagic
}

// noteCommand writes the record of a command that is its own record
// (see durableClass).
func (l *durableLog) noteCommand(c Command) {
	switch c.(type) {
	case CmdBasicPublish, CmdBasicAck:
		return // the hot path's, through the hooks: no call for them
	}
	switch durableClass(c) {
	case durableOwnRecord:
		l.b.addDurable(c)
	case durableUnknown:
		// Every kind is classed (TestEveryCommandHasDurableRecords): a
		// command whose changes no record carried would be lost at the
		// next restart.
		// The message names no value of c: c must not escape, which
		// would cost every command sent through a wrapper an allocation
		// (TestDurableLogKeepsCommandsOnTheStack).
		panic("engine: durable log: a command kind with no durable records (durable.go)")
	}
}

// How a command's changes of durable state reach the durable log.
const (
	durableUnknown   = iota
	durableHooks     // the hooks write records as it makes the changes
	durableOwnRecord // the command is its own record (definitionRecord)
	durableRecord    // a record of the durable log itself, applied on replay only
)

// durableClass says how c's changes of durable state reach the durable
// log: the message and topology traffic of connections, policies, vhost
// deletions and restarts through the hooks that see each change (below,
// and in vhostcounts.go, binding.go, delayed.go, policy.go, vhost.go);
// definitions that need no context and change no message are their own
// record.
func durableClass(c Command) int {
	switch c.(type) {
	case CmdBasicPublish, CmdBasicAck, CmdBasicNack, CmdBasicReject, CmdBasicGet, CmdBasicConsume, CmdBasicCancel,
		CmdBasicQos, CmdBasicRecover, CmdBasicRecoverAsync, CmdConfirmSelect, CmdTxSelect, CmdTxCommit, CmdTxRollback,
		CmdOpenConnection, CmdCloseConnection, CmdForceCloseConnection, CmdForceCloseUserConnections, CmdPauseConnection,
		CmdOpenChannel, CmdCloseChannel, CmdChannelException, CmdAdvanceTo, CmdSettle, CmdStep,
		CmdQueueDeclare, CmdQueueDelete, CmdQueueBind, CmdQueueUnbind, CmdQueuePurge,
		CmdExchangeDeclare, CmdExchangeDelete, CmdExchangeBind, CmdExchangeUnbind,
		CmdSetPolicy, CmdClearPolicy, CmdDeleteVhost, CmdRestart,
		retiredPublishTarget, retiredPublishDirect: // an old log's, replayed as publishes
		return durableHooks
	case CmdDurablePut, CmdDurableTake, CmdDurableHold, CmdDurableDone, CmdDurableClock,
		CmdDurableQueue, CmdDurableQueueGone, CmdDurableExchange, CmdDurableExchangeGone, CmdDurableBind, CmdDurableUnbind,
		CmdDurableBuffer, CmdDurableDelay, CmdDurableRelease, CmdDurablePolicy, CmdDurableRetime, CmdDurableVhostGone:
		return durableRecord
	}
	if definitionRecord(c) {
		return durableOwnRecord
	}
	return durableUnknown
}

// definitionRecord reports whether c is a definition's change that is its
// own record in the durable log.
func definitionRecord(c Command) bool {
	switch c.(type) {
	case CmdPutUser, CmdDeleteUser, CmdPutUserPermission, CmdClearUserPermission, CmdPutTopicPermission,
		CmdClearTopicPermissions, CmdSetPermissions, CmdAddVhost, CmdSetLimits:
		return true
	}
	return false
}

// LogClock records the clock if it moved since the last record: a
// driver whose clock is not the wall clock (a paused or manual one) calls
// it, so that a recovered broker keeps its time.
func (b *Broker) LogClock() {
	if l := b.dlog; l != nil && b.now != l.clock {
		l.clock = b.now
		l.append(CmdDurableClock{Time: b.now})
	}
}

// add appends a record, after the clock's if it moved.
func (b *Broker) addDurable(c Command) {
	l := b.dlog
	if b.now != l.clock {
		l.clock = b.now
		l.append(CmdDurableClock{Time: b.now})
	}
	l.append(c)
}

func (l *durableLog) append(c Command) {
	buf, err := AppendCommand(l.recs.buf, c)
	if err != nil {
		panic("engine: durable log: " + err.Error())
	}
	l.recs.buf = buf
	l.recs.ends = append(l.recs.ends, len(buf))
}

// entryBytes encodes a copy as a snapshot does (saver.entry), the
// message written in full. The bytes are valid until the next call.
func (l *durableLog) entryBytes(e *entry) []byte {
	s := &l.entry
	s.buf = s.buf[:0]
	clear(s.interned)
	clear(s.extras)
	clear(s.vias)
	s.lastProps, s.lastPropsIx = nil, 0
	flags := entryFlags(e)
	s.byte1(flags)
	m := e.msg
	s.uvarint(m.ID)
	s.str(m.Exchange)
	s.str(m.RoutingKey)
	s.props(m.Props)
	s.bytes(m.Body)
	s.extra(m.extra)
	s.via(e.via)
	s.uvarint(e.seq)
	s.varint(int64(e.enqueuedAt))
	s.entryOptional(e, flags)
	if s.err != nil {
		panic("engine: durable log: " + s.err.Error())
	}
	return s.buf
}

// The hooks. Each is called only for a queue that is durable while
// durable logging is on (store.jq is set) or checks that itself.

// durablePut records a kept copy arriving in q's ready messages.
func (q *queue) durablePut(e *entry, ret int, key uint64) {
	if q.deleted || q.vhost.deleted || !survives(q, e.msg) {
		return
	}
	b := q.vhost.b
	b.addDurable(CmdDurablePut{Vhost: q.vhost.name, Queue: q.name, Return: ret, Key: key, Entry: b.dlog.entryBytes(e)})
}

// durableTake records a kept copy leaving q's ready messages.
func (q *queue) durableTake(e *entry) {
	if q.deleted || q.vhost.deleted || !survives(q, e.msg) {
		return
	}
	b := q.vhost.b
	b.addDurable(CmdDurableTake{Vhost: q.vhost.name, Queue: q.name, Seq: e.seq})
	b.dlog.poppedQ, b.dlog.poppedSeq = q, e.seq
}

// durableHold records a kept copy delivered to ch as tag, awaiting its
// acknowledgement.
func (q *queue) durableHold(e *entry, ch ChannelID, tag uint64) {
	b := q.vhost.b
	if b.dlog == nil || !q.durable || q.deleted || q.vhost.deleted || !survives(q, e.msg) {
		return
	}
	var data []byte
	if l := b.dlog; l.poppedQ != q || l.poppedSeq != e.seq {
		data = l.entryBytes(e)
	}
	b.dlog.poppedQ = nil
	b.addDurable(CmdDurableHold{Vhost: q.vhost.name, Queue: q.name, Seq: e.seq, Channel: ch, Tag: tag, Entry: data})
}

// durableDone records the end of a held kept copy.
func (q *queue) durableDone(e *entry) {
	b := q.vhost.b
	if b.dlog == nil || !q.durable || q.deleted || q.vhost.deleted || e.msg == nil || !survives(q, e.msg) {
		return
	}
	b.addDurable(CmdDurableDone{Vhost: q.vhost.name, Queue: q.name, Seq: e.seq})
}

// durableBuffer records a held kept copy's acknowledgement buffered in a
// transaction, or with buffered false given back by a rollback.
func (q *queue) durableBuffer(e *entry, buffered bool) {
	if !q.durable || q.deleted || q.vhost.deleted || !survives(q, e.msg) {
		return
	}
	q.vhost.b.addDurable(CmdDurableBuffer{Vhost: q.vhost.name, Queue: q.name, Seq: e.seq, Buffered: buffered})
}

// durableTakeAll records every kept copy of st (taken out of q at once).
func (q *queue) durableTakeAll(st *store) {
	st.eachInPlace(func(e *entry) { q.durableTake(e) })
	q.vhost.b.dlog.poppedQ = nil
}

// bindingDurable reports whether a restart keeps bd.
func bindingDurable(bd *binding) bool {
	return bd.src.durable && (bd.dst.q == nil || bd.dst.q.durable) && (bd.dst.x == nil || bd.dst.x.durable)
}

// durableBinding is bd's record: a binding made, or with add false gone.
func durableBinding(bd *binding, add bool) Command {
	dst, toX := "", bd.dst.x != nil
	if toX {
		dst = bd.dst.x.name
	} else {
		dst = bd.dst.q.name
	}
	v := bd.src.vhost.name
	if add {
		return CmdDurableBind{Vhost: v, Source: bd.src.name, Destination: dst, ToExchange: toX, Key: bd.key, Args: bd.args}
	}
	return CmdDurableUnbind{Vhost: v, Source: bd.src.name, Destination: dst, ToExchange: toX, Key: bd.key, Args: bd.args}
}
