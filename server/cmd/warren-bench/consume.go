package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// consumePrefetch is the consumer's basic.qos prefetch count.
const consumePrefetch = 500

// runPublishConsume runs one publisher and one consumer, each on its own
// connection. The consumer acknowledges every message by itself (manual
// acks, prefetch 500). The publisher writes its wall-clock time into the
// first 8 bytes of each body and may be at most --inflight messages ahead
// of the consumer: a closed loop, so latency measures the broker's path
// and not a backlog that grows for as long as the publisher outruns the
// consumer. Both run in this process, so the latency needs no clock sync.
func runPublishConsume(ctx context.Context, e *env) (res Result, err error) {
	q := e.name("q")
	defer func() { err = errors.Join(err, cleanup(e.url, []string{q}, nil)) }()
	pub, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer pub.close()
	sub, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer sub.close()
	if err := declareQueue(pub.ch, q, nil); err != nil {
		return res, err
	}
	if err := sub.ch.Qos(consumePrefetch, 0, false); err != nil {
		return res, err
	}
	deliveries, err := sub.ch.Consume(q, "bench", false, false, false, false, nil)
	if err != nil {
		return res, err
	}

	inflight := make(chan struct{}, e.inflightMax)
	var consumedCount atomic.Int64 // for the error report if the run stalls
	latencies := make([]time.Duration, 0, e.messages)
	consumed := make(chan error, 1)
	go func() {
		for len(latencies) < e.messages {
			var d amqp.Delivery
			var ok bool
			select {
			case d, ok = <-deliveries:
			case <-ctx.Done():
				consumed <- ctx.Err()
				return
			}
			if !ok {
				consumed <- fmt.Errorf("deliveries closed after %d", len(latencies))
				return
			}
			sent := int64(binary.BigEndian.Uint64(d.Body))
			latencies = append(latencies, time.Duration(time.Now().UnixNano()-sent))
			if err := d.Ack(false); err != nil {
				consumed <- err
				return
			}
			<-inflight
			consumedCount.Add(1)
		}
		consumed <- nil
	}()

	b := body(e.sizeBytes)
	cpu := startCPU(e.serverPID)
	start := time.Now()
	for i := 0; i < e.messages; i++ {
		select {
		case inflight <- struct{}{}:
		case <-ctx.Done():
			return res, fmt.Errorf("published %d, consumed %d: %w", i, consumedCount.Load(), ctx.Err())
		}
		binary.BigEndian.PutUint64(b, uint64(time.Now().UnixNano()))
		if err := pub.ch.PublishWithContext(ctx, "", q, false, false, amqp.Publishing{Body: b}); err != nil {
			return res, fmt.Errorf("publish %d: %w", i, err)
		}
	}
	if err := <-consumed; err != nil {
		return res, fmt.Errorf("published %d, consumed %d: %w", e.messages, consumedCount.Load(), err)
	}
	elapsed := time.Since(start)
	slices.Sort(latencies)
	res = Result{
		ElapsedMs: ms(elapsed),
		Metrics: []Metric{
			{Name: "throughput", Unit: "msgs/s", Value: rate(e.messages, elapsed), HigherIsBetter: true},
			{Name: "latency p50", Unit: "ms", Value: ms(percentile(latencies, 0.50))},
			{Name: "latency p99", Unit: "ms", Value: ms(percentile(latencies, 0.99))},
		},
		Notes: []string{fmt.Sprintf("prefetch %d, publisher at most %d ahead", consumePrefetch, e.inflightMax)},
	}
	res.addCPU(cpu, e.messages, "msg")
	return res, nil
}

// percentile returns the p-quantile (0..1) of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
