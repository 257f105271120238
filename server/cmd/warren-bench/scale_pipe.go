package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"warren/engine/amqp"
)

// pipeScaleHow ends the scale workloads' descriptions with the pipelining
// client's way of publishing and acking.
const pipeScaleHow = ", with the pipelining client (each publisher writes what has fallen due in one write, acks with multiple=true per a quarter of the prefetch)"

// pipeScale carries a scale point with the pipelining client (pipe_*.go)
// on the plan's connections and channels, as amqp091Scale does: each
// publisher writes the messages that have fallen due in one write (one
// at a time at an even pace, up to --batch when it is late), and each
// consuming connection reads many frames a read and acks with
// multiple=true once a channel has pipeAckEvery(prefetch) deliveries
// unacknowledged (the rest once every message is in). A delivery's time
// is when the read that completed it returned.
type pipeScale struct {
	url       string
	prefetch  int
	sizeBytes int
	batchMax  int
	conns     []*pipeConn
	subs      []*pipeConsumer   // connection i's consumer; nil on one that consumes nothing
	watchers  []*pipePublisher  // readers of the connections that only publish
	pubs      []*scalePublisher // publisher p's
	progress  *pipeProgress
}

// scalePublisher is one publisher of a scale point on the pipelining
// client: a channel with a publish encoded once per queue it sends to.
type scalePublisher struct {
	index     int
	w         *pipeConn               // its connection's write side
	tmpls     map[int]publishTemplate // by queue
	published int
}

func newPipeScale(e *env) scaleClient {
	return &pipeScale{url: e.url, prefetch: e.scale.prefetch, sizeBytes: e.sizeBytes, batchMax: e.pipe.batch, progress: newPipeProgress(0)}
}

// open sets up scaleSetupWorkers connections at a time: on each, a
// channel per queue it consumes (basic.qos, queue.declare, basic.consume)
// numbered from 1, then a channel per publisher on it.
func (c *pipeScale) open(ctx context.Context, plan scalePlan, queues []string, declared []bool) error {
	consumes := make([][]int, plan.conns) // queues consumed on each connection
	for q, i := range plan.subConn {
		consumes[i] = append(consumes[i], q)
	}
	publishes := make([][]int, plan.conns) // publishers on each connection
	for p, i := range plan.pubConn {
		publishes[i] = append(publishes[i], p)
	}
	c.conns = make([]*pipeConn, plan.conns)
	c.subs = make([]*pipeConsumer, plan.conns)
	watchers := make([]*pipePublisher, plan.conns)
	c.pubs = make([]*scalePublisher, len(plan.pubConn))
	b := body(c.sizeBytes)
	err := forEach(ctx, plan.conns, scaleSetupWorkers, func(i int) error {
		conn, err := dialPipe(ctx, c.url)
		if err != nil {
			return err
		}
		c.conns[i] = conn
		ch := uint16(0)
		for _, q := range consumes[i] {
			ch++
			if err := conn.openChannel(ch); err != nil {
				return err
			}
			if _, err := rpc[*amqp.BasicQosOk](conn, ch, &amqp.BasicQos{PrefetchCount: uint16(c.prefetch)}); err != nil {
				return err
			}
			if _, err := rpc[*amqp.QueueDeclareOk](conn, ch, &amqp.QueueDeclare{Queue: queues[q]}); err != nil {
				return err
			}
			declared[q] = true
			consume := &amqp.BasicConsume{Queue: queues[q], ConsumerTag: fmt.Sprintf("scale-%d", q)}
			if _, err := rpc[*amqp.BasicConsumeOk](conn, ch, consume); err != nil {
				return err
			}
		}
		if len(consumes[i]) > 0 {
			c.subs[i] = &pipeConsumer{conn: conn, state: newTakingConsumeState(consumes[i], pipeAckEvery(c.prefetch), nil)}
		} else if len(publishes[i]) > 0 {
			watchers[i] = &pipePublisher{conn: conn, index: publishes[i][0]}
		}
		for _, p := range publishes[i] {
			ch++
			if err := conn.openChannel(ch); err != nil {
				return err
			}
			pub := &scalePublisher{index: p, w: conn.writeSide(), tmpls: map[int]publishTemplate{}}
			for _, q := range plan.queuesOf(p) {
				if pub.tmpls[q], err = newPublishTemplate(ch, "", queues[q], amqp.Properties{}, b, conn.frameMax); err != nil {
					return err
				}
			}
			c.pubs[p] = pub
		}
		return nil
	})
	for _, w := range watchers {
		if w != nil {
			c.watchers = append(c.watchers, w)
		}
	}
	if err != nil {
		return fmt.Errorf("opening %d connections with %d queues: %w", plan.conns, len(queues), err)
	}
	return nil
}

// run drives the publishers (publish) and the connections' readers (the
// consumers, and a watcher on each connection that only publishes) with
// pipeProgress.drive until every message is delivered.
func (c *pipeScale) run(ctx context.Context, sch scaleSchedule, inboxes []*scaleInbox) (time.Duration, error) {
	c.progress.target = int64(sch.total) // before any consumer counts
	load := pipeLoad{abort: c.abort}
	take := func(q int, head []byte, readAtNs int64) error { return sch.take(inboxes[q], head, readAtNs) }
	for _, s := range c.subs {
		if s == nil {
			continue
		}
		s.state.take = take
		load.listen = append(load.listen, func() error { return s.run(c.progress) })
		load.listeners = append(load.listeners, s.conn)
	}
	for _, w := range c.watchers {
		load.listen = append(load.listen, func() error { return w.watch(c.progress) })
		load.listeners = append(load.listeners, w.conn)
	}
	tallies := make([]publisherTally, len(c.pubs))
	for _, p := range c.pubs {
		load.work = append(load.work, func(ctx context.Context) error {
			tallies[p.index] = p.publish(ctx, sch, c.batchMax)
			return tallies[p.index].err
		})
	}
	for _, conn := range c.conns {
		conn.reads, conn.writes = 0, 0 // count the run's system calls, not the set-up's
	}
	_, _, err := c.progress.drive(ctx, load)
	var lagMax time.Duration
	for _, t := range tallies {
		lagMax = max(lagMax, t.lagMax)
	}
	return lagMax, err
}

// publish sends the publisher's messages on schedule: each batch that
// publishOnSchedule hands it, stamped with one send time, in one write.
func (p *scalePublisher) publish(ctx context.Context, sch scaleSchedule, batchMax int) publisherTally {
	step := len(sch.plan.pubConn)
	return sch.publishOnSchedule(ctx, p.index, batchMax, func(first, n int, now time.Time) error {
		sentNs := now.UnixNano()
		for k := range n {
			i := first + k*step
			var body []byte
			p.w.out, body = p.tmpls[sch.plan.queueOf(i)].appendOne(p.w.out)
			putScaleHead(body, i, sentNs)
		}
		p.published += n
		if err := p.w.flush(); err != nil {
			return fmt.Errorf("publisher %d, message %d: %w", p.index, first, err)
		}
		return nil
	})
}

func (c *pipeScale) delivered() int64 { return c.progress.delivered.Load() }

// notes says how much each system call and each ack carried.
func (c *pipeScale) notes() []string {
	publishes, writes := 0, 0
	for _, p := range c.pubs {
		publishes += p.published
		writes += p.w.writes
	}
	deliveries, reads, acks := 0, 0, 0
	for _, s := range c.subs {
		if s != nil {
			deliveries += s.state.delivered
			reads += s.conn.reads
			acks += s.state.ackFrames
		}
	}
	return []string{fmt.Sprintf("pipelining client: %.2f publishes per write, %.2f deliveries per read, %.1f deliveries per basic.ack multiple=true (prefetch %d, an ack once %d are unacknowledged)",
		float64(publishes)/float64(max(writes, 1)), float64(deliveries)/float64(max(reads, 1)), float64(deliveries)/float64(max(acks, 1)), c.prefetch, pipeAckEvery(c.prefetch))}
}

// abort closes every socket at once, ending every goroutine's I/O.
func (c *pipeScale) abort() {
	for _, conn := range c.conns {
		if conn != nil {
			conn.c.Close()
		}
	}
}

// close closes every connection gracefully.
func (c *pipeScale) close() error {
	var errs []error
	for _, conn := range c.conns {
		if conn != nil {
			errs = append(errs, conn.close(nil))
		}
	}
	return errors.Join(errs...)
}
