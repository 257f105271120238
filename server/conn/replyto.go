package conn

import (
	"strconv"
	"strings"

	"warren/engine"
	"warren/engine/amqp"
)

// Direct reply-to (RabbitMQ's amq.rabbitmq.reply-to): a requester consumes
// from the pseudo-queue "amq.rabbitmq.reply-to" in no-ack mode and publishes
// requests with reply_to set to that name; the broker rewrites reply_to to
// "amq.rabbitmq.reply-to.<token>", and a reply published to the default
// exchange with that routing key goes straight to the requester's consumer,
// through no queue.
const replyTo = "amq.rabbitmq.reply-to"

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
