package main

import (
	"context"
	"fmt"
	"time"
)

// runPersistent publishes N persistent (delivery-mode 2) messages with
// publisher confirms, at most --window unconfirmed, into a durable queue;
// the clock stops at the last ack. A broker confirms a persistent message
// routed to a durable queue only once it is on disk ("persistent messages
// are confirmed when [they are] persisted to disk", RabbitMQ's confirms
// guide), so this measures the path through the broker's store: compare
// runs it on a Warren started with --data in a directory of its own.
func runPersistent(ctx context.Context, e *env) (Result, error) {
	q := filledQueue{name: e.name("durable"), durable: true}
	return q.fill(e, func(s *session) (res Result, err error) {
		cp, err := newConfirmingPublisher(s.ch, e.messages, e.window)
		if err != nil {
			return res, err
		}
		cpu := startCPU(e.serverPID)
		start := time.Now()
		if err := cp.publishAll(ctx, q.name, persistentMsg(e.sizeBytes), e.messages); err != nil {
			return res, err
		}
		elapsed := time.Since(start)
		res = Result{
			ElapsedMs: ms(elapsed),
			Metrics:   []Metric{{Name: "throughput", Unit: "msgs/s", Value: rate(e.messages, elapsed), HigherIsBetter: true}},
			Notes:     []string{fmt.Sprintf("confirm window %d, durable queue", e.window)},
		}
		res.addCPU(cpu, e.messages, "msg")
		return res, nil
	})
}
