package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Ch is a client channel whose every operation is logged with its result.
// Names passed to it are short names (S.N maps them).
type Ch struct {
	s        *S
	label    string
	ch       *amqp.Channel
	returns  chan amqp.Return
	cancels  chan string
	confirms chan amqp.Confirmation
	closes   chan *amqp.Error
	closeErr *amqp.Error // the server's channel.close, once seen
}

// Ch opens a channel, labelled c1.1, c1.2 ... in order.
func (c *Conn) Ch() *Ch {
	c.nch++
	ch, err := c.c.Channel()
	label := fmt.Sprintf("%s.%d", c.label, c.nch)
	if err != nil {
		panic(abort{label + ": channel.open: " + errText(err)})
	}
	return &Ch{
		s: c.s, label: label, ch: ch,
		// Generous buffers: amqp091-go's reader blocks on a full one.
		returns: ch.NotifyReturn(make(chan amqp.Return, 1000)),
		cancels: ch.NotifyCancel(make(chan string, 100)),
		closes:  ch.NotifyClose(make(chan *amqp.Error, 1)),
	}
}

// res renders an operation's result. An operation issued after the
// server's channel.close has arrived fails in the client ("channel/
// connection is not open") where the same operation a moment earlier
// would have returned the server's error; which of the two a client sees
// depends only on how fast the broker answered, so both are rendered as
// the server's error.
func (c *Ch) res(err error) string {
	var e *amqp.Error
	if err == nil || !errors.As(err, &e) || e.Server {
		return result(err)
	}
	if c.closeErr == nil {
		// amqp091-go marks the channel closed before it broadcasts the
		// server's error, so wait for the broadcast (or the close of the
		// notification channel, when the client closed it).
		select {
		case ce, ok := <-c.closes:
			if ok && ce != nil {
				c.closeErr = ce
			}
		case <-time.After(quietWait):
		}
	}
	if c.closeErr != nil && c.closeErr.Server {
		return errText(c.closeErr)
	}
	return result(err)
}

func (c *Ch) log(format string, args ...any) {
	c.s.Log(c.label+": "+format, args...)
}

// Msg is a publish: exchange and routing key as short names (the key is
// mapped only on the default exchange, where it names a queue).
type Msg struct {
	Ex, Key, Body        string
	Mandatory, Immediate bool
	P                    amqp.Publishing // properties; Body is set from Msg.Body
}

// Pub publishes a plain message.
func (c *Ch) Pub(ex, key, body string) { c.Publish(Msg{Ex: ex, Key: key, Body: body}) }

// Publish publishes; errors from the server come later, on Sync.
func (c *Ch) Publish(m Msg) {
	key := m.Key
	if m.Ex == "" {
		key = c.s.N(key)
	}
	p := m.P
	p.Body = []byte(m.Body)
	ctx, cancel := context.WithTimeout(context.Background(), deliverWait)
	defer cancel()
	err := c.ch.PublishWithContext(ctx, c.s.N(m.Ex), key, m.Mandatory, m.Immediate, p)
	extra := ""
	if m.Mandatory {
		extra += " mandatory"
	}
	if m.Immediate {
		extra += " immediate"
	}
	if p.Expiration != "" {
		extra += fmt.Sprintf(" expiration=%q", p.Expiration)
	}
	if p.Priority != 0 {
		extra += fmt.Sprintf(" priority=%d", p.Priority)
	}
	if len(p.Headers) > 0 {
		extra += " headers={" + tableBody(p.Headers) + "}"
	}
	if err != nil {
		c.log("publish %q %q %s%s: %s", m.Ex, m.Key, bodyText(p.Body), extra, c.res(err))
		return
	}
	c.log("publish %q %q %s%s", m.Ex, m.Key, bodyText(p.Body), extra)
}

// Sync makes a round trip on the channel, so that any asynchronous error
// (a refused publish or ack) and any basic.return sent before it have
// arrived, and logs them. It then waits syncSettle: the round trip proves
// RabbitMQ's channel process has handed the publishes to the queue
// processes, not that they have enqueued them, and a queue process
// answers a stat (queue.declare-ok counts) ahead of deliveries still in
// its mailbox.
func (c *Ch) Sync() {
	err := c.ch.ExchangeDeclarePassive("amq.direct", "direct", true, false, false, false, nil)
	time.Sleep(syncSettle)
	c.logReturns()
	c.logCancels()
	c.log("sync: %s", c.res(err))
}

func (c *Ch) logReturns() {
	for {
		select {
		case r, ok := <-c.returns:
			if !ok {
				return // closed with the channel
			}
			c.log("basic.return %d %s exchange=%q rk=%q body=%s", r.ReplyCode, r.ReplyText, r.Exchange, r.RoutingKey, bodyText(r.Body))
		default:
			return
		}
	}
}

func (c *Ch) logCancels() {
	for {
		select {
		case tag, ok := <-c.cancels:
			if !ok {
				return
			}
			c.log("basic.cancel from server: consumer %q", tag)
		default:
			return
		}
	}
}

// Confirm puts the channel in confirm mode.
func (c *Ch) Confirm() {
	c.confirms = c.ch.NotifyPublish(make(chan amqp.Confirmation, 1000))
	c.log("confirm.select: %s", c.res(c.ch.Confirm(false)))
}

// Confirms waits for n confirms and logs them after any basic.return
// received so far (a return arrives before its message's ack).
func (c *Ch) Confirms(n int) {
	var got []string
	deadline := time.After(deliverWait)
	for len(got) < n {
		select {
		case cf, ok := <-c.confirms:
			if !ok {
				c.logReturns()
				c.log("confirms: %s; confirm channel closed after %d of %d", strings.Join(got, " "), len(got), n)
				return
			}
			what := "ack"
			if !cf.Ack {
				what = "nack"
			}
			got = append(got, fmt.Sprintf("%d:%s", cf.DeliveryTag, what))
		case <-deadline:
			c.logReturns()
			c.log("confirms: %s; only %d of %d within %s", strings.Join(got, " "), len(got), n, deliverWait)
			return
		}
	}
	c.logReturns()
	c.log("confirms: %s", strings.Join(got, " "))
}

// Tx, TxCommit and TxRollback are the tx class.
func (c *Ch) Tx()         { c.log("tx.select: %s", c.res(c.ch.Tx())) }
func (c *Ch) TxCommit()   { c.log("tx.commit: %s", c.res(c.ch.TxCommit())) }
func (c *Ch) TxRollback() { c.log("tx.rollback: %s", c.res(c.ch.TxRollback())) }

// Close closes the channel from the client side.
func (c *Ch) Close() { c.log("channel.close: %s", c.res(c.ch.Close())) }
