package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Limits of one point of a scale workload.
const (
	// scaleSetupWorkers is how many connections are opened, and queues
	// declared and consumed, at once.
	scaleSetupWorkers = 16
	// scaleDrainMax is how long after the last message falls due every
	// message must have been delivered.
	scaleDrainMax = 10 * time.Second
	// scaleBodyMin is the smallest body: the send time and the message's
	// number, 8 bytes each.
	scaleBodyMin = 16
)

// scalePoint is what one point of a scale workload measured over its
// measured span (after the warm-up).
type scalePoint struct {
	deliveredPerSec float64
	p50, p99        time.Duration
	lagMax          time.Duration // latest send after its message fell due, in the span
	cpu             []Metric      // broker and client CPU per message
	notes           []string
}

// runScalePoint offers e.messages messages a second, spread over plan's
// publishers and queues (see scalePlan), for e.scale.warmup and then
// e.scale.span, and measures over the span: deliveries a second, the
// broker's and the client's CPU per delivered message (each is one
// publish, one delivery and one ack), and the publish->deliver latency of
// the messages sent in it. The load is open: each message is sent when it
// falls due (a publisher that is late sends what is due at once), so a
// broker that cannot keep up shows it as latency and a lower rate rather
// than slowing the schedule. Consumers ack each message on its own
// (manual acks) with basic.qos e.scale.prefetch. tag names the queues.
// Every message must arrive, exactly at its queue, within scaleDrainMax
// of the last one falling due.
func runScalePoint(ctx context.Context, e *env, plan scalePlan, tag string) (pt scalePoint, err error) {
	cfg := e.scale
	rateMsgs := e.messages
	nq, np := len(plan.subConn), len(plan.pubConn)
	total := messagesWithin(cfg.warmup+cfg.span, rateMsgs)
	if _, err := checkOpenFiles(uint64(plan.conns + openFilesSpare)); err != nil {
		return pt, err
	}

	conns := make([]*amqp.Connection, plan.conns)
	queues := make([]string, nq)
	declared := make([]bool, nq)
	for q := range queues {
		queues[q] = e.name(fmt.Sprintf("%s.q%d", tag, q))
	}
	defer func() { // the connections first, then the queues they consumed
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
		var names []string
		for q, ok := range declared {
			if ok {
				names = append(names, queues[q])
			}
		}
		err = errors.Join(err, deleteQueues(e.url, names))
	}()
	if err := forEach(ctx, plan.conns, scaleSetupWorkers, func(i int) error {
		c, err := dial(e.url)
		conns[i] = c
		return err
	}); err != nil {
		return pt, fmt.Errorf("opening %d connections: %w", plan.conns, err)
	}

	deliveries := make([]<-chan amqp.Delivery, nq)
	if err := forEach(ctx, nq, scaleSetupWorkers, func(q int) error {
		ch, err := conns[plan.subConn[q]].Channel()
		if err != nil {
			return err
		}
		if err := ch.Qos(cfg.prefetch, 0, false); err != nil {
			return err
		}
		if err := declareQueue(ch, queues[q], nil); err != nil {
			return err
		}
		declared[q] = true
		deliveries[q], err = ch.Consume(queues[q], "", false, false, false, false, nil)
		return err
	}); err != nil {
		return pt, fmt.Errorf("declaring and consuming %d queues: %w", nq, err)
	}
	pubs := make([]*amqp.Channel, np)
	for p := range pubs {
		if pubs[p], err = conns[plan.pubConn[p]].Channel(); err != nil {
			return pt, err
		}
	}

	start := time.Now()
	sch := scaleSchedule{plan: plan, queues: queues, total: total, rateMsgs: rateMsgs,
		start: start, spanStart: start.Add(cfg.warmup), spanEnd: start.Add(cfg.warmup + cfg.span)}
	pctx, cancel := context.WithDeadline(ctx, sch.due(total-1).Add(scaleDrainMax))
	defer cancel()

	var delivered atomic.Int64
	consumed := make(chan consumerTally, nq)
	for q := range nq {
		go func() {
			consumed <- consumeScale(pctx, sch, q, deliveries[q], &delivered)
		}()
	}
	published := make(chan publisherTally, np)
	for p := range np {
		go func() {
			published <- publishScale(pctx, sch, p, pubs[p], e.sizeBytes)
		}()
	}

	if err := sleepUntil(pctx, sch.spanStart); err != nil {
		return pt, err
	}
	d0 := delivered.Load()
	cpu := startCPU(e.serverPID)
	if err := sleepUntil(pctx, sch.spanEnd); err != nil {
		return pt, err
	}
	d1 := delivered.Load()
	if d1 == d0 {
		return pt, fmt.Errorf("nothing delivered in the %s measured", cfg.span)
	}
	pt.cpu, pt.notes = cpu.metrics(int(d1-d0), "msg")
	pt.deliveredPerSec = float64(d1-d0) / cfg.span.Seconds()

	var errs []error
	for range np {
		t := <-published
		errs = append(errs, t.err)
		pt.lagMax = max(pt.lagMax, t.lagMax)
	}
	var latencies []time.Duration
	for range nq {
		t := <-consumed
		errs = append(errs, t.err)
		latencies = append(latencies, t.latencies...)
	}
	if err := errors.Join(errs...); err != nil {
		return pt, fmt.Errorf("%d of %d messages delivered: %w", delivered.Load(), total, err)
	}
	slices.Sort(latencies)
	pt.p50, pt.p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
	pt.notes = append(pt.notes, fmt.Sprintf("%d queues, %d publishers, %d connections, %d messages, %d latencies in the span", nq, np, plan.conns, total, len(latencies)))
	return pt, nil
}

// scaleSchedule is one point's load as its publishers and consumers see
// it: which message goes where, when each falls due, and the measured
// span.
type scaleSchedule struct {
	plan               scalePlan
	queues             []string // queue q's name
	total              int      // messages, numbered from 0
	rateMsgs           int      // offered messages a second
	start              time.Time
	spanStart, spanEnd time.Time // the measured span
}

// due is when message i falls due.
func (s scaleSchedule) due(i int) time.Time { return s.start.Add(dueAfter(i, s.rateMsgs)) }

// publisherTally is what one publisher reports when it is done.
type publisherTally struct {
	lagMax time.Duration // latest it sent a message of the span after it fell due
	err    error
}

// publishScale sends publisher p's messages (i ≡ p mod publishers, below
// the total) each when it falls due, on ch, to its queue through the
// default exchange. Each body carries its send time and its number.
func publishScale(ctx context.Context, sch scaleSchedule, p int, ch *amqp.Channel, sizeBytes int) publisherTally {
	var t publisherTally
	b := body(sizeBytes)
	for i := p; i < sch.total; i += len(sch.plan.pubConn) {
		due := sch.due(i)
		if err := sleepUntil(ctx, due); err != nil {
			t.err = fmt.Errorf("publisher %d at message %d: %w", p, i, err)
			return t
		}
		now := time.Now()
		if !due.Before(sch.spanStart) && due.Before(sch.spanEnd) {
			t.lagMax = max(t.lagMax, now.Sub(due))
		}
		binary.BigEndian.PutUint64(b, uint64(now.UnixNano()))
		binary.BigEndian.PutUint64(b[8:], uint64(i))
		if err := ch.PublishWithContext(ctx, "", sch.queues[sch.plan.queueOf(i)], false, false, amqp.Publishing{Body: b}); err != nil {
			t.err = fmt.Errorf("publisher %d, message %d: %w", p, i, err)
			return t
		}
	}
	return t
}

// consumerTally is what one queue's consumer reports when it is done.
type consumerTally struct {
	latencies []time.Duration // of the messages sent within the span
	err       error
}

// consumeScale receives queue q's share of the messages from
// deliveries, acks each, checks that each was meant for q, counts it in
// delivered and keeps the latency of those sent within the span.
func consumeScale(ctx context.Context, sch scaleSchedule, q int, deliveries <-chan amqp.Delivery, delivered *atomic.Int64) consumerTally {
	var t consumerTally
	plan := sch.plan
	want := shareOf(q, len(plan.subConn), sch.total)
	w0, w1 := sch.spanStart.UnixNano(), sch.spanEnd.UnixNano()
	for got := 0; got < want; got++ {
		var d amqp.Delivery
		var ok bool
		select {
		case d, ok = <-deliveries:
		case <-ctx.Done():
			t.err = fmt.Errorf("queue %d: %d of %d messages: %w", q, got, want, ctx.Err())
			return t
		}
		now := time.Now().UnixNano()
		if !ok {
			t.err = fmt.Errorf("queue %d: deliveries ended after %d of %d", q, got, want)
			return t
		}
		if len(d.Body) < scaleBodyMin {
			t.err = fmt.Errorf("queue %d: a body of %d bytes", q, len(d.Body))
			return t
		}
		sent, i := int64(binary.BigEndian.Uint64(d.Body)), int(binary.BigEndian.Uint64(d.Body[8:]))
		if plan.queueOf(i) != q {
			t.err = fmt.Errorf("queue %d received message %d, meant for queue %d", q, i, plan.queueOf(i))
			return t
		}
		if sent >= w0 && sent < w1 {
			t.latencies = append(t.latencies, time.Duration(now-sent))
		}
		if err := d.Ack(false); err != nil {
			t.err = fmt.Errorf("queue %d: ack: %w", q, err)
			return t
		}
		delivered.Add(1)
	}
	return t
}

// sleepUntil waits until t or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// forEach calls do(i) for every i in [0, n) on at most workers goroutines
// and returns every error; it starts no new call once ctx has ended or a
// call has failed.
func forEach(ctx context.Context, n, workers int, do func(i int) error) error {
	var (
		next   atomic.Int64
		mu     sync.Mutex // guards errs
		errs   []error
		wg     sync.WaitGroup
		failed atomic.Bool
	)
	for range min(n, workers) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || failed.Load() || ctx.Err() != nil {
					return
				}
				if err := do(i); err != nil {
					failed.Store(true)
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(errs) == 0 {
		return ctx.Err()
	}
	return errors.Join(errs...)
}

// deleteQueues deletes the named queues over a few connections at once
// (cleanup's, each deleting its share in turn): a RabbitMQ node deletes a
// few hundred queues a second on one channel.
func deleteQueues(url string, names []string) error {
	const conns = 4
	shares := make([][]string, conns)
	for i, n := range names {
		shares[i%conns] = append(shares[i%conns], n)
	}
	errs := make([]error, conns)
	var wg sync.WaitGroup
	for c := range shares {
		if len(shares[c]) == 0 {
			continue
		}
		wg.Go(func() { errs[c] = cleanup(url, shares[c], nil) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
