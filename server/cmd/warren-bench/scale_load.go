package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
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

// scaleClient is one load client's part in a point of a scale workload:
// it connects, declares and consumes the queues, and runs the point's
// publishers and consumers; runScalePoint does the rest (the schedule,
// the measured span, the tally), the same for every client.
type scaleClient interface {
	// open opens plan.conns connections, declares queue q (setting
	// declared[q] once it is) and consumes it with manual acks and
	// basic.qos prefetch on connection plan.subConn[q], and readies a
	// channel for publisher p on connection plan.pubConn[p].
	open(ctx context.Context, plan scalePlan, queues []string, declared []bool) error
	// run publishes sch's messages, each when it falls due
	// (scaleSchedule.publishOnSchedule), and consumes them, handing each
	// delivery to its queue's inbox (scaleSchedule.take) and counting it;
	// it returns once every message has been delivered, or on the first
	// error, with the latest any publisher sent a message of the span
	// after it fell due.
	run(ctx context.Context, sch scaleSchedule, inboxes []*scaleInbox) (lagMax time.Duration, err error)
	// delivered is how many messages run has counted so far; it may be
	// called while run runs.
	delivered() int64
	// notes says how the client carried the load, once run has returned.
	notes() []string
	// close closes every connection open opened.
	close() error
}

// runScalePoint offers e.messages messages a second, spread over plan's
// publishers and queues (see scalePlan), for e.scale.warmup and then
// e.scale.span, and measures over the span: deliveries a second, the
// broker's and the client's CPU per delivered message (each is one
// publish, one delivery and one ack, or a share of one that acks many),
// and the publish->deliver latency of the messages sent in it. The load
// is open: each message is sent when it falls due (a publisher that is
// late sends what is due at once), so a broker that cannot keep up shows
// it as latency and a lower rate rather than slowing the schedule.
// Consumers ack manually with basic.qos e.scale.prefetch. client carries
// the load; tag names the queues. Every message must arrive exactly once,
// at its queue, within scaleDrainMax of the last one falling due.
func runScalePoint(ctx context.Context, e *env, plan scalePlan, tag string, client scaleClient) (pt scalePoint, err error) {
	cfg := e.scale
	rateMsgs := e.messages
	nq, np := len(plan.subConn), len(plan.pubConn)
	total := messagesWithin(cfg.warmup+cfg.span, rateMsgs)
	if _, err := checkOpenFiles(uint64(plan.conns + openFilesSpare)); err != nil {
		return pt, err
	}

	queues := make([]string, nq)
	declared := make([]bool, nq)
	for q := range queues {
		queues[q] = e.name(fmt.Sprintf("%s.q%d", tag, q))
	}
	defer func() { // the connections first, then the queues they consumed
		closeErr := client.close()
		if err == nil {
			err = closeErr
		}
		var names []string
		for q, ok := range declared {
			if ok {
				names = append(names, queues[q])
			}
		}
		err = errors.Join(err, deleteQueues(e.url, names))
	}()
	if err := client.open(ctx, plan, queues, declared); err != nil {
		return pt, err
	}

	start := time.Now()
	sch := scaleSchedule{plan: plan, queues: queues, total: total, rateMsgs: rateMsgs,
		start: start, spanStart: start.Add(cfg.warmup), spanEnd: start.Add(cfg.warmup + cfg.span)}
	pctx, cancel := context.WithDeadline(ctx, sch.due(total-1).Add(scaleDrainMax))
	defer cancel()
	inboxes := make([]*scaleInbox, nq)
	for q := range inboxes {
		inboxes[q] = sch.newInbox(q)
	}
	type ran struct {
		lagMax time.Duration
		err    error
	}
	done := make(chan ran, 1)
	go func() {
		lagMax, err := client.run(pctx, sch, inboxes)
		done <- ran{lagMax, err}
	}()
	if err := measureScaleSpan(pctx, sch, client, e.serverPID, &pt); err != nil {
		cancel()
		<-done
		return pt, err
	}
	r := <-done
	if r.err != nil {
		return pt, fmt.Errorf("%d of %d messages delivered: %w", client.delivered(), total, r.err)
	}
	pt.lagMax = r.lagMax
	var latencies []time.Duration
	var errs []error
	for q, in := range inboxes {
		latencies = append(latencies, in.latencies...)
		if err := in.ids.check(); err != nil {
			errs = append(errs, fmt.Errorf("queue %d: %w", q, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return pt, err
	}
	slices.Sort(latencies)
	pt.p50, pt.p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
	pt.notes = append(pt.notes, fmt.Sprintf("%d queues, %d publishers, %d connections, %d messages, %d latencies in the span", nq, np, plan.conns, total, len(latencies)))
	pt.notes = append(pt.notes, client.notes()...)
	return pt, nil
}

// measureScaleSpan waits for sch's measured span and measures the
// deliveries a second and the CPU per message over it into pt.
func measureScaleSpan(ctx context.Context, sch scaleSchedule, client scaleClient, serverPID int, pt *scalePoint) error {
	if err := sleepUntil(ctx, sch.spanStart); err != nil {
		return err
	}
	d0 := client.delivered()
	cpu := startCPU(serverPID)
	if err := sleepUntil(ctx, sch.spanEnd); err != nil {
		return err
	}
	d1 := client.delivered()
	span := sch.spanEnd.Sub(sch.spanStart)
	if d1 == d0 {
		return fmt.Errorf("nothing delivered in the %s measured", span)
	}
	pt.cpu, pt.notes = cpu.metrics(int(d1-d0), "msg")
	pt.deliveredPerSec = float64(d1-d0) / span.Seconds()
	return nil
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
