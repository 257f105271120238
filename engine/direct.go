package engine

// PublishDirect is basic.publish to a direct reply-to address (RabbitMQ's
// amq.rabbitmq.reply-to): a reply goes straight to the requester's
// pseudo-consumer, through no queue. The driver owns the addresses and
// resolves one to the consumer's channel and tag; an unknown address is
// passed as a zero ChannelID. The delivery is no-ack (reply consumers must
// be) and takes the consumer channel's next delivery tag, so tags stay one
// sequence per channel. As for any publish, an unroutable mandatory message
// is returned, another dropped, and a confirm-mode publisher gets its ack
// afterwards.
func (b *Broker) PublishDirect(from, to ChannelID, consumerTag string, p BasicPublish) error {
	return b.Apply(CmdPublishDirect{From: from, To: to, ConsumerTag: consumerTag, Publish: p}).Err
}

func (b *Broker) publishDirect(from, to ChannelID, consumerTag string, p BasicPublish) error {
	ch, err := b.channelFor(from, MethodBasicPublish)
	if err != nil {
		return err
	}
	// A reply is a basic.publish to the default exchange: it needs write
	// on amq.default and a truthful user-id like any other.
	if e := ch.conn.permitted(accessWrite, "exchange", p.Exchange, MethodBasicPublish); e != nil {
		return b.fail(ch, e)
	}
	if e := ch.conn.checkUserID(p.Props); e != nil {
		return b.fail(ch, e) // before the message's own checks, as BasicPublish
	}
	msg, e := b.newMessage(p)
	if e != nil {
		return b.fail(ch, e)
	}
	seq := ch.nextPublishSeq()
	vh := ch.conn.vhost.name
	b.emit(Event{Kind: EvPublished, Vhost: vh, Channel: from, Exchange: p.Exchange, RoutingKey: p.RoutingKey, MsgID: msg.ID, Msg: msg, DeliveryTag: seq})
	if target, ok := b.chans[to]; ok {
		target.nextTag++
		b.emit(Event{Kind: EvDelivered, Vhost: target.conn.vhost.name, Channel: to, Msg: msg, MsgID: msg.ID, ConsumerTag: consumerTag,
			DeliveryTag: target.nextTag, NoAck: true, Exchange: p.Exchange, RoutingKey: p.RoutingKey})
	} else if p.Mandatory {
		b.emit(Event{Kind: EvReturned, Vhost: vh, Channel: from, Exchange: p.Exchange, RoutingKey: p.RoutingKey, MsgID: msg.ID, Msg: msg,
			Code: NoRoute, Text: "NO_ROUTE"})
	} else {
		b.emit(Event{Kind: EvDropped, Vhost: vh, Channel: from, Exchange: p.Exchange, MsgID: msg.ID, Msg: msg, Cause: DropUnroutable})
	}
	if seq != 0 {
		b.emit(Event{Kind: EvConfirmed, Vhost: vh, Channel: from, DeliveryTag: seq})
	}
	return nil
}
