package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// fanoutQueues is how many queues the fanout exchange feeds.
const fanoutQueues = 10

// runFanout10 publishes N messages without confirms to a fanout exchange
// bound to 10 queues, each read by a no-ack consumer on its own channel of
// one consumer connection. The clock runs from the first publish to the
// 10·N-th delivery.
func runFanout10(ctx context.Context, e *env) (res Result, err error) {
	x := e.name("fanout")
	queues := make([]string, fanoutQueues)
	for i := range queues {
		queues[i] = e.name(fmt.Sprintf("q%d", i))
	}
	defer func() { err = errors.Join(err, cleanup(e.url, queues, []string{x})) }()
	pub, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer pub.close()
	sub, err := dial(e.url)
	if err != nil {
		return res, err
	}
	defer sub.Close()
	if err := pub.ch.ExchangeDeclare(x, amqp.ExchangeFanout, false, false, false, false, nil); err != nil {
		return res, err
	}
	want := int64(fanoutQueues * e.messages)
	var got atomic.Int64
	all := make(chan struct{})
	for _, q := range queues {
		if err := declareQueue(pub.ch, q, nil); err != nil {
			return res, err
		}
		if err := pub.ch.QueueBind(q, "", x, false, nil); err != nil {
			return res, err
		}
		ch, err := sub.Channel()
		if err != nil {
			return res, err
		}
		deliveries, err := ch.Consume(q, "bench", true, false, false, false, nil)
		if err != nil {
			return res, err
		}
		go func() {
			for range deliveries {
				if got.Add(1) == want {
					close(all)
				}
			}
		}()
	}
	msg := amqp.Publishing{Body: body(e.sizeBytes)}
	cpu := startCPU(e.serverPID)
	start := time.Now()
	for i := 0; i < e.messages; i++ {
		if err := pub.ch.PublishWithContext(ctx, x, "", false, false, msg); err != nil {
			return res, fmt.Errorf("publish %d: %w", i, err)
		}
	}
	select {
	case <-all:
	case <-ctx.Done():
		return res, fmt.Errorf("%d of %d deliveries: %w", got.Load(), want, ctx.Err())
	}
	elapsed := time.Since(start)
	res = Result{
		ElapsedMs: ms(elapsed),
		Metrics:   []Metric{{Name: "deliveries", Unit: "deliveries/s", Value: rate(int(want), elapsed), HigherIsBetter: true}},
	}
	res.addCPU(cpu, int(want), "delivery")
	return res, nil
}
