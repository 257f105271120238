package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// dialTimeout bounds connecting and the AMQP handshake.
const dialTimeout = 5 * time.Second

// pollInterval is how often a workload asks a queue how many messages it
// holds while waiting for a count. It bounds the clock's resolution.
const pollInterval = 2 * time.Millisecond

// dial opens a connection whose socket connect and handshake are bounded.
func dial(url string) (*amqp.Connection, error) {
	return amqp.DialConfig(url, amqp.Config{
		Dial: func(network, addr string) (net.Conn, error) {
			c, err := net.DialTimeout(network, addr, dialTimeout)
			if err != nil {
				return nil, err
			}
			// The handshake must finish in time; amqp091 clears the
			// deadline once it has.
			if err := c.SetDeadline(time.Now().Add(dialTimeout)); err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		},
	})
}

// session is one connection and one channel on it.
type session struct {
	conn *amqp.Connection
	ch   *amqp.Channel
}

func openSession(url string) (*session, error) {
	c, err := dial(url)
	if err != nil {
		return nil, err
	}
	ch, err := c.Channel()
	if err != nil {
		c.Close()
		return nil, err
	}
	return &session{conn: c, ch: ch}, nil
}

func (s *session) close() {
	if s != nil {
		s.conn.Close()
	}
}

// cleanup deletes the named queues and exchanges over a fresh connection,
// so that it works even after the workload's own connection failed.
// Errors are reported but do not stop it.
func cleanup(url string, queues, exchanges []string) error {
	s, err := openSession(url)
	if err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	defer s.close()
	var errs []error
	for _, q := range queues {
		if _, err := s.ch.QueueDelete(q, false, false, false); err != nil {
			errs = append(errs, fmt.Errorf("delete queue %s: %w", q, err))
			if s.ch, err = s.conn.Channel(); err != nil {
				return errors.Join(append(errs, err)...)
			}
		}
	}
	for _, x := range exchanges {
		if err := s.ch.ExchangeDelete(x, false, false); err != nil {
			errs = append(errs, fmt.Errorf("delete exchange %s: %w", x, err))
			if s.ch, err = s.conn.Channel(); err != nil {
				return errors.Join(append(errs, err)...)
			}
		}
	}
	return errors.Join(errs...)
}

// declareQueue declares a plain transient queue (not durable, not
// exclusive, not auto-delete) with the given arguments.
func declareQueue(ch *amqp.Channel, name string, args amqp.Table) error {
	_, err := ch.QueueDeclare(name, false, false, false, false, args)
	return err
}

// filledQueue is the one queue a publishing workload fills and nobody
// consumes.
type filledQueue struct {
	name    string
	durable bool
}

// fill declares q on a session of its own and runs publish, which
// publishes e.messages into q (the session is publish's to use too), then
// checks with a passive queue.declare that q holds exactly e.messages, so
// that a figure counts what reached the queue, not what the client sent.
// q is deleted at the end, also when something failed.
func (q filledQueue) fill(e *env, publish func(s *session) (Result, error)) (res Result, err error) {
	defer func() { err = errors.Join(err, cleanup(e.url, []string{q.name}, nil)) }()
	s, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer s.close()
	if _, err := s.ch.QueueDeclare(q.name, q.durable, false, false, false, nil); err != nil {
		return res, err
	}
	if res, err = publish(s); err != nil {
		return res, err
	}
	qi, err := s.ch.QueueDeclarePassive(q.name, q.durable, false, false, false, nil)
	if err != nil {
		return res, err
	}
	if qi.Messages != e.messages {
		return res, fmt.Errorf("queue %s holds %d messages after %d publishes", q.name, qi.Messages, e.messages)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("the queue held %d messages at the end", qi.Messages))
	return res, nil
}

// waitForCount polls the queue until it holds want ready messages, and
// returns when it first saw them; more than want is an error (a message
// routed twice), so that a workload counts exactly what it sent.
func waitForCount(ctx context.Context, ch *amqp.Channel, queue string, want int) (time.Time, error) {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	last := -1
	for {
		q, err := ch.QueueDeclarePassive(queue, false, false, false, false, nil)
		if err != nil {
			return time.Time{}, fmt.Errorf("poll %s: %w", queue, err)
		}
		if q.Messages == want {
			return time.Now(), nil
		}
		if q.Messages > want {
			// More than were sent: a message was delivered twice.
			return time.Time{}, fmt.Errorf("queue %s holds %d messages, %d more than the %d sent", queue, q.Messages, q.Messages-want, want)
		}
		last = q.Messages
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("queue %s holds %d of %d messages: %w", queue, last, want, ctx.Err())
		case <-tick.C:
		}
	}
}

// confirmingPublisher publishes with publisher confirms, keeping at most
// window publishes unconfirmed.
type confirmingPublisher struct {
	ch    *amqp.Channel
	slots chan struct{} // one token per unconfirmed publish
	done  chan error    // the confirm reader's verdict
}

// newConfirmingPublisher puts ch in confirm mode and starts a reader that
// expects exactly n confirms.
func newConfirmingPublisher(ch *amqp.Channel, n, window int) (*confirmingPublisher, error) {
	if err := ch.Confirm(false); err != nil {
		return nil, err
	}
	p := &confirmingPublisher{
		ch:    ch,
		slots: make(chan struct{}, window),
		done:  make(chan error, 1),
	}
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, window+1))
	go func() {
		nacks := 0
		for i := 0; i < n; i++ {
			c, ok := <-confirms
			if !ok {
				p.done <- fmt.Errorf("channel closed after %d of %d confirms", i, n)
				return
			}
			if !c.Ack {
				nacks++
			}
			<-p.slots
		}
		if nacks > 0 {
			p.done <- fmt.Errorf("%d of %d publishes nacked", nacks, n)
			return
		}
		p.done <- nil
	}()
	return p, nil
}

// publish waits for a free slot in the window and publishes.
func (p *confirmingPublisher) publish(ctx context.Context, exchange, key string, msg amqp.Publishing) error {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	return p.ch.PublishWithContext(ctx, exchange, key, false, false, msg)
}

// publishAll publishes msg n times to the queue named key through the
// default exchange and waits for every confirm.
func (p *confirmingPublisher) publishAll(ctx context.Context, key string, msg amqp.Publishing, n int) error {
	for i := 0; i < n; i++ {
		if err := p.publish(ctx, "", key, msg); err != nil {
			return fmt.Errorf("publish %d: %w", i, err)
		}
	}
	return p.wait(ctx)
}

// wait returns when every expected confirm has arrived.
func (p *confirmingPublisher) wait(ctx context.Context) error {
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("waiting for confirms: %w", ctx.Err())
	}
}

// body returns a body of size bytes.
func body(sizeBytes int) []byte {
	b := make([]byte, sizeBytes)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}
