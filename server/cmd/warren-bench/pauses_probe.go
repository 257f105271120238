package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// A healthy client, for the pause benchmark (pauses.go): a connection of
// its own that does one round trip (a passive queue.declare of its own
// queue) every probe interval and times each, while another client loads
// the broker. A broker that holds everyone up behind one client's work
// shows as a long round trip here. A passive declare publishes nothing,
// so a memory alarm, which blocks publishers, does not block it on either
// broker.

// probe is a running healthy client.
type probe struct {
	s        *session
	q        string
	interval time.Duration
	stop     chan struct{}
	done     chan struct{}

	mu   sync.Mutex
	rtts []time.Duration
	err  error
}

// startProbe connects to url, declares the probe's own queue and starts
// the round trips.
func startProbe(url string, interval time.Duration) (*probe, error) {
	s, err := openSession(url)
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf("warren-bench.probe.%08x", rand.Uint32())
	if _, err := s.ch.QueueDeclare(q, false, true, false, false, nil); err != nil {
		s.close()
		return nil, err
	}
	p := &probe{s: s, q: q, interval: interval, stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p, nil
}

func (p *probe) loop() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-time.After(p.interval):
		}
		t0 := time.Now()
		_, err := p.s.ch.QueueDeclarePassive(p.q, false, true, false, false, nil)
		d := time.Since(t0)
		p.mu.Lock()
		if err != nil {
			p.err = err
			p.mu.Unlock()
			return
		}
		p.rtts = append(p.rtts, d)
		p.mu.Unlock()
	}
}

// mark is where the round trips of a stretch start (for since).
func (p *probe) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.rtts)
}

// since returns the round trips made from mark on, and the probe's
// failure if it failed.
func (p *probe) since(mark int) (pauseStats, error) {
	p.mu.Lock()
	rtts := slices.Clone(p.rtts[mark:])
	err := p.err
	p.mu.Unlock()
	return newPauseStats(rtts), err
}

// close stops the round trips and the connection.
func (p *probe) close() {
	close(p.stop)
	<-p.done
	p.s.close()
}

// pauseStats summarises a stretch of round trips.
type pauseStats struct {
	n             int
	p50, p99, max time.Duration
}

func newPauseStats(rtts []time.Duration) pauseStats {
	slices.Sort(rtts)
	st := pauseStats{n: len(rtts), p50: percentile(rtts, 0.50), p99: percentile(rtts, 0.99)}
	if len(rtts) > 0 {
		st.max = rtts[len(rtts)-1]
	}
	return st
}

// metrics are the stats as a result's metrics, named after what ran.
func (st pauseStats) metrics() []Metric {
	return []Metric{
		{Name: "round trip p99", Unit: "ms", Value: ms(st.p99)},
		{Name: "longest pause", Unit: "ms", Value: ms(st.max)},
		{Name: "round trip p50", Unit: "ms", Value: ms(st.p50)},
		{Name: "round trips", Unit: "", Value: float64(st.n), HigherIsBetter: true},
	}
}

// noLoadProbe is what the probe sees with the broker idle, as a baseline.
func noLoadProbe(p *probe, span time.Duration) (pauseStats, error) {
	m := p.mark()
	time.Sleep(span)
	return p.since(m)
}

// probed runs load with a probe against url, and returns the probe's
// stats over the load's span with the load's own result.
func probed(url string, interval time.Duration, load func() (Result, error)) (Result, error) {
	p, err := startProbe(url, interval)
	if err != nil {
		return Result{}, fmt.Errorf("healthy client: %w", err)
	}
	defer p.close()
	m := p.mark()
	res, err := load()
	// A load shorter than a round trip still gets one: the one it was
	// under way beside.
	for wait := time.Now().Add(time.Second); p.mark() == m && time.Now().Before(wait); {
		time.Sleep(max(p.interval/4, 100*time.Microsecond))
	}
	st, perr := p.since(m)
	res.Metrics = append(st.metrics(), res.Metrics...)
	if err == nil && perr != nil {
		err = fmt.Errorf("healthy client: %w", perr)
	}
	return res, err
}

// amqpPublishing is a transient message of size bytes.
func amqpPublishing(size int) amqp.Publishing { return amqp.Publishing{Body: body(size)} }
