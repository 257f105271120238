package engine

// BasicGet is basic.get.
type BasicGet struct {
	Queue string
	NoAck bool
}

// GetOk is basic.get-ok: the message, its delivery tag, and how many
// messages remain ready in the queue.
type GetOk struct {
	Msg          *Message
	DeliveryTag  uint64
	Redelivered  bool
	Exchange     string
	RoutingKey   string
	MessageCount int
}

func (b *Broker) basicGet(id ChannelID, g BasicGet) (GetOk, bool, error) {
	ch, err := b.channelFor(id, MethodBasicGet)
	if err != nil {
		return GetOk{}, false, err
	}
	q, e := ch.permittedQueue(accessRead, g.Queue, MethodBasicGet)
	if e != nil {
		return GetOk{}, false, b.fail(ch, e)
	}
	if q.quorum && q.sac {
		// rabbit_channel:unsupported_single_active_consumer_error/1
		// (observed, RabbitMQ 3.10.8).
		return GetOk{}, false, b.fail(ch, channelErr(ResourceLocked, MethodBasicGet, "cannot obtain access to locked %s. basic.get operations are not supported by quorum queues with single active consumer", rs("queue", q.name, q.vhost.name)))
	}
	q.touchLease()
	ent, ok := q.takeForGet()
	if !ok {
		b.flush()
		return GetOk{}, false, nil
	}
	got := b.events.len()
	tag := ch.deliver(q, ent, nil, g.NoAck)
	q.catchUp()
	b.flush()
	b.events.at(got).Remaining = q.ready.len()
	return GetOk{Msg: ent.msg, DeliveryTag: tag, Redelivered: ent.redelivered, Exchange: ent.msg.Exchange,
		RoutingKey: ent.msg.RoutingKey, MessageCount: q.ready.len()}, true, nil
}
