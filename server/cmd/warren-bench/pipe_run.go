package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"warren/server/amqp"
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
	// pipeAckEvery is how many deliveries a consumer channel lets go
	// unacknowledged before one basic.ack with multiple=true settles them:
	// a quarter of the prefetch, so the broker always has room to send.
	pipeAckEvery = consumePrefetch / 4
)

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
// confirms, and, when queues are consumed, receive every message on every
// queue.
type pipeJob struct {
	exchange, key string
	queues        []string // consumed when consume is set
	consume       bool
	manualAck     bool // acks with multiple=true (else no-ack consumers)
	messages      int
	props         amqp.Properties
}

// pipeRun is one run in progress: its connections and their counters.
type pipeRun struct {
	e         *env
	job       pipeJob
	sent      []int // messages per publisher
	pubs      []*pipePublisher
	subs      []*pipeConsumer
	delivered atomic.Int64  // messages received whole, over every consumer
	target    int64         // deliveries that end the run
	all       chan struct{} // closed when delivered reaches target
	allOnce   sync.Once
	finished  chan struct{} // closed to tell consumers the run is over
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
	r := &pipeRun{e: e, job: job, all: make(chan struct{}), finished: make(chan struct{})}
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
		r.target = int64(job.messages * len(job.queues))
	}
	if err := r.openPublishers(ctx); err != nil {
		return res, err
	}

	for _, c := range r.conns() {
		c.reads, c.writes = 0, 0 // count the run's system calls, not the set-up's
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	pubErrs := make(chan error, 2*len(r.pubs))
	subErrs := make(chan error, len(r.subs))
	var wg sync.WaitGroup
	// fail ends the run: closing every socket ends every goroutine's read
	// or write, and cancel a writer waiting for room in its window.
	fail := func(err error) (Result, error) {
		cancel()
		r.abort()
		wg.Wait()
		return Result{}, r.describe(err)
	}
	cpu := startCPU(e.serverPID)
	start := time.Now()
	for _, s := range r.subs {
		wg.Add(1)
		go func() { defer wg.Done(); subErrs <- s.run(r) }()
	}
	for _, p := range r.pubs {
		wg.Add(2)
		go func() { defer wg.Done(); pubErrs <- p.write(runCtx, e.window, e.pipe.batch) }()
		go func() { defer wg.Done(); pubErrs <- p.readConfirms() }()
	}

	pubsLeft, subsLeft := 2*len(r.pubs), len(r.subs)
	allSeen := r.all
	if !job.consume {
		allSeen = nil
	}
	for pubsLeft > 0 || subsLeft > 0 || allSeen != nil {
		select {
		case err := <-pubErrs:
			if err != nil {
				return fail(err)
			}
			pubsLeft--
		case err := <-subErrs:
			// A consumer returns nil only once the run is over.
			if err == nil && allSeen != nil {
				err = errors.New("a consumer stopped before the end")
			}
			if err != nil {
				return fail(err)
			}
			subsLeft--
		case <-allSeen:
			allSeen = nil
			close(r.finished)
			for _, s := range r.subs {
				// Wake it from its read to send its last acks.
				if err := s.conn.c.SetReadDeadline(time.Now()); err != nil {
					return fail(err)
				}
			}
		case <-runCtx.Done():
			return fail(runCtx.Err())
		}
	}
	// The clock stops when every message is confirmed and delivered and
	// the consumers have sent their last acks.
	elapsed := time.Since(start)
	wg.Wait()

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
		s := &pipeConsumer{conn: conn, state: newConsumeState(queues, r.sent, r.job.manualAck, pipeAckEvery)}
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

// run reads deliveries, frames many at a time, and after each read sends
// the acks that are due in one write; when the run is over it acks what
// is left and returns.
func (s *pipeConsumer) run(r *pipeRun) error {
	reported := 0
	for {
		for {
			f, ok, err := s.conn.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if err := s.state.handle(f); err != nil {
				return err
			}
		}
		if d := s.state.delivered - reported; d > 0 {
			reported = s.state.delivered
			if r.delivered.Add(int64(d)) >= r.target {
				r.allOnce.Do(func() { close(r.all) })
			}
		}
		s.conn.out = s.state.appendAcks(s.conn.out, false)
		if err := s.conn.flush(); err != nil {
			return err
		}
		if err := s.conn.fill(); err != nil {
			select {
			case <-r.finished:
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					if err := s.conn.c.SetReadDeadline(time.Time{}); err != nil {
						return err
					}
					s.conn.out = s.state.appendAcks(s.conn.out, true)
					return s.conn.flush()
				}
			default:
			}
			return err
		}
	}
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
	for _, c := range r.conns() {
		errs = append(errs, c.close())
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
		published, r.job.messages, confirmed, r.delivered.Load(), r.target, err)
}

// verify checks that every publish was confirmed (none nacked) and that
// every consumed queue received every message exactly once.
func (r *pipeRun) verify() error {
	var errs []error
	for _, p := range r.pubs {
		if p.nacked > 0 {
			errs = append(errs, fmt.Errorf("publisher %d: %d of %d publishes nacked", p.index, p.nacked, p.count))
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
	s := fmt.Sprintf("pipelining client: %d publishers (confirm window %d each, up to %d publishes per write: %.1f on average)",
		len(r.pubs), r.e.window, r.e.pipe.batch, float64(r.job.messages)/float64(max(writes, 1)))
	if r.job.consume {
		s += fmt.Sprintf(", %d consumers (%.1f deliveries per read", len(r.subs), float64(r.target)/float64(max(reads, 1)))
		if r.job.manualAck {
			s += fmt.Sprintf("; prefetch %d, %.1f deliveries per basic.ack multiple=true", consumePrefetch, float64(r.target)/float64(max(acks, 1)))
		} else {
			s += "; no-ack"
		}
		s += ")"
	}
	return s
}
