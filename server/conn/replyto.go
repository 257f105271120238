package conn

import (
	"strconv"
	"strings"

	"warren/engine"
	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// Direct reply-to (RabbitMQ's amq.rabbitmq.reply-to): a requester consumes
// from the pseudo-queue "amq.rabbitmq.reply-to" in no-ack mode and publishes
// requests with reply_to set to that name; the broker rewrites reply_to to
// "amq.rabbitmq.reply-to.<token>", and a reply published to the default
// exchange with that routing key goes straight to the requester's consumer,
// through no queue.
const replyTo = "amq.rabbitmq.reply-to"

// replyTo handles a command that direct reply-to answers instead of the
// machine, inside the backend's Do with the connection's events kept for
// the machine (inbox.go), and reports whether it did: queue.declare of
// the pseudo-queue, basic.consume from it, basic.cancel of its consumer,
// and a publish that asks for a reply or is one. Only on an open channel
// of a running connection with nothing else under way; anything else is
// the machine's.
func (c *conn) replyTo(cmd command) bool {
	c.owner.check()
	m := c.m
	n := cmd.Channel
	if !m.IsOpen() || m.Closing() || m.Busy() || n == 0 || !m.ChannelOpen(n) {
		return false
	}
	id := engine.ChannelID{Conn: c.connID, Num: n}
	var f func(e *engine.Broker)
	switch meth := cmd.Method.(type) {
	case *amqp.QueueDeclare:
		if strings.HasPrefix(meth.Queue, replyTo) {
			f = func(e *engine.Broker) { c.declareReplyTo(e, id, meth) }
		}
	case *amqp.BasicConsume:
		if meth.Queue == replyTo {
			f = func(e *engine.Broker) { c.consumeReplyTo(e, id, meth) }
		}
	case *amqp.BasicCancel:
		f = func(e *engine.Broker) {
			if t, ok := c.home.replies.byChan[id]; ok && c.home.replies.byToken[t].tag == meth.ConsumerTag {
				c.dropReplyTo(id)
				if !meth.NoWait {
					c.push(n, &amqp.BasicCancelOk{ConsumerTag: meth.ConsumerTag})
				}
				return
			}
			cancelled := e.Apply(engine.CmdBasicCancel{Channel: id, ConsumerTag: meth.ConsumerTag})
			if cancelled.Err == nil && !meth.NoWait {
				c.push(n, &amqp.BasicCancelOk{ConsumerTag: meth.ConsumerTag})
			}
		}
		if !c.hasReplyConsumer(n) {
			f = nil // the machine's
		}
	case *amqp.BasicPublish:
		if asksReplyTo(cmd) {
			f = func(e *engine.Broker) { c.publishReplyTo(e, id, cmd) }
		}
	}
	if f == nil {
		return false
	}
	c.writeInline(func() {
		c.inbox.begin()
		c.b.Do(f)
		c.settle(nil, false)
	})
	c.backlog()
	return true
}

// hasReplyConsumer reports whether channel n has a reply consumer; it
// reads replyChans, which changes inside the backend's Do.
func (c *conn) hasReplyConsumer(n uint16) bool {
	var has bool
	c.b.Do(func(*engine.Broker) { has = c.replyChans[n] })
	return has
}

// asksReplyTo reports whether a publish asks for a direct reply (reply_to
// is the pseudo-queue) or is one (to "amq.rabbitmq.reply-to.<token>"
// through the default exchange).
func asksReplyTo(cmd command) bool {
	p, ok := cmd.Method.(*amqp.BasicPublish)
	if !ok {
		return false
	}
	return (cmd.Props != nil && cmd.Props.ReplyTo == replyTo) || (p.Exchange == "" && strings.HasPrefix(p.RoutingKey, replyTo+"."))
}

// publishReplyTo runs a publish that direct reply-to concerns. The checks
// made here come after the engine's permission, existence and internal
// checks in rabbit_channel's order, so those run first (a publish with
// reply_to set but no write permission is 403, not 406).
func (c *conn) publishReplyTo(e *engine.Broker, id engine.ChannelID, cmd command) {
	m := cmd.Method.(*amqp.BasicPublish)
	asksReply := cmd.Props != nil && cmd.Props.ReplyTo == replyTo
	if asksReply && e.PublishTarget(id, m.Exchange) != nil {
		return
	}
	if asksReply && cmd.Props.Has(amqp.FlagExpiration) && cmd.Props.Expiration == "" {
		// An expiration property present but empty (observed,
		// RabbitMQ 3.10.8: 406 "invalid expiration '': no_integer").
		// The engine refuses it, after the user-id check as
		// RabbitMQ does; for direct reply-to it is refused here, so
		// that the 406 comes before direct reply-to's own checks.
		e.ChannelException(id, &engine.Error{Code: engine.PreconditionFailed, Method: engine.MethodBasicPublish,
			Text: "PRECONDITION_FAILED - invalid expiration '': no_integer"})
		return
	}
	p := engine.BasicPublish{Exchange: m.Exchange, RoutingKey: m.RoutingKey, Mandatory: m.Mandatory, Immediate: m.Immediate,
		Props: amqpconn.ToEngineProps(cmd.Props), Body: cmd.Body}
	if p.Props != nil && p.Props.ReplyTo == replyTo && !c.rewriteReplyTo(e, id, p.Props) {
		return
	}
	if m.Exchange == "" && strings.HasPrefix(m.RoutingKey, replyTo+".") {
		c.publishReply(e, id, p)
		return
	}
	e.BasicPublish(id, p)
}

// push queues a method from inside the backend's Do (direct reply-to's
// replies; the machine is idle meanwhile).
func (c *conn) push(ch uint16, m amqp.Method) { c.out.push(outItem{channel: ch, method: m}) }

// replyTargets maps tokens to the consumers they reach. It is shared by the
// server's connections and touched only inside the backend's Do.
type replyTargets struct {
	next    uint64
	byToken map[string]replyTarget
	byChan  map[engine.ChannelID]string
}

type replyTarget struct {
	ch  engine.ChannelID
	tag string
}

func newReplyTargets() *replyTargets {
	return &replyTargets{byToken: map[string]replyTarget{}, byChan: map[engine.ChannelID]string{}}
}

// consume registers a channel's reply consumer.
func (c *conn) consumeReplyTo(e *engine.Broker, id engine.ChannelID, m *amqp.BasicConsume) {
	r := c.home.replies
	if !m.NoAck {
		e.ChannelException(id, &engine.Error{Code: engine.PreconditionFailed, Method: engine.MethodBasicConsume,
			Text: "PRECONDITION_FAILED - reply consumer cannot acknowledge"})
		return
	}
	if _, dup := r.byChan[id]; dup {
		e.ChannelException(id, &engine.Error{Code: engine.PreconditionFailed, Method: engine.MethodBasicConsume,
			Text: "PRECONDITION_FAILED - reply consumer already set"})
		return
	}
	tag := m.ConsumerTag
	if tag == "" {
		r.next++
		tag = "amq.ctag-reply-" + strconv.FormatUint(r.next, 36)
	}
	r.next++
	token := strconv.FormatUint(uint64(id.Conn), 36) + "." + strconv.FormatUint(uint64(id.Num), 36) + "." + strconv.FormatUint(r.next, 36)
	r.byToken[token] = replyTarget{ch: id, tag: tag}
	r.byChan[id] = token
	c.replyChans[id.Num] = true
	if !m.NoWait {
		c.push(id.Num, &amqp.BasicConsumeOk{ConsumerTag: tag})
	}
}

// rewriteReplyTo turns reply_to "amq.rabbitmq.reply-to" into the channel's
// own address; it reports false (after closing the channel as RabbitMQ
// does) when the channel has no reply consumer.
func (c *conn) rewriteReplyTo(e *engine.Broker, id engine.ChannelID, p *engine.Properties) bool {
	token, ok := c.home.replies.byChan[id]
	if !ok {
		e.ChannelException(id, &engine.Error{Code: engine.PreconditionFailed, Method: engine.MethodBasicPublish,
			Text: "PRECONDITION_FAILED - fast reply consumer does not exist"})
		return false
	}
	p.ReplyTo = replyTo + "." + token
	return true
}

// publishReply routes a publish to "amq.rabbitmq.reply-to.<token>". An
// unknown or gone token routes nowhere (a mandatory reply is returned).
func (c *conn) publishReply(e *engine.Broker, id engine.ChannelID, p engine.BasicPublish) {
	target := c.home.replies.byToken[strings.TrimPrefix(p.RoutingKey, replyTo+".")]
	e.PublishDirect(id, target.ch, target.tag, p)
}

// dropReplyTo forgets a channel's reply consumer (channel or connection
// closed, or the consumer cancelled).
func (c *conn) dropReplyTo(id engine.ChannelID) {
	r := c.home.replies
	if token, ok := r.byChan[id]; ok {
		delete(r.byToken, token)
		delete(r.byChan, id)
	}
	delete(c.replyChans, id.Num)
}

// declareReplyTo answers queue.declare of the pseudo-queue, passive or
// not and with no permission check, as rabbit_channel (3.10.8) does:
// "amq.rabbitmq.reply-to" always exists with 0 messages and 1 consumer,
// "amq.rabbitmq.reply-to.<token>" while the token's reply consumer does,
// and any other name under the prefix is 404.
func (c *conn) declareReplyTo(e *engine.Broker, id engine.ChannelID, m *amqp.QueueDeclare) {
	_, live := c.home.replies.byToken[strings.TrimPrefix(m.Queue, replyTo+".")]
	if m.Queue != replyTo && !(strings.HasPrefix(m.Queue, replyTo+".") && live) {
		e.ChannelException(id, &engine.Error{Code: engine.NotFound, Method: engine.MethodQueueDeclare,
			Text: "NOT_FOUND - no queue '" + m.Queue + "' in vhost '" + c.vhost + "'"})
		return
	}
	if !m.NoWait {
		c.push(id.Num, &amqp.QueueDeclareOk{Queue: m.Queue, MessageCount: 0, ConsumerCount: 1})
	}
}
