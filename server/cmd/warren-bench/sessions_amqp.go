package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/engine"
	"warren/engine/hub"
)

// Each session of `warren-bench sessions` also has one real AMQP client,
// the "1 AMQP client" beside the five pages. It logs into the
// session's own broker with the login POST /api/sessions answered,
// publishes with publisher confirms into a queue of the session at a
// bounded rate, and consumes and acks from that queue on a second channel.
// Every AMQP method becomes an entry of the session's log of origin amqp,
// which every page receives; a page matches an entry to the publish that
// made it by the message body in its basic.publish record (each body is
// unique in its session), which gives the AMQP fan-out latency: from the
// client publishing to each page receiving the entry.

const (
	// amqpQueue is the queue each session's AMQP client declares,
	// publishes to and consumes from.
	amqpQueue = "bench-amqp"
	// amqpWindow bounds the publishes a client leaves unconfirmed.
	amqpWindow = 100
	// maxAMQPRate bounds --amqp-rate, publishes a second per client.
	maxAMQPRate = 1000
	// amqpCloseMax bounds closing a client's connection at the end.
	amqpCloseMax = 5 * time.Second
)

// loadAMQP is one session's AMQP client.
type loadAMQP struct {
	session    int // the session's index, part of every body
	conn       *amqp.Connection
	pub        *amqp.Channel // in confirm mode
	deliveries <-chan amqp.Delivery
	sends      *sync.Map // the session's: body -> time.Time published

	mu         sync.Mutex
	confirmLat []time.Duration // publish -> confirm
}

// amqpURL is the URL of a session's login on host: the server's own
// address (loopback), the login's port and vhost.
func amqpURL(host string, l *hub.AMQPLogin) (string, error) {
	if l == nil || l.Port == 0 {
		return "", errors.New("the server gave the session no AMQP login on a TCP port (run it with an AMQP listener, or give --amqp=false)")
	}
	hostPort := net.JoinHostPort(host, strconv.Itoa(l.Port))
	return "amqp://" + url.UserPassword(l.User, l.Password).String() + "@" + hostPort + "/" + url.PathEscape(l.Vhost), nil
}

// amqpBody is the body of a session's i-th publish: unique in the
// session, so a page can tell which publish an entry holds.
func amqpBody(session, i int) string { return "a" + strconv.Itoa(session) + "-" + strconv.Itoa(i) }

// publishedBodies returns the bodies of the basic.publish commands among
// an entry's records, in order.
func publishedBodies(records [][]byte) ([]string, error) {
	var bodies []string
	for _, rec := range records {
		c, err := engine.DecodeCommand(rec)
		if err != nil {
			return bodies, err
		}
		if p, ok := c.(engine.CmdBasicPublish); ok {
			bodies = append(bodies, string(p.Publish.Body))
		}
	}
	return bodies, nil
}

// connectAMQP logs into a session's broker as its client: it declares
// amqpQueue, consumes from it with manual acks on one channel, and puts a
// second channel in confirm mode for publishing.
func connectAMQP(host string, l *hub.AMQPLogin, session int, sends *sync.Map) (*loadAMQP, error) {
	u, err := amqpURL(host, l)
	if err != nil {
		return nil, err
	}
	conn, err := dial(u)
	if err != nil {
		return nil, err
	}
	a := &loadAMQP{session: session, conn: conn, sends: sends}
	if err := a.open(); err != nil {
		conn.Close()
		return nil, err
	}
	return a, nil
}

func (a *loadAMQP) open() error {
	sub, err := a.conn.Channel()
	if err != nil {
		return err
	}
	if err := declareQueue(sub, amqpQueue, nil); err != nil {
		return fmt.Errorf("declare %s: %w", amqpQueue, err)
	}
	if a.deliveries, err = sub.Consume(amqpQueue, "bench", false, false, false, false, nil); err != nil {
		return fmt.Errorf("consume %s: %w", amqpQueue, err)
	}
	if a.pub, err = a.conn.Channel(); err != nil {
		return err
	}
	return a.pub.Confirm(false)
}

// close closes the connection, bounded.
func (a *loadAMQP) close() { a.conn.CloseDeadline(time.Now().Add(amqpCloseMax)) }

// consume acks every delivery until the connection closes or ctx ends.
func (a *loadAMQP) consume(ctx context.Context, cnt *loadCounters) {
	for {
		select {
		case d, ok := <-a.deliveries:
			if !ok {
				return
			}
			if d.Ack(false) == nil {
				cnt.amqpConsumed.Add(1)
			}
		case <-ctx.Done():
			return
		}
	}
}

// pendingConfirm is a publish waiting for its confirm.
type pendingConfirm struct {
	dc     *amqp.DeferredConfirmation
	sentAt time.Time
}

// publish runs the client's share of the load: c.amqpMessages publishes at
// c.amqpRate a second into amqpQueue, starting at a random point of the
// first interval, at most amqpWindow unconfirmed. It returns once every
// publish is confirmed.
func (a *loadAMQP) publish(ctx context.Context, c *sessionsConfig, cnt *loadCounters) error {
	every := time.Duration(float64(time.Second) / c.amqpRate)
	select {
	case <-time.After(rand.N(every)):
	case <-ctx.Done():
		return ctx.Err()
	}
	pending := make(chan pendingConfirm, amqpWindow)
	confirmed := make(chan error, 1)
	go func() { confirmed <- a.awaitConfirms(ctx, pending, cnt) }()
	finish := func(err error) error {
		close(pending)
		return errors.Join(err, <-confirmed)
	}
	next := time.Now()
	for i := 0; i < c.amqpMessages; i++ {
		if d := time.Until(next); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return finish(ctx.Err())
			}
		}
		next = next.Add(every)
		body := amqpBody(a.session, i)
		sentAt := time.Now()
		a.sends.Store(body, sentAt)
		dc, err := a.pub.PublishWithDeferredConfirmWithContext(ctx, "", amqpQueue, false, false, amqp.Publishing{Body: []byte(body)})
		if err != nil {
			return finish(fmt.Errorf("session %d: publish %d: %w", a.session, i, err))
		}
		cnt.amqpSent.Add(1)
		select {
		case pending <- pendingConfirm{dc: dc, sentAt: sentAt}:
		case <-ctx.Done():
			return finish(ctx.Err())
		}
	}
	return finish(nil)
}

// awaitConfirms waits for each pending publish's confirm, in order (the
// broker confirms in order), and records its latency.
func (a *loadAMQP) awaitConfirms(ctx context.Context, pending <-chan pendingConfirm, cnt *loadCounters) error {
	for p := range pending {
		select {
		case <-p.dc.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
		lat := time.Since(p.sentAt)
		if !p.dc.Acked() {
			cnt.amqpNacked.Add(1)
			continue
		}
		cnt.amqpConfirmed.Add(1)
		a.mu.Lock()
		a.confirmLat = append(a.confirmLat, lat)
		a.mu.Unlock()
	}
	return nil
}

// amqpEntry times an entry of origin amqp that a page received: each
// publish of its session's client in it gives an AMQP fan-out latency.
func (p *loadPage) amqpEntry(e *hub.Entry, now time.Time, cnt *loadCounters) {
	bodies, err := publishedBodies(e.Records)
	if err != nil {
		p.countErr("undecodableRecord")
	}
	for _, b := range bodies {
		t, ok := p.amqpSends.Load(b)
		if !ok {
			continue
		}
		p.mu.Lock()
		p.amqpLat = append(p.amqpLat, now.Sub(t.(time.Time)))
		p.mu.Unlock()
		cnt.amqpMatched.Add(1)
	}
}

// amqpShape says what the AMQP clients do, for the report's header.
func amqpShape(c *sessionsConfig) string {
	if !c.amqp {
		return "no AMQP client (--amqp=false)"
	}
	return fmt.Sprintf("1 AMQP client each, %d publishes at %g/s with confirms into %s, consumed and acked", c.amqpMessages, c.amqpRate, amqpQueue)
}

// reportAMQP prints what the AMQP clients did: their publishes, confirms
// and deliveries, the publish->confirm latency, and the fan-out latency
// of their publishes to the pages (want entries: every page's of every
// confirmed publish).
func reportAMQP(out io.Writer, all []*loadSession, cnt *loadCounters, want int64) {
	var fanOut, confirm []time.Duration
	for _, s := range all {
		for _, p := range s.pages {
			p.mu.Lock()
			fanOut = append(fanOut, p.amqpLat...)
			p.mu.Unlock()
		}
		if a := s.amqp; a != nil {
			a.mu.Lock()
			confirm = append(confirm, a.confirmLat...)
			a.mu.Unlock()
		}
	}
	fmt.Fprintf(out, "AMQP: %d published, %d confirmed, %d nacked, %d consumed and acked\n",
		cnt.amqpSent.Load(), cnt.amqpConfirmed.Load(), cnt.amqpNacked.Load(), cnt.amqpConsumed.Load())
	cs := summarize(confirm)
	fmt.Fprintf(out, "AMQP publish->confirm: %d confirms; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
		cs.n, ms(cs.p50), ms(cs.p99), ms(cs.max))
	fs := summarize(fanOut)
	fmt.Fprintf(out, "AMQP fan-out (publish -> pages, origin amqp): %d of %d entries reached the pages; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms (target p99 < 50 ms: %s)\n",
		fs.n, want, ms(fs.p50), ms(fs.p99), ms(fs.max), verdict(fs.n > 0 && int64(fs.n) == want && fs.p99 < 50*time.Millisecond))
}
