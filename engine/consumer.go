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
	if c.ch.closed {
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

// BasicConsume starts a consumer and returns its tag (server-generated
// amq.ctag-… when empty).
func (b *Broker) BasicConsume(id ChannelID, c BasicConsume) (string, error) {
	ch, err := b.channelFor(id, MethodBasicConsume)
	if err != nil {
		return "", err
	}
	m := MethodBasicConsume
	q, e := ch.lookupQueue(c.Queue, m)
	if e != nil {
		return "", b.fail(ch, e)
	}
	tag := c.ConsumerTag
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
			return "", b.fail(ch, channelErr(PreconditionFailed, m, "invalid arg 'x-priority' for %s: {unacceptable_type,%s}", rs("queue", q.name, q.vhost.name), TypeName(v)))
		}
		prio = n
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
	q.hadConsumers = true
	if c.Exclusive {
		q.exclusiveC = con
	}
	b.emit(Event{Kind: EvConsumerAdded, Vhost: q.vhost.name, Channel: ch.id, Queue: q.name, ConsumerTag: tag, NoAck: c.NoAck, Count: int(prio)})
	if q.sac && q.active == nil {
		q.active = con
		b.emit(Event{Kind: EvConsumerActivated, Vhost: q.vhost.name, Channel: ch.id, Queue: q.name, ConsumerTag: tag})
	}
	q.touchLease()
	q.dispatch()
	b.flush()
	return tag, nil
}

// BasicCancel cancels a consumer. Unacked messages it received stay unacked
// on the channel. Cancelling an unknown tag is not an error.
func (b *Broker) BasicCancel(id ChannelID, tag string) error {
	ch, err := b.channelFor(id, MethodBasicCancel)
	if err != nil {
		return err
	}
	if c, ok := ch.consumers[tag]; ok {
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
		if q.sac {
			if next := q.firstRegistered(); next != nil {
				q.active = next
				b.emit(Event{Kind: EvConsumerActivated, Vhost: q.vhost.name, Channel: next.ch.id, Queue: q.name, ConsumerTag: next.tag})
			}
		}
	}
	q.touchLease()
	if byClient {
		q.dispatch()
	}
}

// firstRegistered returns the longest-standing consumer. The round-robin
// slice is reordered by deliveries, so registration order is tracked on the
// channels' consumer lists via a sequence.
func (q *queue) firstRegistered() *consumer {
	if len(q.consumers) == 0 {
		return nil
	}
	best := q.consumers[0]
	for _, c := range q.consumers[1:] {
		if c.seq < best.seq {
			best = c
		}
	}
	return best
}
