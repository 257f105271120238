package engine

import "warren/engine/deadline"

// channel owns consumers, unacknowledged deliveries, prefetch limits and
// confirm/tx state, so that closing it requeues exactly what RabbitMQ would.
type channel struct {
	b      *Broker
	conn   *connection
	id     ChannelID
	closed bool

	nextTag uint64
	// unacked holds deliveries awaiting acknowledgement in delivery-tag
	// order; acknowledged ones are marked done and trimmed from the front.
	unacked     unackedList
	unackedLive int
	// one is what collect returns for a single tag, so that acknowledging
	// one delivery does not allocate; trim clears it.
	one [1]*delivery
	// pubX is the exchange last published to: publishers mostly publish to
	// one exchange, and this saves looking its name up every message.
	pubX *exchange
	// pubTopic is the topic permission that applies to pubX, if any.
	pubTopic *topicGrant

	lastQueue string // AMQP default queue: the last one declared on this channel

	consumers     map[string]*consumer
	consumerOrder []*consumer
	// reply is the channel's direct reply-to consumer (replyto.go),
	// which is not a queue's.
	reply *replyConsumer

	prefetch       int // per-consumer limit for consumers created from now on (basic.qos global=false)
	globalPrefetch int // channel-wide limit (basic.qos global=true)
	consumerLive   int // unacked deliveries made to consumers (what the global limit counts)

	confirm    bool
	publishSeq uint64

	tx       bool
	txPubs   []txPublish
	txAcks   []txAck
	commit   *txCommit // a tx.commit being applied (txcommit.go)
	ackTimer deadline.Timer[timerRef]
	// listed is the channel's index in Broker.chanRefs.
	listed int
	// ackIdle says the ack timer is still in the heap but the channel has
	// nothing unacked: it is ignored, and removed lazily (see armAckTimer).
	ackIdle bool
}

// delivery is one message handed to a consumer or basic.get, awaiting ack.
type delivery struct {
	tag   uint64
	q     *queue
	e     entry
	c     *consumer // nil for basic.get
	atMs  Time
	done  bool
	ctag  string
	noAck bool
}

// deliver hands a ready entry of q to consumer c (nil for basic.get),
// recording it as unacked unless no-ack, and emits Delivered.
func (ch *channel) deliver(q *queue, e entry, c *consumer, noAck bool) uint64 {
	ch.nextTag++
	tag := ch.nextTag
	ctag := ""
	if c != nil {
		ctag = c.tag
	}
	ev := ch.b.emitted(EvDelivered)
	ev.Vhost, ev.Channel, ev.Queue, ev.Msg, ev.MsgID = q.vhost.name, ch.id, q.name, e.msg, e.msg.ID
	ev.ConsumerTag, ev.DeliveryTag, ev.Redelivered, ev.NoAck = ctag, tag, e.redelivered, noAck
	if q.quorum {
		ev.HasDeliveryCount, ev.DeliveryCount = true, e.deliveries
	}
	ev.Exchange, ev.RoutingKey = e.msg.Exchange, e.msg.RoutingKey
	if c == nil {
		ev.Remaining = q.ready.len()
	}
	if noAck {
		return tag
	}
	if ch.b.dlog != nil {
		q.durableHold(&e, ch.id, tag)
	}
	d := ch.unacked.pushed()
	d.tag, d.q, d.e, d.c, d.atMs, d.ctag = tag, q, e, c, ch.b.now, ctag
	ch.unackedLive++
	q.accountUnacked(1, int64(len(e.msg.Body)))
	if c != nil {
		c.unacked++
		ch.consumerLive++
	}
	if ch.unackedLive == 1 {
		ch.armAckTimer()
	}
	return tag
}

// armAckTimer arms consumer_timeout for the oldest unacked delivery.
//
// A consumer that keeps up empties its channel's unacked set on every ack
// and refills it on the next delivery. Rather than take the timer out of
// the heap and put it back each time, an emptied channel marks its timer
// idle: an idle timer never fires and is invisible to NextDeadline and
// Timers, which drop it from the heap when they meet it. A delivery that
// needs it again re-arms it, even at the same deadline: waking it in place
// would keep its old arming order only if no read had dropped it
// meanwhile, and then a read (NextDeadline) would decide which of two
// timers due at once fires first, which a replay of the commands could
// not reproduce.
func (ch *channel) armAckTimer() {
	if ch.b.cfg.ConsumerTimeoutMs < 0 {
		return
	}
	d := ch.oldestUnacked()
	if d == nil {
		if ch.ackTimer.Armed() {
			ch.ackIdle = true
		}
		return
	}
	at := int64(d.atMs) + min(ch.b.cfg.ConsumerTimeoutMs, int64(Never-d.atMs)) // a huge configured timeout is Never, not a wrapped past
	if !ch.ackTimer.Armed() || ch.ackTimer.At != at || ch.ackIdle {
		ch.b.timers.Reset(&ch.ackTimer, at)
	}
	ch.ackIdle = false
}

// idleTimer reports whether a heap timer is an idle ack timer.
func idleTimer(r timerRef) bool { return r.kind == timerAckTimeout && r.ch.ackIdle }

func (ch *channel) oldestUnacked() *delivery {
	for i := 0; i < ch.unacked.len(); i++ {
		if d := ch.unacked.at(i); !d.done {
			return d
		}
	}
	return nil
}

// ackTimedOut closes the channel as RabbitMQ does when a delivery was not
// acknowledged within consumer_timeout.
func (ch *channel) ackTimedOut() {
	err := channelErr(PreconditionFailed, Method{}, "delivery acknowledgement on channel %d timed out. Timeout value used: %d ms. This timeout value can be configured, see consumers doc guide to learn more",
		ch.id.Num, ch.b.cfg.ConsumerTimeoutMs)
	ch.close(err.Code, err.Text, err.Method)
	ch.b.flush()
}

// find returns the live unacked delivery with this tag, or nil.
func (ch *channel) find(tag uint64) *delivery {
	if ch.unacked.len() > 0 {
		if d := ch.unacked.at(0); d.tag == tag && !d.done {
			return d // the oldest delivery: the usual case
		}
	}
	if i := ch.unacked.find(tag); i >= 0 && !ch.unacked.at(i).done {
		return ch.unacked.at(i)
	}
	return nil
}

// collect returns the deliveries an ack/nack/reject names: one tag, or with
// multiple every live tag up to and including it (tag 0 with multiple means
// all). An unknown tag is RabbitMQ's 406 "unknown delivery tag".
func (ch *channel) collect(tag uint64, multiple bool, m Method) ([]*delivery, *Error) {
	if multiple && tag != 0 && ch.find(tag) == nil {
		// rabbit_channel:collect_acks/5 needs the tag itself to be
		// outstanding, even when lower ones are (observed, RabbitMQ
		// 3.10.8: ack 99 multiple with tags 1 and 2 outstanding is 406
		// and acknowledges nothing).
		return nil, unknownTag(tag, m)
	}
	if multiple {
		var out []*delivery
		for i := 0; i < ch.unacked.len(); i++ {
			d := ch.unacked.at(i)
			if tag != 0 && d.tag > tag {
				break
			}
			if !d.done {
				out = append(out, d)
			}
		}
		return out, nil
	}
	d := ch.find(tag)
	if d == nil {
		return nil, unknownTag(tag, m)
	}
	ch.one[0] = d
	return ch.one[:], nil
}

// unknownTag is RabbitMQ's 406 for an ack, nack or reject of a tag that is
// not outstanding.
func unknownTag(tag uint64, m Method) *Error {
	return channelErr(PreconditionFailed, m, "unknown delivery tag %d", tag)
}

// settle removes a delivery from the unacked set and updates the counters
// that prefetch limits read. It clears the delivery's entry in the list;
// the rest of d stays as it was until trim, for the caller to read. (It
// returned a copy of the whole delivery, 120 bytes copied twice on every
// acknowledgement; an entry returned is copied through memory too, so the
// callers read what they need of d.e first.)
func (ch *channel) settle(d *delivery) {
	d.done = true
	ch.unackedLive--
	d.q.accountUnacked(-1, -int64(len(d.e.msg.Body)))
	d.e = entry{}
	if d.c != nil {
		d.c.unacked--
		ch.consumerLive--
	}
}

// trim drops settled deliveries from the front of the unacked list. It is
// called only after a batch of settles, never during one, because settle's
// callers hold pointers into the list.
func (ch *channel) trim() {
	ch.one[0] = nil
	ch.unacked.trim()
}

// ackOne acknowledges a delivery: the message copy ends.
func (ch *channel) ackOne(d *delivery) {
	q, msg := d.q, d.e.msg
	if ch.b.dlog != nil {
		q.durableDone(&d.e)
	}
	ch.settle(d)
	ev := ch.b.emitted(EvAcked)
	ev.Vhost, ev.Channel, ev.Queue, ev.MsgID, ev.Msg = q.vhost.name, ch.id, q.name, msg.ID, msg
	ev.DeliveryTag, ev.ConsumerTag = d.tag, d.ctag
}

// rejectOne handles nack/reject of one delivery: requeue it, or dead-letter
// it with reason "rejected".
func (ch *channel) rejectOne(d *delivery, requeue bool) {
	q, tag, e := d.q, d.tag, d.e // read before requeue, which may deliver again
	ch.settle(d)
	if requeue {
		q.requeue(e, ch.id, tag, returnByClient)
		return
	}
	if ch.b.dlog != nil {
		q.durableDone(&e)
	}
	ch.b.emit(Event{Kind: EvRejected, Vhost: q.vhost.name, Channel: ch.id, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, DeliveryTag: tag})
	q.deadLetter(e.msg, ReasonRejected)
}

// afterSettle re-arms the ack timer and lets queues whose consumers on this
// channel regained credit deliver more.
func (ch *channel) afterSettle(queues []*queue) {
	ch.trim()
	if ch.unacked.len() == 0 {
		// armAckTimer with nothing unacked, the usual case, without the
		// call: the timer goes idle.
		if ch.ackTimer.Armed() && ch.b.cfg.ConsumerTimeoutMs >= 0 {
			ch.ackIdle = true
		}
	} else {
		ch.armAckTimer()
	}
	ch.dispatchAfter(queues)
}

// dispatchAfter lets queues, and the queues of this channel's consumers,
// deliver to the credit settled deliveries gave back, each once.
func (ch *channel) dispatchAfter(queues []*queue) {
	var seen queueSet
	if len(queues) == 1 {
		// One queue settled, and at most one consumer: the usual case,
		// with no set to build. (The same calls in the same order as
		// below: a deleted queue is never added, and stays deleted.)
		q := queues[0]
		if !q.deleted && !q.idle() {
			q.dispatch()
		}
		switch order := ch.consumerOrder; len(order) {
		case 0:
			return
		case 1:
			if cq := order[0].q; cq != q && !cq.deleted && !cq.idle() {
				cq.dispatch()
			}
			return
		}
		if !q.deleted {
			seen.add(q)
		}
		queues = nil
	}
	for _, q := range queues {
		if !q.deleted && seen.add(q) {
			q.dispatch()
		}
	}
	for _, c := range ch.consumerOrder {
		if !c.q.deleted && seen.add(c.q) {
			c.q.dispatch()
		}
	}
}

// queueSet is a set of queues that needs no map for the usual one or two:
// it is built on every acknowledgement.
type queueSet struct {
	few  [4]*queue
	n    int
	many map[*queue]bool
}

// add adds q and reports whether it was not there yet.
func (s *queueSet) add(q *queue) bool {
	for _, o := range s.few[:s.n] {
		if o == q {
			return false
		}
	}
	if s.n < len(s.few) {
		s.few[s.n] = q
		s.n++
		return true
	}
	if s.many[q] {
		return false
	}
	if s.many == nil {
		s.many = map[*queue]bool{}
	}
	s.many[q] = true
	return true
}

// close closes the channel: consumers are cancelled and unacked deliveries
// are requeued in their original order, as RabbitMQ does on channel.close
// or any channel exception.
func (ch *channel) close(code int, text string, m Method) {
	if ch.closed {
		return
	}
	// A commit under way completes first, as in RabbitMQ's channel
	// process (txcommit.go).
	ch.finishCommit()
	ch.closed = true
	b := ch.b
	delete(b.chans, ch.id)
	delete(ch.conn.channels, ch.id.Num)
	b.dropChannel(ch)
	b.timers.Remove(&ch.ackTimer)
	ch.ackIdle = false
	// Cancel consumers first so that requeued messages are not handed
	// straight back to this channel.
	for _, c := range append([]*consumer(nil), ch.consumerOrder...) {
		c.q.removeConsumer(c, false)
	}
	ch.dropReplyTo("channel-closed")
	// The deliveries go back a batch at a time (bulkreturn.go); the
	// close is told after the first batch.
	end := ch.returnUpTo(0, returnOnClose)
	ch.txAcks, ch.txPubs = nil, nil
	b.emit(Event{Kind: EvChannelClosed, Vhost: ch.conn.vhost.name, Channel: ch.id, Code: code, Text: text, Method: m})
	for _, c := range ch.consumerOrder {
		end.autoDelete = append(end.autoDelete, c.q)
	}
	ch.consumerOrder = nil
	if end.left() == 0 {
		b.finishReturn(&end)
	} else {
		b.holdEnd(end)
	}
}

// BasicQos sets prefetch: with Global false it limits each consumer created
// afterwards on this channel; with Global true it limits the channel as a
// whole (RabbitMQ's reinterpretation of the AMQP global flag).
type BasicQos struct {
	PrefetchSize  uint32
	PrefetchCount uint16
	Global        bool
}

func (b *Broker) basicQos(id ChannelID, m BasicQos) error {
	ch, err := b.channelFor(id, MethodBasicQos)
	if err != nil {
		return err
	}
	if m.PrefetchSize != 0 {
		return b.fail(ch, connectionErr(NotImplemented, MethodBasicQos, "prefetch_size!=0 (%d)", m.PrefetchSize))
	}
	if m.Global {
		ch.globalPrefetch = int(m.PrefetchCount)
	} else {
		ch.prefetch = int(m.PrefetchCount)
	}
	for _, c := range ch.consumerOrder {
		c.q.dispatch()
	}
	b.flush()
	return nil
}

func (b *Broker) basicAck(c CmdBasicAck) error {
	tag, multiple := c.DeliveryTag, c.Multiple
	ch, err := b.channelFor(c.Channel, MethodBasicAck)
	if err != nil {
		return err
	}
	if multiple && !ch.tx {
		if tag != 0 && ch.find(tag) == nil {
			return b.fail(ch, unknownTag(tag, MethodBasicAck))
		}
		ch.settleUpTo(tag, false)
		b.flush()
		return nil
	}
	ds, e := ch.collect(tag, multiple, MethodBasicAck)
	if e != nil {
		return b.fail(ch, e)
	}
	if ch.tx {
		ch.bufferAcks(ds, txAckKind{ack: true})
		return nil
	}
	queues := make([]*queue, 0, 1)
	for _, d := range ds {
		queues = append(queues, d.q)
		ch.ackOne(d)
	}
	ch.afterSettle(queues)
	b.flush()
	return nil
}

// reject is basic.nack, and basic.reject (m) as a nack of one delivery.
func (b *Broker) reject(c CmdBasicNack, m Method) error {
	tag, multiple, requeue := c.DeliveryTag, c.Multiple, c.Requeue
	ch, err := b.channelFor(c.Channel, m)
	if err != nil {
		return err
	}
	if multiple && !ch.tx {
		if tag != 0 && ch.find(tag) == nil {
			return b.fail(ch, unknownTag(tag, m))
		}
		if requeue {
			ch.finishReturnUpTo(tag, returnByClient)
		} else {
			ch.settleUpTo(tag, true)
		}
		b.flush()
		return nil
	}
	ds, e := ch.collect(tag, multiple, m)
	if e != nil {
		return b.fail(ch, e)
	}
	if ch.tx {
		ch.bufferAcks(ds, txAckKind{requeue: requeue})
		return nil
	}
	queues := make([]*queue, 0, len(ds))
	for _, d := range ds {
		queues = append(queues, d.q)
		ch.rejectOne(d, requeue)
	}
	ch.afterSettle(queues)
	b.flush()
	return nil
}

func (b *Broker) recover(id ChannelID, requeue bool, m Method) error {
	ch, err := b.channelFor(id, m)
	if err != nil {
		return err
	}
	if !requeue {
		return b.fail(ch, connectionErr(NotImplemented, m, "requeue=false"))
	}
	ch.finishReturnUpTo(0, returnByClient)
	b.flush()
	return nil
}
