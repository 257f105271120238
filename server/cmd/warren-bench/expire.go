package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// runExpireDLX measures a burst of expiries. A queue with a dead-letter
// exchange gets a blocker message without a TTL and then N messages with a
// per-message TTL of 1 ms. Both brokers expire messages only at the head
// of a queue ("Only when expired messages reach the head of a queue will
// they actually be discarded (or dead-lettered)", RabbitMQ's TTL guide), so
// the N wait behind the blocker. The clock starts when basic.get takes the
// blocker and stops when a poll of the DLX queue counts all N.
func runExpireDLX(ctx context.Context, e *env) (res Result, err error) {
	src, dead, dlx := e.name("src"), e.name("dead"), e.name("dlx")
	defer func() { err = errors.Join(err, cleanup(e.url, []string{src, dead}, []string{dlx})) }()
	s, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer s.close()
	get, err := s.conn.Channel()
	if err != nil {
		return res, err
	}
	if err := s.ch.ExchangeDeclare(dlx, amqp.ExchangeFanout, false, false, false, false, nil); err != nil {
		return res, err
	}
	if err := declareQueue(s.ch, dead, nil); err != nil {
		return res, err
	}
	if err := s.ch.QueueBind(dead, "", dlx, false, nil); err != nil {
		return res, err
	}
	if err := declareQueue(s.ch, src, amqp.Table{"x-dead-letter-exchange": dlx}); err != nil {
		return res, err
	}
	cp, err := newConfirmingPublisher(s.ch, e.messages+1, e.window)
	if err != nil {
		return res, err
	}
	b := body(e.sizeBytes)
	if err := cp.publish(ctx, "", src, amqp.Publishing{Body: b}); err != nil {
		return res, err
	}
	expiring := amqp.Publishing{Body: b, Expiration: "1"}
	loadStart := time.Now()
	for i := 0; i < e.messages; i++ {
		if err := cp.publish(ctx, "", src, expiring); err != nil {
			return res, fmt.Errorf("publish %d: %w", i, err)
		}
	}
	if err := cp.wait(ctx); err != nil {
		return res, err
	}
	loaded := time.Since(loadStart)
	q, err := s.ch.QueueDeclarePassive(src, false, false, false, false, nil)
	if err != nil {
		return res, err
	}
	if q.Messages != e.messages+1 {
		return res, fmt.Errorf("source queue holds %d messages before the blocker is taken, want %d (expired early?)", q.Messages, e.messages+1)
	}
	// Every message's 1 ms TTL has long passed; make sure of it.
	time.Sleep(5 * time.Millisecond)

	cpu := startCPU(e.serverPID)
	start := time.Now()
	if _, ok, err := get.Get(src, true); err != nil || !ok {
		return res, fmt.Errorf("basic.get of the blocker: ok=%v err=%v", ok, err)
	}
	end, err := waitForCount(ctx, s.ch, dead, e.messages)
	if err != nil {
		return res, err
	}
	elapsed := end.Sub(start)
	res = Result{
		ElapsedMs: ms(elapsed),
		Metrics: []Metric{
			{Name: "time to DLX", Unit: "ms", Value: ms(elapsed)},
			{Name: "expiry rate", Unit: "msgs/s", Value: rate(e.messages, elapsed), HigherIsBetter: true},
		},
		Notes: []string{fmt.Sprintf("loading %d messages with confirms took %.0f ms", e.messages+1, ms(loaded))},
	}
	res.addCPU(cpu, e.messages, "msg")
	return res, nil
}
