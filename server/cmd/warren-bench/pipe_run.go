package main

import (
	"context"
	"errors"
	"fmt"

	"warren/engine/amqp"
)

// pipeConfig is the shape of the pipelining client's load: how many
// connections publish and consume, and how much each write carries.
type pipeConfig struct {
	publishers int // connections, one confirming channel each
	consumers  int // connections; their channels share out the queues
	batch      int // publishes per write, at most
}

// Defaults and limits of pipeConfig.
const (
	defaultPipePublishers = 2
	defaultPipeConsumers  = 2
	defaultPipeBatch      = 256
	maxPipeConns          = 64
)

// pipeAckEvery is how many deliveries a consumer channel with basic.qos
// prefetch lets go unacknowledged before one basic.ack with multiple=true
// settles them: a quarter of the prefetch (at least 1), so the broker
// always has room to send.
func pipeAckEvery(prefetch int) int { return max(prefetch/4, 1) }

func (c pipeConfig) check() error {
	switch {
	case c.publishers < 1 || c.publishers > maxPipeConns:
		return fmt.Errorf("--publishers %d: want 1..%d", c.publishers, maxPipeConns)
	case c.consumers < 1 || c.consumers > maxPipeConns:
		return fmt.Errorf("--consumers %d: want 1..%d", c.consumers, maxPipeConns)
	case c.batch < 1 || c.batch > 100_000:
		return fmt.Errorf("--batch %d: want 1..100000", c.batch)
	}
	return nil
}

// pipeJob is what one run of the pipelining client does: publish
// messages in all (split among the publishers) to exchange with key, with
// confirms or without, and, when queues are consumed, receive every
// message on every queue.
type pipeJob struct {
	exchange, key string
	confirm       bool     // publish in confirm mode, at most env.window unconfirmed per publisher
	queues        []string // consumed when consume is set
	consume       bool
	manualAck     bool // acks with multiple=true (else no-ack consumers)
	messages      int
	props         amqp.Properties
	// settle, when set, is waited for after the last publish is written
	// (and confirmed, and delivered): the clock runs until it returns. A
	// job without confirms or consumers uses it to wait until the broker
	// has taken in every message, so that the figure is not how fast the
	// client could write to its sockets.
	settle func(ctx context.Context) error
}

// pipeRun is one run in progress: its connections and their counters.
type pipeRun struct {
	e        *env
	job      pipeJob
	sent     []int // messages per publisher
	pubs     []*pipePublisher
	subs     []*pipeConsumer
	progress *pipeProgress
}

// conns lists every connection of the run.
func (r *pipeRun) conns() []*pipeConn {
	var out []*pipeConn
	for _, p := range r.pubs {
		out = append(out, p.conn)
	}
	for _, s := range r.subs {
		out = append(out, s.conn)
	}
	return out
}

// pipeConsumer is one consuming connection.
type pipeConsumer struct {
	conn  *pipeConn
	state *consumeState
}

// runPipe runs job and reports msgs/s (deliveries/s when several queues
// are consumed), the broker's and the client's CPU per message or
// delivery, and how many messages each system call carried.
func runPipe(ctx context.Context, e *env, job pipeJob) (res Result, err error) {
	target := 0
	if job.consume {
		target = job.messages * len(job.queues)
	}
	r := &pipeRun{e: e, job: job, progress: newPipeProgress(target)}
	for i := 0; i < e.pipe.publishers; i++ {
		n := job.messages / e.pipe.publishers
		if i < job.messages%e.pipe.publishers {
			n++
		}
		r.sent = append(r.sent, n)
	}
	defer r.closeAll(&err)
	if job.consume {
		if err := r.openConsumers(ctx); err != nil {
			return res, err
		}
	}
	if err := r.openPublishers(ctx); err != nil {
		return res, err
	}

	for _, c := range r.conns() {
		c.reads, c.writes = 0, 0 // count the run's system calls, not the set-up's
	}

	// Writers, and confirm readers, are done when they return nil;
	// listeners (consumers, and the readers of publishers without
	// confirms) return nil only once the run is over (pipeProgress.end).
	load := pipeLoad{settle: job.settle, listeners: r.listeners(), abort: r.abort}
	for _, s := range r.subs {
		load.listen = append(load.listen, func() error { return s.run(r.progress) })
	}
	for _, p := range r.pubs {
		load.work = append(load.work, func(ctx context.Context) error { return p.write(ctx, e.window, e.pipe.batch) })
		if p.confirm {
			load.work = append(load.work, func(context.Context) error { return p.readConfirms() })
		} else {
			load.listen = append(load.listen, func() error { return p.watch(r.progress) })
		}
	}
	cpu := startCPU(e.serverPID)
	wrote, elapsed, err := r.progress.drive(ctx, load)
	if err != nil {
		return Result{}, r.describe(err)
	}

	units, per := job.messages, "msg"
	res = Result{ElapsedMs: ms(elapsed)}
	if job.consume && len(job.queues) > 1 {
		units, per = job.messages*len(job.queues), "delivery"
		res.Metrics = append(res.Metrics, Metric{Name: "deliveries", Unit: "deliveries/s", Value: rate(units, elapsed), HigherIsBetter: true})
	} else {
		res.Metrics = append(res.Metrics, Metric{Name: "throughput", Unit: "msgs/s", Value: rate(units, elapsed), HigherIsBetter: true})
	}
	res.addCPU(cpu, units, per)
	res.Notes = append(res.Notes, r.shape())
	if job.settle != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("publishers finished writing after %.0f ms", ms(wrote)))
	}
	return res, r.verify()
}

// openConsumers connects the consumers and starts consuming: queue q is
// read by connection q mod consumers, each queue on a channel of its own
// (a connection with no queue of its own shares queue c mod queues), with
// prefetch consumePrefetch when acking.
func (r *pipeRun) openConsumers(ctx context.Context) error {
	n := r.e.pipe.consumers
	for c := 0; c < n; c++ {
		var queues []int
		for q := c; q < len(r.job.queues); q += n {
			queues = append(queues, q)
		}
		if len(queues) == 0 {
			queues = []int{c % len(r.job.queues)}
		}
		conn, err := dialPipe(ctx, r.e.url)
		if err != nil {
			return err
		}
		s := &pipeConsumer{conn: conn, state: newConsumeState(queues, r.sent, r.job.manualAck, pipeAckEvery(consumePrefetch))}
		r.subs = append(r.subs, s)
		for i, q := range queues {
			ch := uint16(i + 1)
			if err := conn.openChannel(ch); err != nil {
				return err
			}
			if r.job.manualAck {
				if _, err := rpc[*amqp.BasicQosOk](conn, ch, &amqp.BasicQos{PrefetchCount: consumePrefetch}); err != nil {
					return err
				}
			}
			consume := &amqp.BasicConsume{Queue: r.job.queues[q], ConsumerTag: fmt.Sprintf("pipe-%d-%d", c, ch), NoAck: !r.job.manualAck}
			if _, err := rpc[*amqp.BasicConsumeOk](conn, ch, consume); err != nil {
				return err
			}
		}
	}
	return nil
}

// listeners lists the connections whose readers run until the run is
// over: the consumers', and the publishers' without confirms.
func (r *pipeRun) listeners() []*pipeConn {
	var out []*pipeConn
	if !r.job.confirm {
		for _, p := range r.pubs {
			out = append(out, p.conn)
		}
	}
	for _, s := range r.subs {
		out = append(out, s.conn)
	}
	return out
}

// abort closes every socket at once, ending every goroutine's I/O.
func (r *pipeRun) abort() {
	for _, c := range r.conns() {
		c.c.Close()
	}
}

// closeAll closes every connection gracefully, adding what fails to err
// only when the run itself succeeded.
func (r *pipeRun) closeAll(err *error) {
	var errs []error
	for _, p := range r.pubs {
		errs = append(errs, p.conn.close(p.afterRun))
	}
	for _, s := range r.subs {
		errs = append(errs, s.conn.close(nil))
	}
	if *err == nil {
		*err = errors.Join(errs...)
	}
}

// describe adds where the run had got to to err.
func (r *pipeRun) describe(err error) error {
	var published, confirmed uint64
	for _, p := range r.pubs {
		published += p.published.Load()
		confirmed += p.confirmed.Load()
	}
	return fmt.Errorf("published %d of %d, %d confirmed, %d of %d deliveries: %w",
		published, r.job.messages, confirmed, r.progress.delivered.Load(), r.progress.target, err)
}

// verify checks that every publish was confirmed (none nacked) and that
// every consumed queue received every message exactly once.
func (r *pipeRun) verify() error {
	var errs []error
	for _, p := range r.pubs {
		if p.confirms.nacked > 0 {
			errs = append(errs, fmt.Errorf("publisher %d: %d of %d publishes nacked", p.index, p.confirms.nacked, p.count))
		}
	}
	if !r.job.consume {
		return errors.Join(errs...)
	}
	perQueue := make([]*idSet, len(r.job.queues))
	for _, s := range r.subs {
		for _, c := range s.state.channels[1:] {
			if perQueue[c.queue] == nil {
				perQueue[c.queue] = newIDSet(r.sent)
			}
			perQueue[c.queue].merge(c.ids)
		}
	}
	for q, set := range perQueue {
		if err := set.check(); err != nil {
			errs = append(errs, fmt.Errorf("queue %s: %w", r.job.queues[q], err))
		}
	}
	return errors.Join(errs...)
}

// shape describes the run's connections and how much each system call
// carried.
func (r *pipeRun) shape() string {
	writes, reads := 0, 0
	for _, p := range r.pubs {
		writes += p.conn.writes
	}
	acks := 0
	for _, s := range r.subs {
		reads += s.conn.reads
		acks += s.state.ackFrames
	}
	confirms := "no confirms"
	if r.job.confirm {
		var confirmed uint64
		for _, p := range r.pubs {
			confirmed += p.confirmed.Load()
		}
		confirms = fmt.Sprintf("confirm window %d each, %d publishes confirmed", r.e.window, confirmed)
	}
	s := fmt.Sprintf("pipelining client: %d publishers (%s, up to %d publishes per write: %.1f on average)",
		len(r.pubs), confirms, r.e.pipe.batch, float64(r.job.messages)/float64(max(writes, 1)))
	if r.job.consume {
		s += fmt.Sprintf(", %d consumers (%.1f deliveries per read", len(r.subs), float64(r.progress.target)/float64(max(reads, 1)))
		if r.job.manualAck {
			s += fmt.Sprintf("; prefetch %d, %.1f deliveries per basic.ack multiple=true", consumePrefetch, float64(r.progress.target)/float64(max(acks, 1)))
		} else {
			s += "; no-ack"
		}
		s += ")"
	}
	return s
}
