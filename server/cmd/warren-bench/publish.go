package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// runPublishOnly publishes N transient messages without confirms through
// the default exchange into one queue. The clock stops when a second
// channel sees the queue hold all N, so it measures what the broker took
// in, not how fast the client could write to its socket.
func runPublishOnly(ctx context.Context, e *env) (res Result, err error) {
	q := e.name("q")
	defer func() { err = errors.Join(err, cleanup(e.url, []string{q}, nil)) }()
	pub, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer pub.close()
	poll, err := pub.conn.Channel()
	if err != nil {
		return res, err
	}
	if err := declareQueue(pub.ch, q, nil); err != nil {
		return res, err
	}
	msg := amqp.Publishing{Body: body(e.sizeBytes)}
	cpu := startCPU(e.serverPID)
	start := time.Now()
	for i := 0; i < e.messages; i++ {
		if err := pub.ch.PublishWithContext(ctx, "", q, false, false, msg); err != nil {
			return res, fmt.Errorf("publish %d: %w", i, err)
		}
	}
	wrote := time.Since(start)
	end, err := waitForCount(ctx, poll, q, e.messages)
	if err != nil {
		return res, err
	}
	elapsed := end.Sub(start)
	res = Result{
		ElapsedMs: ms(elapsed),
		Metrics:   []Metric{{Name: "throughput", Unit: "msgs/s", Value: rate(e.messages, elapsed), HigherIsBetter: true}},
		Notes:     []string{fmt.Sprintf("client finished writing after %.0f ms", ms(wrote))},
	}
	res.addCPU(cpu, e.messages, "msg")
	return res, nil
}

// runPublishConfirms publishes N transient messages with publisher
// confirms, at most --window unconfirmed at a time (like PerfTest's
// --confirm), into one queue; the clock stops at the last ack.
func runPublishConfirms(ctx context.Context, e *env) (res Result, err error) {
	q := e.name("q")
	defer func() { err = errors.Join(err, cleanup(e.url, []string{q}, nil)) }()
	pub, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer pub.close()
	if err := declareQueue(pub.ch, q, nil); err != nil {
		return res, err
	}
	cp, err := newConfirmingPublisher(pub.ch, e.messages, e.window)
	if err != nil {
		return res, err
	}
	msg := amqp.Publishing{Body: body(e.sizeBytes)}
	cpu := startCPU(e.serverPID)
	start := time.Now()
	if err := cp.publishAll(ctx, q, msg, e.messages); err != nil {
		return res, err
	}
	elapsed := time.Since(start)
	res = Result{
		ElapsedMs: ms(elapsed),
		Metrics:   []Metric{{Name: "throughput", Unit: "msgs/s", Value: rate(e.messages, elapsed), HigherIsBetter: true}},
		Notes:     []string{fmt.Sprintf("confirm window %d", e.window)},
	}
	res.addCPU(cpu, e.messages, "msg")
	return res, nil
}
