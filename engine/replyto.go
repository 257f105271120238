package engine

import (
	"strconv"
	"strings"
)

// Direct reply-to (RabbitMQ's direct-reply-to.md): an RPC client consumes
// from the pseudo-queue "amq.rabbitmq.reply-to" in no-ack mode and
// publishes its requests with reply_to set to that name; the broker
// rewrites reply_to to "amq.rabbitmq.reply-to.<token>", an address of the
// client's channel, and a reply published to the default exchange with
// that routing key goes straight to the client's consumer, through no
// queue. The reply consumer belongs to its channel (rabbit_channel's
// reply_consumer): it goes when the client cancels it or the channel or
// connection closes, and a restart drops it with every connection.
//
//	client                              broker                     server
//	consume amq.rabbitmq.reply-to ──▶  reply consumer, token T
//	publish rpc, reply_to=…reply-to ─▶ reply_to=…reply-to.T ──▶  consume rpc
//	                    ◀── delivered  amq.rabbitmq.reply-to.T ◀── publish "" …reply-to.T

// ReplyToQueue is the pseudo-queue a direct reply-to client consumes.
const ReplyToQueue = "amq.rabbitmq.reply-to"

// replyToPrefix starts every reply address.
const replyToPrefix = ReplyToQueue + "."

// replyConsumer is a channel's direct reply-to consumer.
type replyConsumer struct {
	tag string
	// token is the channel's reply address after replyToPrefix:
	// CONN.CHANNEL.N in base 36, N numbering consumers (consumerSeq) so
	// that an address outlives no consumer: a later one on the same
	// channel number has another. RabbitMQ's is the channel process's
	// pid and a key from rabbit_guid:gen_secure(), base64, so that no one
	// can guess another client's address; Warren's is derived from the
	// engine's state, which a replica must reproduce, and is guessable,
	// as the driver's was before it moved here.
	token string
}

// consumeReplyTo is basic.consume on ReplyToQueue (rabbit_channel 3.10):
// no permission is checked; the consumer must be no-ack and the channel's
// only one.
func (b *Broker) consumeReplyTo(ch *channel, c BasicConsume) (string, error) {
	m := MethodBasicConsume
	if !c.NoAck {
		return "", b.fail(ch, channelErr(PreconditionFailed, m, "reply consumer cannot acknowledge"))
	}
	if ch.reply != nil {
		return "", b.fail(ch, channelErr(PreconditionFailed, m, "reply consumer already set"))
	}
	tag := c.ConsumerTag
	if p := ShortStringProblem(tag); p != "" {
		return "", b.fail(ch, badName(m, "consumer tag", tag, p))
	}
	if tag == "" {
		tag = b.genName("amq.ctag-")
	}
	b.consumerSeq++
	token := strconv.FormatUint(uint64(ch.id.Conn), 36) + "." + strconv.FormatUint(uint64(ch.id.Num), 36) + "." +
		strconv.FormatUint(b.consumerSeq, 36)
	ch.reply = &replyConsumer{tag: tag, token: token}
	b.emit(Event{Kind: EvConsumerAdded, Vhost: ch.conn.vhost.name, Channel: ch.id, Queue: ReplyToQueue, ConsumerTag: tag, NoAck: true})
	return tag, nil
}

// dropReplyTo forgets ch's reply consumer, if any, telling why (the
// reasons of EvConsumerCancelled).
func (ch *channel) dropReplyTo(reason string) {
	r := ch.reply
	if r == nil {
		return
	}
	ch.reply = nil
	ch.b.emit(Event{Kind: EvConsumerCancelled, Vhost: ch.conn.vhost.name, Channel: ch.id, Queue: ReplyToQueue, ConsumerTag: r.tag, Reason: reason})
}

// replyTarget is the open channel whose reply consumer has token, or nil.
func (b *Broker) replyTarget(token string) *channel {
	conn, rest, _ := strings.Cut(token, ".")
	num, _, _ := strings.Cut(rest, ".")
	c, err1 := strconv.ParseUint(conn, 36, 32)
	n, err2 := strconv.ParseUint(num, 36, 16)
	if err1 != nil || err2 != nil {
		return nil
	}
	ch := b.chans[ChannelID{Conn: ConnID(c), Num: uint16(n)}]
	if ch == nil || ch.reply == nil || ch.reply.token != token {
		return nil
	}
	return ch
}

// declareReplyTo answers queue.declare of a name under ReplyToQueue,
// passive or not and with no permission check, as rabbit_channel (3.10.8)
// does: "amq.rabbitmq.reply-to" always exists with 0 messages and 1
// consumer, "amq.rabbitmq.reply-to.<token>" while the token's reply
// consumer does, and any other name under the prefix is 404.
func (b *Broker) declareReplyTo(ch *channel, name string) (QueueDeclareOk, *Error) {
	token, isAddress := strings.CutPrefix(name, replyToPrefix)
	if name != ReplyToQueue && !(isAddress && b.replyTarget(token) != nil) {
		return QueueDeclareOk{}, channelErr(NotFound, MethodQueueDeclare, "no %s", rs("queue", name, ch.conn.vhost.name))
	}
	return QueueDeclareOk{Queue: name, MessageCount: 0, ConsumerCount: 1}, nil
}

// rewriteReplyTo gives a publish asking for a direct reply (reply_to
// ReplyToQueue) the channel's reply address. It comes after the
// exchange's checks and before the message's own: an expiration present
// but empty is refused first (observed, RabbitMQ 3.10.8: 406 "invalid
// expiration ”: no_integer" before the missing reply consumer), then a
// channel without a reply consumer ("fast reply consumer does not
// exist"). The properties are copied: the command keeps what the client
// sent, so that its record replays to the same rewrite.
func (ch *channel) rewriteReplyTo(p *BasicPublish) *Error {
	m := MethodBasicPublish
	if p.Props.Present&FlagExpiration != 0 && p.Props.Expiration == "" {
		return channelErr(PreconditionFailed, m, "invalid expiration '': no_integer")
	}
	if ch.reply == nil {
		return channelErr(PreconditionFailed, m, "fast reply consumer does not exist")
	}
	props := *p.Props
	props.ReplyTo = replyToPrefix + ch.reply.token
	p.Props = &props
	return nil
}

// publishReply is a publish to the default exchange with a reply address
// as routing key, after the exchange's checks: it needs a truthful
// user-id and a valid message like any other, then goes straight to the
// address's consumer. In a transaction it goes at once too: RabbitMQ
// delivers it while routing, which a transaction does not defer.
func (b *Broker) publishReply(ch *channel, p *BasicPublish) error {
	msg, e := b.replyMessage(ch, p)
	if e != nil {
		return b.fail(ch, e)
	}
	var to ChannelID
	tag := ""
	if target := b.replyTarget(strings.TrimPrefix(p.RoutingKey, replyToPrefix)); target != nil {
		to, tag = target.id, target.reply.tag
	}
	b.deliverReply(ch, to, tag, msg, p)
	return nil
}

// replyMessage checks a reply's user-id, then the message's own
// properties, in basicPublish's order, and builds the message.
func (b *Broker) replyMessage(ch *channel, p *BasicPublish) (*Message, *Error) {
	if e := ch.conn.checkUserID(p.Props); e != nil {
		return nil, e
	}
	return b.newMessage(p)
}

// deliverReply hands a reply published on ch to the consumer tag of
// channel to, or, when to is not an open channel (an unknown or gone
// address), returns it if mandatory and drops it if not. The delivery is
// no-ack (reply consumers must be) and takes the consumer channel's next
// delivery tag, so tags stay one sequence per channel. As for any
// publish, a confirm-mode publisher gets its ack afterwards.
func (b *Broker) deliverReply(ch *channel, to ChannelID, tag string, msg *Message, p *BasicPublish) {
	seq := ch.nextPublishSeq()
	vh := ch.conn.vhost.name
	b.emit(Event{Kind: EvPublished, Vhost: vh, Channel: ch.id, Exchange: p.Exchange, RoutingKey: p.RoutingKey, MsgID: msg.ID, Msg: msg, DeliveryTag: seq})
	if target, ok := b.chans[to]; ok {
		target.nextTag++
		b.emit(Event{Kind: EvDelivered, Vhost: target.conn.vhost.name, Channel: to, Msg: msg, MsgID: msg.ID, ConsumerTag: tag,
			DeliveryTag: target.nextTag, NoAck: true, Exchange: p.Exchange, RoutingKey: p.RoutingKey})
	} else if p.Mandatory {
		b.emit(Event{Kind: EvReturned, Vhost: vh, Channel: ch.id, Exchange: p.Exchange, RoutingKey: p.RoutingKey, MsgID: msg.ID, Msg: msg,
			Code: NoRoute, Text: "NO_ROUTE"})
	} else {
		b.emit(Event{Kind: EvDropped, Vhost: vh, Channel: ch.id, Exchange: p.Exchange, MsgID: msg.ID, Msg: msg, Cause: DropUnroutable})
	}
	if seq != 0 {
		b.emit(Event{Kind: EvConfirmed, Vhost: vh, Channel: ch.id, DeliveryTag: seq})
	}
}
