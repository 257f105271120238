package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// LavinMQ's published memory figures, the targets of idle-memory (issue
// 13, item 4): 70 MB for 1,000 connections and 35 MB for 1,000 queues.
const (
	lavinConnsMB  = 70.0
	lavinQueuesMB = 35.0
)

// Limits of idle-memory.
const (
	idleWarmupMsgs = 1_000 // messages through the broker before the first reading
	idleCountMax   = 10_000
	// openFilesWanted is the soft limit on open files that compare gives
	// itself and the brokers it starts when a workload opens hundreds of
	// connections (never lower than it was, never above the hard limit).
	openFilesWanted = 65_536
	// openFilesSpare is what this process needs beyond one descriptor a
	// connection (the binary, /proc reads, the cleanup's connections).
	openFilesSpare = 64
)

// runIdleMemory measures the broker's resident memory (VmRSS) three
// times, each once it has settled (settledRSS): after a warm-up (one
// connection, which stays open to hold the queues later, and
// idleWarmupMsgs messages published with confirms, consumed and deleted
// with their queue on another, closed again); then with e.messages more
// connections open, each with one open channel and nothing else, as
// LavinMQ's figure counts connections; then with e.messages queues
// declared (not durable, not exclusive, not auto-delete), all by the one
// connection of the warm-up, idle and empty. It reports the growth of
// each step as MB per 1,000 connections and per 1,000 queues, beside
// LavinMQ's 70 and 35 (scale_table.go). Nothing is closed or deleted
// between the readings, so no step can reuse memory an earlier one freed.
// compare runs it on a freshly started broker (workload.fresh).
func runIdleMemory(ctx context.Context, e *env) (res Result, err error) {
	if e.serverPID == 0 {
		return res, errors.New("idle-memory needs the broker's pid (--pid)")
	}
	n := e.messages
	if n > idleCountMax {
		return res, fmt.Errorf("idle-memory: %d connections and queues: want at most %d", n, idleCountMax)
	}
	limit, err := checkOpenFiles(uint64(n + openFilesSpare))
	if err != nil {
		return res, err
	}
	holder, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer holder.close()
	if err := warmUp(ctx, e); err != nil {
		return res, fmt.Errorf("warm-up: %w", err)
	}
	var notes []string
	rss := func(what string) (int64, error) {
		b, steady, err := settledRSS(ctx, e.serverPID, e.settleMax)
		if err != nil {
			return 0, fmt.Errorf("RSS %s: %w", what, err)
		}
		notes = append(notes, fmt.Sprintf("RSS %.1f MB %s", float64(b)/1e6, what))
		if !steady {
			notes = append(notes, fmt.Sprintf("RSS %s had not settled within %s", what, e.settleMax))
		}
		return b, nil
	}
	warm, err := rss("after the warm-up")
	if err != nil {
		return res, err
	}

	start := time.Now()
	idle := make([]*session, n)
	defer func() {
		for _, s := range idle {
			s.close()
		}
	}()
	if err := forEach(ctx, n, scaleSetupWorkers, func(i int) error {
		s, err := openSession(e.url)
		idle[i] = s
		return err
	}); err != nil {
		return res, fmt.Errorf("opening %d idle connections: %w", n, err)
	}
	connsOpenMs := ms(time.Since(start))
	withConns, err := rss(fmt.Sprintf("with %d idle connections", n))
	if err != nil {
		return res, err
	}

	queues := make([]string, 0, n)
	defer func() { err = errors.Join(err, deleteQueues(e.url, queues)) }()
	start = time.Now()
	for i := range n {
		name := e.name(fmt.Sprintf("idle%d", i))
		if err := declareQueue(holder.ch, name, nil); err != nil {
			return res, fmt.Errorf("declaring idle queue %d: %w", i, err)
		}
		queues = append(queues, name)
	}
	declareMs := ms(time.Since(start))
	withQueues, err := rss(fmt.Sprintf("with %d idle connections and %d idle queues", n, n))
	if err != nil {
		return res, err
	}
	if e.atPeak != nil {
		e.atPeak()
	}
	notes = append(notes, fmt.Sprintf("%d idle connections opened in %.0f ms, %d queues declared in %.0f ms; open files limit %d", n, connsOpenMs, n, declareMs, limit))
	return Result{
		ElapsedMs: connsOpenMs + declareMs,
		Metrics: []Metric{
			{Name: metricRSSWarm, Unit: "MB", Value: float64(warm) / 1e6},
			{Name: metricIdleConns, Unit: "MB/1,000", Value: mbPerThousand(warm, withConns, n)},
			{Name: metricIdleQueues, Unit: "MB/1,000", Value: mbPerThousand(withConns, withQueues, n)},
		},
		Notes: notes,
	}, nil
}

// Names of idle-memory's metrics.
const (
	metricRSSWarm    = "RSS after warm-up"
	metricIdleConns  = "idle connections"
	metricIdleQueues = "idle queues"
)

// warmUp sends idleWarmupMsgs messages through a queue of its own on a
// connection of its own, with confirms, consumes them without acks, and
// deletes the queue and closes the connection.
func warmUp(ctx context.Context, e *env) (err error) {
	q := e.name("warm")
	defer func() { err = errors.Join(err, cleanup(e.url, []string{q}, nil)) }()
	s, err := openSession(e.url)
	if err != nil {
		return err
	}
	defer s.close()
	if err := declareQueue(s.ch, q, nil); err != nil {
		return err
	}
	cp, err := newConfirmingPublisher(s.ch, idleWarmupMsgs, e.window)
	if err != nil {
		return err
	}
	if err := cp.publishAll(ctx, q, amqp.Publishing{Body: body(e.sizeBytes)}, idleWarmupMsgs); err != nil {
		return err
	}
	deliveries, err := s.ch.Consume(q, "", true, false, false, false, nil)
	if err != nil {
		return err
	}
	for i := range idleWarmupMsgs {
		select {
		case _, ok := <-deliveries:
			if !ok {
				return fmt.Errorf("deliveries ended after %d of %d", i, idleWarmupMsgs)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// raiseOpenFiles sets this process's soft limit on open files to
// openFilesWanted (never lower than it is, never above the hard limit)
// with Setrlimit, and returns it. Go raises its own soft limit at start
// but gives the processes it starts the limit it was started with, unless
// the program sets the limit itself: after this call, the brokers compare
// starts inherit it.
func raiseOpenFiles() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	lim.Cur = min(max(lim.Cur, openFilesWanted), lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	return lim.Cur, nil
}

// checkOpenFiles returns this process's soft limit on open files, or an
// error if it is below need.
func checkOpenFiles(need uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur < need {
		return lim.Cur, fmt.Errorf("open files limit %d (hard %d), need %d: raise it (ulimit -n)", lim.Cur, lim.Max, need)
	}
	return lim.Cur, nil
}
