package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// runDeclareBind declares N transient queues and binds each to one direct
// exchange with its own name as the key, one synchronous call after
// another on one channel. A declare and a bind are two operations. Deleting
// the queues afterwards is not timed.
func runDeclareBind(ctx context.Context, e *env) (res Result, err error) {
	x := e.name("direct")
	queues := make([]string, 0, e.messages)
	defer func() { err = errors.Join(err, cleanup(e.url, queues, []string{x})) }()
	s, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer s.close()
	if err := s.ch.ExchangeDeclare(x, amqp.ExchangeDirect, false, false, false, false, nil); err != nil {
		return res, err
	}
	cpu := startCPU(e.serverPID)
	start := time.Now()
	for i := 0; i < e.messages; i++ {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("after %d queues: %w", i, err)
		}
		q := e.name(fmt.Sprintf("q%05d", i))
		if err := declareQueue(s.ch, q, nil); err != nil {
			return res, err
		}
		queues = append(queues, q)
		if err := s.ch.QueueBind(q, q, x, false, nil); err != nil {
			return res, err
		}
	}
	elapsed := time.Since(start)
	ops := 2 * e.messages
	res = Result{
		ElapsedMs: ms(elapsed),
		Metrics:   []Metric{{Name: "declare+bind", Unit: "ops/s", Value: rate(ops, elapsed), HigherIsBetter: true}},
	}
	res.addCPU(cpu, e.messages, "declare")
	return res, nil
}
