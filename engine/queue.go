package engine

import (
	"strings"

	"warren/engine/deadline"
)

// queue is a classic or quorum queue. Its effective settings come from its
// declare arguments combined with the matching policy and operator policy
// (see policy.go).
type queue struct {
	vhost      *vhost
	name       string
	durable    bool
	exclusive  bool
	autoDelete bool
	owner      *connection
	args       Table
	quorum     bool
	sac        bool
	deleted    bool

	set queueSettings

	ready   store
	unacked int
	// unackedBytes is the body bytes of the unacked deliveries, which
	// live at their channels (the management API's
	// message_bytes_unacknowledged).
	unackedBytes int64
	nextSeq      uint64
	// returning counts the queue's copies on their way back from a
	// channel, still counted as unacked (bulkreturn.go).
	returning int

	consumers    []*consumer // round-robin order
	hadConsumers bool
	exclusiveC   *consumer
	active       *consumer // single active consumer

	expiryTimer deadline.Timer[timerRef]
	leaseTimer  deadline.Timer[timerRef]
	// dispatchTimer continues deliveries a batch left over (backlog.go).
	dispatchTimer deadline.Timer[timerRef]

	// policyGen is the vhost's policy generation the settings were
	// resolved at (queuewalk.go).
	policyGen uint64

	visit uint64 // routing generation, for de-duplication without a map
	// viaDefault is the queue's binding to the default exchange, as
	// enqueued events show it (via.go).
	viaDefault *Via
	// listed is the queue's index in its vhost's counts.queueNames.
	listed int
}

// queueSettings are a queue's effective limits; -1 means unset.
type queueSettings struct {
	ttlMs         int64
	expiresMs     int64
	maxLen        int64
	maxBytes      int64
	overflow      string
	dlx           string
	hasDLX        bool
	dlrk          string
	hasDLRK       bool
	deliveryLimit int64
	maxPriority   int
	policy        string
	opPolicy      string
}

// QueueDeclare is queue.declare.
type QueueDeclare struct {
	Queue      string
	Passive    bool
	Durable    bool
	Exclusive  bool
	AutoDelete bool
	Args       Table
}

// QueueDeclareOk is queue.declare-ok.
type QueueDeclareOk struct {
	Queue         string
	MessageCount  int
	ConsumerCount int
}

func (b *Broker) declareQueue(id ChannelID, d QueueDeclare) (QueueDeclareOk, error) {
	ch, err := b.channelFor(id, MethodQueueDeclare)
	if err != nil {
		return QueueDeclareOk{}, err
	}
	ok, e := b.queueDeclare(ch, d)
	if e != nil {
		return QueueDeclareOk{}, b.fail(ch, e)
	}
	b.flush()
	return ok, nil
}

func (b *Broker) queueDeclare(ch *channel, d QueueDeclare) (QueueDeclareOk, *Error) {
	if strings.HasPrefix(d.Queue, ReplyToQueue) {
		return b.declareReplyTo(ch, d.Queue) // replyto.go
	}
	v := ch.conn.vhost
	m := MethodQueueDeclare
	if d.Passive {
		// access-control.md, "How Permissions Work": "queue.declare
		// (passive=true)" needs no permission, so anyone in the vhost
		// may ask whether a queue exists: 404 if not, 405 if it is
		// another connection's exclusive queue (observed, RabbitMQ
		// 3.10.8, for a user whose patterns all miss the name).
		//
		// queue.declare has no "" shortcut: rabbit_channel expands it
		// only for get, consume, delete, purge, bind and unbind, so a
		// passive declare of "" looks for a queue named "" (observed,
		// RabbitMQ 3.10.8: 404 "no queue '' in vhost '/'").
		if d.Queue == "" {
			return QueueDeclareOk{}, channelErr(NotFound, m, "no %s", rs("queue", "", v.name))
		}
		q, e := ch.lookupQueue(d.Queue, m)
		if e != nil {
			return QueueDeclareOk{}, e
		}
		q.touchLease()
		return q.declareOk(), nil
	}
	name := d.Queue
	if p := ShortStringProblem(name); p != "" {
		return QueueDeclareOk{}, badName(m, "queue name", name, p)
	}
	if name == "" {
		name = b.genName("amq.gen-")
	} else if strings.HasPrefix(name, "amq.") {
		return QueueDeclareOk{}, channelErr(AccessRefused, m, "queue name '%s' contains reserved prefix 'amq.*'", name)
	}
	// The check sees the server-generated name (observed, RabbitMQ
	// 3.10.8: "access to queue 'amq.gen-…' … refused").
	if e := ch.conn.permitted(accessConfigure, "queue", name, m); e != nil {
		return QueueDeclareOk{}, e
	}
	// rabbit_channel: "Durable = DurableDeclare andalso not
	// ExclusiveDeclare" — an exclusive queue is never durable, whatever
	// the declare says (observed, RabbitMQ 3.10.8: exclusive durable then
	// exclusive non-durable is an equivalent redeclare).
	if d.Exclusive {
		d.Durable = false
	}
	if q, ok := v.queues[name]; ok {
		if e := q.checkEquivalent(d, ch.conn); e != nil {
			return QueueDeclareOk{}, e
		}
		q.touchLease()
		ch.lastQueue = q.name
		return q.declareOk(), nil
	}
	if dlx, ok := d.Args["x-dead-letter-exchange"].(string); ok {
		// access-control.md: queue.declare with a DLX needs read on the
		// queue and write on the DLX; rabbit_channel checks them only
		// when the queue is being created. A DLX of the wrong type is
		// refused by validateNewQueue (406) before any such check.
		if e := ch.conn.permitted(accessRead, "queue", name, m); e != nil {
			return QueueDeclareOk{}, e
		}
		if e := ch.conn.permitted(accessWrite, "exchange", dlx, m); e != nil {
			return QueueDeclareOk{}, e
		}
	}
	quorum := d.Args["x-queue-type"] == "quorum"
	if e := validateNewQueue(d, quorum, name, v.name); e != nil {
		return QueueDeclareOk{}, e
	}
	if quorum && d.Queue == "" {
		// rabbit_quorum_queue:declare refuses a server-named queue
		// (observed, RabbitMQ 3.10.8).
		return QueueDeclareOk{}, channelErr(PreconditionFailed, m, "Cannot declare a server-named queue for type rabbit_quorum_queue")
	}
	if lim := b.cfg.MaxQueuesPerVhost; lim > 0 && len(v.queues) >= lim {
		return QueueDeclareOk{}, channelErr(PreconditionFailed, m, "cannot declare queue '%s': queue limit in vhost '%s' (%d) is reached", name, v.name, lim)
	}
	var owner *connection
	if d.Exclusive {
		owner = ch.conn
	}
	q := v.newQueue(name, d.Durable, d.AutoDelete, d.Args, quorum, owner)
	ch.lastQueue = name
	b.emit(Event{Kind: EvQueueDeclared, Vhost: v.name, Channel: ch.id, Queue: name, Detail: &EventDetail{Features: q.describe()}})
	q.touchLease()
	return q.declareOk(), nil
}

// newQueue makes a queue declared with these flags and arguments (the
// owner's exclusive one if owner is set) and adds it to the vhost.
func (v *vhost) newQueue(name string, durable, autoDelete bool, args Table, quorum bool, owner *connection) *queue {
	q := &queue{
		vhost:      v,
		name:       name,
		durable:    durable,
		exclusive:  owner != nil,
		autoDelete: autoDelete,
		args:       args.Clone(),
		quorum:     quorum,
	}
	if sac, ok := args["x-single-active-consumer"].(bool); ok {
		q.sac = sac
	}
	if owner != nil {
		q.owner = owner
		if q.owner.exclusives == nil {
			q.owner.exclusives = map[string]*queue{}
		}
		q.owner.exclusives[name] = q
	}
	q.expiryTimer.Value = timerRef{kind: timerQueueExpiry, q: q}
	q.leaseTimer.Value = timerRef{kind: timerQueueLease, q: q}
	q.dispatchTimer.Value = timerRef{kind: timerQueueDispatch, q: q}
	q.set = q.resolveSettings()
	q.policyGen = v.policyGen
	q.ready = newStore(q.set.maxPriority, &v.ready, &v.b.ready)
	v.addQueue(q)
	v.queueMemo.forget()
	return q
}

// describe summarises the queue's flags and arguments for the trace.
func (q *queue) describe() string {
	var parts []string
	if q.quorum {
		parts = append(parts, "quorum")
	}
	if q.durable {
		parts = append(parts, "durable")
	}
	if q.exclusive {
		parts = append(parts, "exclusive")
	}
	if q.autoDelete {
		parts = append(parts, "auto-delete")
	}
	for _, k := range q.args.Keys() {
		if k == "x-queue-type" {
			continue
		}
		parts = append(parts, k+"="+FormatTyped(q.args[k]))
	}
	return strings.Join(parts, " ")
}

func (q *queue) declareOk() QueueDeclareOk {
	q.catchUp()
	return QueueDeclareOk{Queue: q.name, MessageCount: q.ready.len(), ConsumerCount: len(q.consumers)}
}

// checkEquivalent applies RabbitMQ's redeclare rules
// (rabbit_amqqueue:assert_equivalence): exclusive access is checked
// strictly first (405), then durable, auto_delete and the equivalence
// arguments must match (406); only the first difference is reported.
func (q *queue) checkEquivalent(d QueueDeclare, c *connection) *Error {
	r := rs("queue", q.name, q.vhost.name)
	m := MethodQueueDeclare
	if q.exclusive != d.Exclusive || (q.exclusive && q.owner != c) {
		return q.lockedErr(m)
	}
	if d.Durable != q.durable {
		return channelErr(PreconditionFailed, m, "inequivalent arg 'durable' for %s: received '%s' but current is '%s'", r, boolText(d.Durable), boolText(q.durable))
	}
	if d.AutoDelete != q.autoDelete {
		return channelErr(PreconditionFailed, m, "inequivalent arg 'auto_delete' for %s: received '%s' but current is '%s'", r, boolText(d.AutoDelete), boolText(q.autoDelete))
	}
	for _, k := range equivalenceArgs {
		if k == "x-delivery-limit" && !q.quorum {
			continue
		}
		if k == "x-queue-type" && queueTypeImplicit(q.args[k], d.Args[k]) {
			continue
		}
		if e := argEquivalence(k, q.args, d.Args, q.name, q.vhost.name); e != nil {
			return e
		}
	}
	return nil
}

// queueTypeImplicit reports whether two x-queue-type values differ only in
// saying "classic" or nothing, which RabbitMQ treats as the same (observed,
// RabbitMQ 3.10.8: absent and "classic" redeclare each other either way).
func queueTypeImplicit(a, b any) bool {
	return (a == nil && b == "classic") || (a == "classic" && b == nil)
}

func (q *queue) lockedErr(m Method) *Error {
	return channelErr(ResourceLocked, m, "cannot obtain exclusive access to locked %s. It could be originally declared on another connection or the exclusive property value does not match that of the original declaration.", rs("queue", q.name, q.vhost.name))
}

// queueName expands AMQP's default queue: "" names the channel's last
// declared queue, and with none declared it is 404 (rabbit_channel expands
// the shortcut before any permission check).
func (ch *channel) queueName(name string, m Method) (string, *Error) {
	if name != "" {
		return name, nil
	}
	if ch.lastQueue == "" {
		return "", channelErr(NotFound, m, "no previously declared queue")
	}
	return ch.lastQueue, nil
}

// permittedQueue is lookupQueue after the permission check the operation
// needs on the queue, which comes before the queue's existence is known.
func (ch *channel) permittedQueue(a access, name string, m Method) (*queue, *Error) {
	name, e := ch.queueName(name, m)
	if e != nil {
		return nil, e
	}
	if e := ch.conn.permitted(a, "queue", name, m); e != nil {
		return nil, e
	}
	return ch.lookupQueue(name, m)
}

// lookupQueue finds a queue for a command on ch: "" means the channel's last
// declared queue (AMQP's default queue), a missing queue is 404, another
// connection's exclusive queue is 405.
func (ch *channel) lookupQueue(name string, m Method) (*queue, *Error) {
	v := ch.conn.vhost
	name, e := ch.queueName(name, m)
	if e != nil {
		return nil, e
	}
	q, ok := v.queues[name]
	if !ok {
		return nil, channelErr(NotFound, m, "no %s", rs("queue", name, v.name))
	}
	if q.exclusive && q.owner != ch.conn {
		return nil, q.lockedErr(m)
	}
	return q, nil
}

// QueueDelete is queue.delete.
type QueueDelete struct {
	Queue    string
	IfUnused bool
	IfEmpty  bool
}

func (b *Broker) queueDelete(id ChannelID, d QueueDelete) (int, error) {
	ch, err := b.channelFor(id, MethodQueueDelete)
	if err != nil {
		return 0, err
	}
	m := MethodQueueDelete
	name, e := ch.queueName(d.Queue, m)
	if e == nil {
		e = ch.conn.permitted(accessConfigure, "queue", name, m)
	}
	if e != nil {
		return 0, b.fail(ch, e)
	}
	if _, ok := ch.conn.vhost.queues[name]; !ok {
		return 0, nil
	}
	q, e := ch.lookupQueue(name, m)
	if e != nil {
		return 0, b.fail(ch, e)
	}
	r := rs("queue", q.name, q.vhost.name)
	q.catchUp()
	if d.IfUnused && len(q.consumers) > 0 {
		return 0, b.fail(ch, channelErr(PreconditionFailed, m, "%s in use", r))
	}
	if d.IfEmpty && q.ready.len() > 0 {
		return 0, b.fail(ch, channelErr(PreconditionFailed, m, "%s not empty", r))
	}
	n := q.ready.len()
	q.delete("deleted")
	b.flush()
	return n, nil
}

func (b *Broker) queuePurge(id ChannelID, name string) (int, error) {
	ch, err := b.channelFor(id, MethodQueuePurge)
	if err != nil {
		return 0, err
	}
	q, e := ch.permittedQueue(accessRead, name, MethodQueuePurge)
	if e != nil {
		return 0, b.fail(ch, e)
	}
	n := q.purge()
	b.flush()
	return n, nil
}

func (q *queue) purge() int {
	q.catchUp()
	n := q.letGo(EvPurged, "")
	q.rearmExpiry()
	return n
}

// delete removes the queue: ready messages are discarded (never
// dead-lettered), consumers are cancelled by the server, bindings go.
func (q *queue) delete(reason string) {
	if q.deleted {
		return
	}
	q.current()
	b := q.vhost.b
	// Messages that expired before the queue went are dead-lettered, not
	// discarded with the rest. Copies still on their way back from a
	// channel are not waited for: each ends as it arrives, Discarded.
	q.expireUpTo(-1)
	q.deleted = true
	if q.owner != nil {
		delete(q.owner.exclusives, q.name)
	}
	q.vhost.counts.consumers -= len(q.consumers)
	q.vhost.counts.unacked.msgs -= int64(q.unacked)
	q.vhost.counts.unacked.bytes -= q.unackedBytes
	q.letGo(EvDiscarded, reason)
	for _, c := range append([]*consumer(nil), q.consumers...) {
		c.ch.dropConsumer(c)
		b.emit(Event{Kind: EvConsumerCancelled, Vhost: q.vhost.name, Channel: c.ch.id, Queue: q.name, ConsumerTag: c.tag, Reason: "queue-deleted"})
	}
	q.consumers = nil
	b.timers.Remove(&q.expiryTimer)
	b.timers.Remove(&q.leaseTimer)
	b.timers.Remove(&q.dispatchTimer)
	q.vhost.dropQueue(q)
	q.vhost.queueMemo.forget()
	q.vhost.unbindDestination(dest{q: q})
	b.emit(Event{Kind: EvQueueDeleted, Vhost: q.vhost.name, Queue: q.name, Reason: reason})
}

// touchLease restarts the x-expires lease: RabbitMQ renews it on declare,
// passive declare and basic.get, and suspends it while consumers exist.
func (q *queue) touchLease() {
	q.current()
	b := q.vhost.b
	if q.set.expiresMs < 0 || len(q.consumers) > 0 || q.deleted {
		b.timers.Remove(&q.leaseTimer)
		return
	}
	b.timers.Reset(&q.leaseTimer, int64(b.now)+q.set.expiresMs)
}

// leaseLapsed deletes an unused queue whose x-expires elapsed. Its messages
// are not dead-lettered.
func (q *queue) leaseLapsed() {
	q.delete("expired")
	q.vhost.b.flush()
}

// maybeAutoDelete deletes an auto-delete queue that had consumers and has
// none left.
func (q *queue) maybeAutoDelete() {
	if q.autoDelete && q.hadConsumers && len(q.consumers) == 0 && !q.deleted {
		q.delete("auto-delete")
	}
}
