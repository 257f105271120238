package engine

// consumer is a basic.consume subscription.
type consumer struct {
	ch        *channel
	q         *queue
	tag       string
	noAck     bool
	exclusive bool
	priority  int64
	prefetch  int // per-consumer limit fixed at consume time (basic.qos global=false)
	unacked   int
	args      Table
	seq       uint64 // registration order
}

// hasCredit reports whether the consumer may receive another message now:
// no-ack consumers always may; others are bounded by their own prefetch and
// the channel's global prefetch.
func (c *consumer) hasCredit() bool {
	if c.ch.closed || c.ch.conn.paused {
		return false
	}
	if c.noAck {
		return true
	}
	if c.prefetch > 0 && c.unacked >= c.prefetch {
		return false
	}
	return c.ch.globalPrefetch == 0 || c.ch.consumerLive < c.ch.globalPrefetch
}

// BasicConsume is basic.consume.
type BasicConsume struct {
	Queue       string
	ConsumerTag string
	NoLocal     bool
	NoAck       bool
	Exclusive   bool
	Args        Table // x-priority
}

func (b *Broker) basicConsume(id ChannelID, c BasicConsume) (string, error) {
	ch, err := b.channelFor(id, MethodBasicConsume)
	if err != nil {
		return "", err
	}
	if c.Queue == ReplyToQueue {
		return b.consumeReplyTo(ch, c) // replyto.go
	}
	m := MethodBasicConsume
	q, e := ch.permittedQueue(accessRead, c.Queue, m)
	if e != nil {
		return "", b.fail(ch, e)
	}
	tag := c.ConsumerTag
	if p := ShortStringProblem(tag); p != "" {
		return "", b.fail(ch, badName(m, "consumer tag", tag, p))
	}
	if tag == "" {
		tag = b.genName("amq.ctag-")
	}
	if _, dup := ch.consumers[tag]; dup {
		return "", b.fail(ch, connectionErr(NotAllowed, m, "attempt to reuse consumer tag '%s'", tag))
	}
	var prio int64
	if v, ok := c.Args["x-priority"]; ok {
		n, isInt := asInt64(v)
		if !isInt {
			// Observed, RabbitMQ 3.10.8: "expected integer, got longstr".
			return "", b.fail(ch, channelErr(PreconditionFailed, m, "invalid arg 'x-priority' for %s: \"expected integer, got %s\"", rs("queue", q.name, q.vhost.name), typeName(v)))
		}
		prio = n
	}
	if q.quorum && ch.globalPrefetch > 0 {
		// quorum-queues.md: "Quorum queues do not support global QoS
		// prefetch"; rabbit_quorum_queue:consume/3 refuses with
		// not_implemented, a connection error (observed, RabbitMQ 3.10.8).
		return "", b.fail(ch, connectionErr(NotImplemented, m, "%s does not support global qos", rs("queue", q.name, q.vhost.name)))
	}
	if v, ok := c.Args["x-cancel-on-ha-failover"]; ok {
		if _, isBool := v.(bool); !isBool {
			return "", b.fail(ch, channelErr(PreconditionFailed, m, "invalid arg 'x-cancel-on-ha-failover' for %s: {unacceptable_type,%s}", rs("queue", q.name, q.vhost.name), typeName(v)))
		}
	}
	if q.exclusiveC != nil {
		return "", b.fail(ch, channelErr(AccessRefused, m, "%s in exclusive use", rs("queue", q.name, q.vhost.name)))
	}
	if c.Exclusive && len(q.consumers) > 0 {
		return "", b.fail(ch, channelErr(AccessRefused, m, "%s in exclusive use", rs("queue", q.name, q.vhost.name)))
	}
	b.consumerSeq++
	con := &consumer{seq: b.consumerSeq, ch: ch, q: q, tag: tag, noAck: c.NoAck, exclusive: c.Exclusive, priority: prio, prefetch: ch.prefetch, args: c.Args.Clone()}
	ch.consumers[tag] = con
	ch.consumerOrder = append(ch.consumerOrder, con)
	q.consumers = append(q.consumers, con)
	q.vhost.counts.consumers++
	q.hadConsumers = true
	if c.Exclusive {
		q.exclusiveC = con
	}
	b.emit(Event{Kind: EvConsumerAdded, Vhost: q.vhost.name, Channel: ch.id, Queue: q.name, ConsumerTag: tag, NoAck: c.NoAck,
		Detail: &EventDetail{Priority: int(prio)}})
	q.reviewActive()
	q.touchLease()
	q.dispatch()
	b.flush()
	return tag, nil
}

func (b *Broker) basicCancel(id ChannelID, tag string) error {
	ch, err := b.channelFor(id, MethodBasicCancel)
	if err != nil {
		return err
	}
	if ch.reply != nil && ch.reply.tag == tag {
		// The reply consumer first, as rabbit_channel matches it.
		ch.dropReplyTo("cancelled")
	} else if c, ok := ch.consumers[tag]; ok {
		c.q.removeConsumer(c, true)
		c.q.maybeAutoDelete()
	}
	b.flush()
	return nil
}

// dropConsumer forgets a consumer on its channel.
func (ch *channel) dropConsumer(c *consumer) {
	delete(ch.consumers, c.tag)
	for i, o := range ch.consumerOrder {
		if o == c {
			ch.consumerOrder = append(ch.consumerOrder[:i], ch.consumerOrder[i+1:]...)
			break
		}
	}
}

// removeConsumer detaches c from the queue. With a single active consumer
// the next consumer in registration order becomes active.
func (q *queue) removeConsumer(c *consumer, byClient bool) {
	b := q.vhost.b
	if !byClient {
		// Channel closing: keep the channel's list for auto-delete checks.
		delete(c.ch.consumers, c.tag)
	} else {
		c.ch.dropConsumer(c)
	}
	for i, o := range q.consumers {
		if o == c {
			q.consumers = append(q.consumers[:i], q.consumers[i+1:]...)
			q.vhost.counts.consumers--
			break
		}
	}
	if q.exclusiveC == c {
		q.exclusiveC = nil
	}
	reason := "cancelled"
	if !byClient {
		reason = "channel-closed"
	}
	b.emit(Event{Kind: EvConsumerCancelled, Vhost: q.vhost.name, Channel: c.ch.id, Queue: q.name, ConsumerTag: c.tag, Reason: reason})
	if q.active == c {
		q.active = nil
	}
	q.reviewActive()
	q.touchLease()
	if byClient {
		q.dispatch()
	}
}

// reviewActive keeps a single active consumer queue's active consumer
// right. When there is none, the next one is activated: "The single active
// consumer is cancelled for some reason or simply dies. One of the
// registered consumer becomes the new single active consumer" (consumers.md).
// A quorum queue also hands over to a waiting consumer of higher priority,
// but only once the active one holds no unacknowledged messages (RabbitMQ
// 4.0 blog, "Consumer Priorities Combined with Single Active Consumer": "it
// will stop delivering messages to the current consumer, wait for all the
// messages to be acknowledged, and then will deactivate the old consumer,
// and activate the higher priority consumer instead").
func (q *queue) reviewActive() {
	if !q.sac || q.deleted {
		return
	}
	next := q.sacWaiting()
	if next == nil {
		return
	}
	if q.active != nil && !(q.quorum && next.priority > q.active.priority && q.active.unacked == 0) {
		return
	}
	q.active = next
	q.vhost.b.emit(Event{Kind: EvConsumerActivated, Vhost: q.vhost.name, Channel: next.ch.id, Queue: q.name, ConsumerTag: next.tag})
}

// sacWaiting returns the waiting consumer next in line: the longest
// registered on a classic queue, which ignores consumer priorities for this
// (consumers.md: "There's no guarantee on the selected active consumer ...
// even if consumer priorities are in use"; observed, RabbitMQ 3.10.8: the
// first registered stays active); on a quorum queue the highest priority,
// then the longest registered (rabbit_fifo sorts its waiting consumers so).
// Consumers of a closing channel are skipped. The round-robin slice is
// reordered by deliveries, so registration order comes from a sequence.
func (q *queue) sacWaiting() *consumer {
	var best *consumer
	for _, c := range q.consumers {
		if c == q.active || c.ch.closed {
			continue
		}
		switch {
		case best == nil:
			best = c
		case q.quorum && c.priority != best.priority:
			if c.priority > best.priority {
				best = c
			}
		case c.seq < best.seq:
			best = c
		}
	}
	return best
}

// sacQuiescing reports whether a quorum queue's active consumer is waiting
// to hand over to a higher-priority one, and so gets no more messages.
func (q *queue) sacQuiescing() bool {
	if !q.quorum || q.active == nil {
		return false
	}
	next := q.sacWaiting()
	return next != nil && next.priority > q.active.priority
}
