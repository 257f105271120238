package main

import (
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Getting, consuming and acknowledging on a Ch.

// Get fetches one message (manual ack) and returns its delivery tag, 0
// when the queue was empty or on error.
func (c *Ch) Get(short string) uint64 { return c.get(short, false) }

// GetAuto fetches one message with no-ack.
func (c *Ch) GetAuto(short string) uint64 { return c.get(short, true) }

func (c *Ch) get(short string, autoAck bool) uint64 {
	d, ok, err := c.ch.Get(c.s.N(short), autoAck)
	switch {
	case err != nil:
		c.log("basic.get %q: %s", short, c.res(err))
		return 0
	case !ok:
		c.log("basic.get %q: get-empty", short)
		return 0
	}
	head := fmt.Sprintf("basic.get %q: get-ok tag=%d message-count=%d", short, d.DeliveryTag, d.MessageCount)
	for _, l := range message(head, d) {
		c.log("%s", l)
	}
	return d.DeliveryTag
}

// Cons is a basic.consume's options.
type Cons struct {
	Tag              string
	NoAck, Exclusive bool
	Args             amqp.Table
}

// Consumer is a started consumer.
type Consumer struct {
	c   *Ch
	tag string
	d   <-chan amqp.Delivery
}

// Consume starts a consumer; nil on error.
func (c *Ch) Consume(short string, o Cons) *Consumer {
	d, err := c.ch.Consume(c.s.N(short), o.Tag, o.NoAck, o.Exclusive, false, false, o.Args)
	desc := fmt.Sprintf("basic.consume %q tag=%q", short, o.Tag)
	if o.NoAck {
		desc += " no-ack"
	}
	if o.Exclusive {
		desc += " exclusive"
	}
	if len(o.Args) > 0 {
		desc += " {" + tableBody(o.Args) + "}"
	}
	c.log("%s: %s", desc, c.res(err))
	if err != nil {
		return nil
	}
	return &Consumer{c: c, tag: o.Tag, d: d}
}

// Recv waits for n deliveries and logs them; it returns their tags.
func (k *Consumer) Recv(n int) []uint64 {
	var tags []uint64
	if k == nil {
		return nil
	}
	deadline := time.After(deliverWait)
	for len(tags) < n {
		select {
		case d, ok := <-k.d:
			if !ok {
				k.c.log("consumer %q: delivery channel closed after %d of %d", k.tag, len(tags), n)
				return tags
			}
			k.logDelivery(d)
			tags = append(tags, d.DeliveryTag)
		case <-deadline:
			k.c.log("consumer %q: only %d of %d deliveries within %s", k.tag, len(tags), n, deliverWait)
			return tags
		}
	}
	return tags
}

// NoMore logs whatever else arrives within the quiet wait.
func (k *Consumer) NoMore() []uint64 {
	if k == nil {
		return nil
	}
	var tags []uint64
	deadline := time.After(quietWait)
	for {
		select {
		case d, ok := <-k.d:
			if !ok {
				k.c.log("consumer %q: delivery channel closed", k.tag)
				return tags
			}
			k.logDelivery(d)
			tags = append(tags, d.DeliveryTag)
		case <-deadline:
			k.c.log("consumer %q: no more deliveries", k.tag)
			return tags
		}
	}
}

func (k *Consumer) logDelivery(d amqp.Delivery) {
	head := fmt.Sprintf("deliver consumer=%q tag=%d", d.ConsumerTag, d.DeliveryTag)
	for _, l := range message(head, d) {
		k.c.log("%s", l)
	}
}

// Cancel cancels a consumer.
func (c *Ch) Cancel(tag string) {
	c.log("basic.cancel %q: %s", tag, c.res(c.ch.Cancel(tag, false)))
}

// Qos sets a per-consumer prefetch (global=false).
func (c *Ch) Qos(count int) {
	c.log("basic.qos %d: %s", count, c.res(c.ch.Qos(count, 0, false)))
}

// QosGlobal sets a per-channel prefetch (global=true).
func (c *Ch) QosGlobal(count int) {
	c.log("basic.qos %d global: %s", count, c.res(c.ch.Qos(count, 0, true)))
}

// QosSize sends a prefetch-size, which RabbitMQ does not implement.
func (c *Ch) QosSize(size int) {
	c.log("basic.qos size=%d: %s", size, c.res(c.ch.Qos(0, size, false)))
}

// Ack acknowledges one delivery.
func (c *Ch) Ack(tag uint64) { c.log("basic.ack %d: %s", tag, c.res(c.ch.Ack(tag, false))) }

// AckUpTo acknowledges every delivery up to tag (multiple=true).
func (c *Ch) AckUpTo(tag uint64) {
	c.log("basic.ack %d multiple: %s", tag, c.res(c.ch.Ack(tag, true)))
}

// N is a nack's or reject's flags.
type N struct{ Multiple, Requeue bool }

func (n N) String() string {
	return fmt.Sprintf("multiple=%t requeue=%t", n.Multiple, n.Requeue)
}

// Nack negatively acknowledges.
func (c *Ch) Nack(tag uint64, n N) {
	c.log("basic.nack %d %s: %s", tag, n, c.res(c.ch.Nack(tag, n.Multiple, n.Requeue)))
}

// Reject rejects one delivery (Multiple is ignored).
func (c *Ch) Reject(tag uint64, n N) {
	c.log("basic.reject %d requeue=%t: %s", tag, n.Requeue, c.res(c.ch.Reject(tag, n.Requeue)))
}

// Recover asks for redelivery of everything unacked (requeue=true).
func (c *Ch) Recover() { c.log("basic.recover: %s", c.res(c.ch.Recover(true))) }
