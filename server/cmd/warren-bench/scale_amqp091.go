package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// amqp091Scale carries a scale point with amqp091-go: a write system call
// per publish, and an ack (multiple=false) per delivery.
type amqp091Scale struct {
	url        string
	prefetch   int
	sizeBytes  int
	conns      []*amqp.Connection
	deliveries []<-chan amqp.Delivery // queue q's
	pubs       []*amqp.Channel        // publisher p's
	count      atomic.Int64           // deliveries acked
}

func newAMQP091Scale(e *env) scaleClient {
	return &amqp091Scale{url: e.url, prefetch: e.scale.prefetch, sizeBytes: e.sizeBytes}
}

// open connects scaleSetupWorkers connections at a time, then declares
// and consumes as many queues at a time, each on a channel of its own.
func (c *amqp091Scale) open(ctx context.Context, plan scalePlan, queues []string, declared []bool) error {
	nq := len(queues)
	c.conns = make([]*amqp.Connection, plan.conns)
	if err := forEach(ctx, plan.conns, scaleSetupWorkers, func(i int) error {
		conn, err := dial(c.url)
		c.conns[i] = conn
		return err
	}); err != nil {
		return fmt.Errorf("opening %d connections: %w", plan.conns, err)
	}

	c.deliveries = make([]<-chan amqp.Delivery, nq)
	if err := forEach(ctx, nq, scaleSetupWorkers, func(q int) error {
		ch, err := c.conns[plan.subConn[q]].Channel()
		if err != nil {
			return err
		}
		if err := ch.Qos(c.prefetch, 0, false); err != nil {
			return err
		}
		if err := declareQueue(ch, queues[q], nil); err != nil {
			return err
		}
		declared[q] = true
		c.deliveries[q], err = ch.Consume(queues[q], "", false, false, false, false, nil)
		return err
	}); err != nil {
		return fmt.Errorf("declaring and consuming %d queues: %w", nq, err)
	}
	c.pubs = make([]*amqp.Channel, len(plan.pubConn))
	for p := range c.pubs {
		var err error
		if c.pubs[p], err = c.conns[plan.pubConn[p]].Channel(); err != nil {
			return err
		}
	}
	return nil
}

// run starts a consumer per queue and a publisher per publishing channel
// and waits for them all.
func (c *amqp091Scale) run(ctx context.Context, sch scaleSchedule, inboxes []*scaleInbox) (time.Duration, error) {
	nq, np := len(c.deliveries), len(c.pubs)
	consumed := make(chan error, nq)
	for q := range nq {
		go func() {
			consumed <- consumeScale(ctx, sch, inboxes[q], c.deliveries[q], &c.count)
		}()
	}
	published := make(chan publisherTally, np)
	for p := range np {
		go func() {
			published <- publishScale(ctx, sch, p, c.pubs[p], c.sizeBytes)
		}()
	}
	var errs []error
	var lagMax time.Duration
	for range np {
		t := <-published
		errs = append(errs, t.err)
		lagMax = max(lagMax, t.lagMax)
	}
	for range nq {
		errs = append(errs, <-consumed)
	}
	return lagMax, errors.Join(errs...)
}

func (c *amqp091Scale) delivered() int64 { return c.count.Load() }

func (c *amqp091Scale) notes() []string { return nil }

func (c *amqp091Scale) close() error {
	for _, conn := range c.conns {
		if conn != nil {
			conn.Close()
		}
	}
	return nil
}

// publishScale sends publisher p's messages on ch, each on its own when it
// falls due, to its queue through the default exchange.
func publishScale(ctx context.Context, sch scaleSchedule, p int, ch *amqp.Channel, sizeBytes int) publisherTally {
	b := body(sizeBytes)
	return sch.publishOnSchedule(ctx, p, 1, func(i, _ int, now time.Time) error {
		putScaleHead(b, i, now.UnixNano())
		if err := ch.PublishWithContext(ctx, "", sch.queues[sch.plan.queueOf(i)], false, false, amqp.Publishing{Body: b}); err != nil {
			return fmt.Errorf("publisher %d, message %d: %w", p, i, err)
		}
		return nil
	})
}

// consumeScale receives in's queue's share of the messages from
// deliveries, hands each to in (scaleSchedule.take), acks it on its own
// and counts it in delivered.
func consumeScale(ctx context.Context, sch scaleSchedule, in *scaleInbox, deliveries <-chan amqp.Delivery, delivered *atomic.Int64) error {
	want := shareOf(in.q, len(sch.plan.subConn), sch.total)
	for got := 0; got < want; got++ {
		var d amqp.Delivery
		var ok bool
		select {
		case d, ok = <-deliveries:
		case <-ctx.Done():
			return fmt.Errorf("queue %d: %d of %d messages: %w", in.q, got, want, ctx.Err())
		}
		now := time.Now().UnixNano()
		if !ok {
			return fmt.Errorf("queue %d: deliveries ended after %d of %d", in.q, got, want)
		}
		if err := sch.take(in, d.Body, now); err != nil {
			return err
		}
		if err := d.Ack(false); err != nil {
			return fmt.Errorf("queue %d: ack: %w", in.q, err)
		}
		delivered.Add(1)
	}
	return nil
}
