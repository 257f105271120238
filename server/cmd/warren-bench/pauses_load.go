package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	wire "warren/engine/amqp"
)

// The pause benchmark's loads (pauses.go): each runs against a broker
// started for it alone, with the healthy client (pauses_probe.go) timing
// its round trips over the load's span.

// declareChannels is how many channels declare the listings' queues at
// once, so that the declares overlap their round trips.
const declareChannels = 8

// declareMany declares n transient queues and binds each to exchange x by
// its name, over declareChannels channels at once.
func declareMany(ctx context.Context, url, prefix, x string, n int) error {
	c, err := dial(url)
	if err != nil {
		return err
	}
	defer c.Close()
	var wg sync.WaitGroup
	errs := make([]error, declareChannels)
	var next atomic.Int64
	for w := range declareChannels {
		ch, err := c.Channel()
		if err != nil {
			return err
		}
		if w == 0 {
			if err := ch.ExchangeDeclare(x, amqp.ExchangeDirect, false, false, false, false, nil); err != nil {
				return err
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				q := fmt.Sprintf("%s.q%06d", prefix, i)
				if err := declareQueue(ch, q, nil); err != nil {
					errs[w] = err
					return
				}
				if err := ch.QueueBind(q, q, x, false, nil); err != nil {
					errs[w] = err
					return
				}
			}
			errs[w] = ctx.Err()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// listingEndpoints are the management API's listings the benchmark GETs.
var listingEndpoints = []string{"/api/queues", "/api/bindings", "/api/definitions"}

// runListings declares cfg.queues queues, each bound to a direct exchange,
// and then GETs each listing cfg.listingReps times back to back, under one
// healthy client: one result per endpoint. A GET lasts a fraction of a
// second, about a hundred round trips, whose p99 would be their longest
// but one; over the series the p99 is a percentile and the longest still
// the longest.
func runListings(ctx context.Context, cfg pausesConfig, b *pauseBroker, log io.Writer) ([]Result, error) {
	start := time.Now()
	if err := declareMany(ctx, b.url(), "warren-bench.pauses", "warren-bench.pauses.x", cfg.queues); err != nil {
		return nil, fmt.Errorf("declaring %d queues: %w", cfg.queues, err)
	}
	fmt.Fprintf(log, "listings   %s: %d queues declared and bound in %s\n", b.label, cfg.queues, time.Since(start).Round(time.Millisecond))
	client := &http.Client{Timeout: 10 * time.Minute}
	var out []Result
	for _, path := range listingEndpoints {
		name := fmt.Sprintf("GET %s at %s queues, %d times", path, thousands(int64(cfg.queues)), cfg.listingReps)
		res, err := probed(b.url(), cfg.interval, func() (Result, error) {
			var replies, sizes []float64
			var total float64
			var err error
			for range cfg.listingReps {
				var elapsed time.Duration
				var size int64
				if elapsed, size, err = getListing(ctx, client, b.mgmt+path); err != nil {
					break // the GETs that were answered still count
				}
				replies, sizes = append(replies, ms(elapsed)), append(sizes, float64(size)/1e6)
				total += ms(elapsed)
			}
			if len(replies) == 0 {
				return Result{}, err
			}
			return Result{ElapsedMs: total, Metrics: []Metric{
				{Name: "reply, median", Unit: "ms", Value: median(replies)},
				{Name: "reply size", Unit: "MB", Value: median(sizes)},
			}}, err
		})
		res.Workload = name
		if err != nil {
			// A broker that gives up on the listing, or does not
			// answer in time, has answered; the healthy client's
			// round trips meanwhile count.
			res.Notes = append(res.Notes, fmt.Sprintf("a GET failed: %v", err))
		}
		out = append(out, res)
		if ctx.Err() != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}

// getListing GETs url as guest, reads the whole reply, and returns how
// long that took and its size in bytes.
func getListing(ctx context.Context, client *http.Client, url string) (time.Duration, int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, 0, err
	}
	req.SetBasicAuth("guest", "guest")
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	elapsed := time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return elapsed, n, nil
}

// runBurst has a consumer (no-ack, no prefetch limit) stop reading its
// socket, and publishes cfg.burst messages of cfg.burstSize bytes to its
// queue with confirms.
func runBurst(ctx context.Context, cfg pausesConfig, b *pauseBroker) (Result, error) {
	s, closeS, err := sessionUntil(ctx, b.url())
	if err != nil {
		return Result{}, err
	}
	defer closeS()
	q := "warren-bench.pauses.burst"
	if err := declareQueue(s.ch, q, nil); err != nil {
		return Result{}, err
	}
	stalled, err := dialPipe(ctx, b.url())
	if err != nil {
		return Result{}, err
	}
	defer stalled.c.Close()
	if err := stalled.openChannel(1); err != nil {
		return Result{}, err
	}
	if _, err := rpc[*wire.BasicConsumeOk](stalled, 1, &wire.BasicConsume{Queue: q, ConsumerTag: "stalled", NoAck: true}); err != nil {
		return Result{}, err
	}
	// From here on nothing reads the stalled consumer's socket.
	res, err := probed(b.url(), cfg.interval, func() (Result, error) {
		cp, err := newConfirmingPublisher(s.ch, cfg.burst, 1000)
		if err != nil {
			return Result{}, err
		}
		t0 := time.Now()
		if err := cp.publishAll(ctx, q, amqpPublishing(cfg.burstSize), cfg.burst); err != nil {
			return Result{}, err
		}
		elapsed := time.Since(t0)
		return Result{ElapsedMs: ms(elapsed), Metrics: []Metric{{Name: "burst", Unit: "msgs/s", Value: rate(cfg.burst, elapsed), HigherIsBetter: true}}}, nil
	})
	res.Workload = fmt.Sprintf("%s × %d B to a consumer that stopped reading", thousands(int64(cfg.burst)), cfg.burstSize)
	return res, err
}

// floodPublishers is how many connections flood in runFlood.
const floodPublishers = 2

// runFlood sets the memory alarm's watermark to cfg.watermark bytes of
// messages and floods one queue from floodPublishers connections for
// cfg.floodSpan; a consumer (prefetch 1,000, acks every 500) starts
// draining once a publisher is first blocked, so that the flood runs
// against the watermark, blocked and released again and again.
func runFlood(ctx context.Context, cfg pausesConfig, b *pauseBroker) (Result, error) {
	if b.watermark != nil {
		if err := b.watermark(ctx, cfg.watermark); err != nil {
			return Result{}, err
		}
	}
	q := "warren-bench.pauses.flood"
	s, err := openSession(b.url())
	if err != nil {
		return Result{}, err
	}
	defer s.close()
	if err := declareQueue(s.ch, q, nil); err != nil {
		return Result{}, err
	}
	var blocks atomic.Int64
	firstBlock := make(chan struct{})
	var once sync.Once
	var published atomic.Int64
	stop := make(chan struct{})
	var pubs sync.WaitGroup
	// A blocked publisher's connection.close would wait for a broker that
	// does not read it: the sockets are closed instead.
	var socks []net.Conn
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	for range floodPublishers {
		c, sock, err := dialSocket(b.url())
		if err != nil {
			return Result{}, err
		}
		socks = append(socks, sock)
		ch, err := c.Channel()
		if err != nil {
			return Result{}, err
		}
		notes := c.NotifyBlocked(make(chan amqp.Blocking, 16))
		go func() {
			for bl := range notes {
				if bl.Active {
					blocks.Add(1)
					once.Do(func() { close(firstBlock) })
				}
			}
		}()
		pubs.Add(1)
		go func() {
			defer pubs.Done()
			msg := amqpPublishing(cfg.burstSize)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if ch.PublishWithContext(ctx, "", q, false, false, msg) != nil {
					return
				}
				published.Add(1)
			}
		}()
	}
	var consumed atomic.Int64
	res, err := probed(b.url(), cfg.interval, func() (Result, error) {
		end := time.After(cfg.floodSpan)
		select {
		case <-firstBlock:
		case <-time.After(cfg.floodSpan / 3):
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		cs, err := openSession(b.url())
		if err != nil {
			return Result{}, err
		}
		defer cs.close()
		if err := cs.ch.Qos(1000, 0, false); err != nil {
			return Result{}, err
		}
		ds, err := cs.ch.Consume(q, "drain", false, false, false, false, nil)
		if err != nil {
			return Result{}, err
		}
		for {
			select {
			case d, ok := <-ds:
				if !ok {
					return Result{}, errors.New("the draining consumer's channel closed")
				}
				if consumed.Add(1)%500 == 0 {
					d.Ack(true)
				}
			case <-end:
				close(stop)
				return Result{ElapsedMs: ms(cfg.floodSpan)}, nil
			case <-ctx.Done():
				close(stop)
				return Result{}, ctx.Err()
			}
		}
	})
	res.Workload = fmt.Sprintf("flood against a %s MB watermark", thousands(cfg.watermark>>20))
	res.Metrics = append(res.Metrics,
		Metric{Name: "published", Unit: "msgs/s", Value: float64(published.Load()) / cfg.floodSpan.Seconds(), HigherIsBetter: true},
		Metric{Name: "times blocked", Unit: "", Value: float64(blocks.Load())})
	res.Notes = append(res.Notes, fmt.Sprintf("%d publishers, %d-byte messages; %d consumed", floodPublishers, cfg.burstSize, consumed.Load()))
	return res, err
}

// dialSocket is dial, also returning the connection's socket.
func dialSocket(url string) (*amqp.Connection, net.Conn, error) {
	var sock net.Conn
	c, err := amqp.DialConfig(url, amqp.Config{
		Dial: func(network, addr string) (net.Conn, error) {
			c, err := net.DialTimeout(network, addr, dialTimeout)
			if err != nil {
				return nil, err
			}
			if err := c.SetDeadline(time.Now().Add(dialTimeout)); err != nil {
				c.Close()
				return nil, err
			}
			sock = c
			return c, nil
		},
	})
	return c, sock, err
}

// sessionUntil is openSession whose socket is closed when ctx ends, so
// that a publish blocked on a broker that stopped reading it (a memory
// alarm) ends too.
// Its close stops the watch and closes the session.
func sessionUntil(ctx context.Context, url string) (*session, func(), error) {
	c, sock, err := dialSocket(url)
	if err != nil {
		return nil, nil, err
	}
	ch, err := c.Channel()
	if err != nil {
		sock.Close()
		return nil, nil, err
	}
	s := &session{conn: c, ch: ch}
	stop := context.AfterFunc(ctx, func() { sock.Close() })
	return s, func() {
		if stop() {
			s.close()
		}
	}, nil
}

// runBacklog publishes cfg.backlog 16-byte messages into one queue
// nobody consumes, with confirms (window 1,000).
func runBacklog(ctx context.Context, cfg pausesConfig, b *pauseBroker) (Result, error) {
	return publishBacklog(ctx, cfg, b, "warren-bench.pauses.backlog", false, amqpPublishing(16), cfg.backlog,
		fmt.Sprintf("publishing a %s-message backlog", thousands(int64(cfg.backlog))))
}

// runPersistentBacklog publishes cfg.persistent persistent messages of
// cfg.burstSize bytes into one durable queue nobody consumes, with
// confirms (window 1,000): the log grows past Warren's --snapshot-after
// again and again, and each snapshot is saved while the broker is held.
func runPersistentBacklog(ctx context.Context, cfg pausesConfig, b *pauseBroker) (Result, error) {
	msg := amqp.Publishing{DeliveryMode: amqp.Persistent, Body: body(cfg.burstSize)}
	return publishBacklog(ctx, cfg, b, "warren-bench.pauses.persistent", true, msg, cfg.persistent,
		fmt.Sprintf("publishing %s persistent %s-byte messages into a durable queue", thousands(int64(cfg.persistent)), thousands(int64(cfg.burstSize))))
}

// publishBacklog publishes n copies of msg into queue q, declared
// durable or not, with confirms (window 1,000), while the healthy client
// is timed.
func publishBacklog(ctx context.Context, cfg pausesConfig, b *pauseBroker, q string, durable bool, msg amqp.Publishing, n int, workload string) (Result, error) {
	s, closeS, err := sessionUntil(ctx, b.url())
	if err != nil {
		return Result{}, err
	}
	defer closeS()
	if _, err := s.ch.QueueDeclare(q, durable, false, false, false, nil); err != nil {
		return Result{}, err
	}
	res, err := probed(b.url(), cfg.interval, func() (Result, error) {
		cp, err := newConfirmingPublisher(s.ch, n, 1000)
		if err != nil {
			return Result{}, err
		}
		t0 := time.Now()
		if err := cp.publishAll(ctx, q, msg, n); err != nil {
			return Result{}, err
		}
		elapsed := time.Since(t0)
		return Result{ElapsedMs: ms(elapsed), Metrics: []Metric{{Name: "publish", Unit: "msgs/s", Value: rate(n, elapsed), HigherIsBetter: true}}}, nil
	})
	res.Workload = workload
	return res, err
}

// runRecoveryPauses fills a durable queue with cfg.recovery persistent
// 16-byte messages, kills the broker with SIGKILL and starts it again,
// while a client tries every 10 ms to connect and declare the queue
// passively: the time until it is first served, then the healthy client's
// round trips until the queue reports every message.
func runRecoveryPauses(ctx context.Context, cfg pausesConfig, b *pauseBroker, log io.Writer) (Result, error) {
	s, err := openSession(b.url())
	if err != nil {
		return Result{}, err
	}
	q, err := declareDurable(s.ch, "pauses.recovery")
	if err != nil {
		s.close()
		return Result{}, err
	}
	cp, err := newConfirmingPublisher(s.ch, cfg.recovery, 256)
	if err != nil {
		s.close()
		return Result{}, err
	}
	t0 := time.Now()
	err = cp.publishAll(ctx, q, persistentMsg(16), cfg.recovery)
	s.close()
	if err != nil {
		return Result{}, err
	}
	fmt.Fprintf(log, "recovery   %s: %d persistent messages confirmed in %s\n", b.label, cfg.recovery, time.Since(t0).Round(time.Millisecond))
	url := b.url() // the same after the restart
	if err := b.srv.kill(); err != nil {
		return Result{}, err
	}
	started := make(chan error, 1)
	t0 = time.Now()
	go func() { started <- b.srv.start(ctx) }()
	// The first client served: a connection and a passive declare of q.
	var served time.Duration
	var attempts int
	waiting, startDone := started, false
	var last error
	for {
		attempts++
		c, err := openSession(url)
		if err == nil {
			_, err = c.ch.QueueDeclarePassive(q, true, false, false, false, nil)
			c.close()
			if err == nil {
				served = time.Since(t0)
				break
			}
		}
		last = err
		select {
		case err := <-waiting:
			if err != nil {
				return Result{}, fmt.Errorf("restart: %w", err)
			}
			waiting, startDone = nil, true
		case <-ctx.Done():
			return Result{}, fmt.Errorf("no client served after %s (restarted: %t, last error %v): %w", time.Since(t0).Round(time.Millisecond), startDone, last, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	res, err := probed(url, cfg.interval, func() (Result, error) {
		at, err := waitForRecovered(ctx, url, q, cfg.recovery)
		if err != nil {
			return Result{}, err
		}
		return Result{ElapsedMs: ms(at.Sub(t0)), Metrics: []Metric{
			{Name: "first client served", Unit: "s", Value: served.Seconds()},
			{Name: "all messages", Unit: "s", Value: at.Sub(t0).Seconds()},
		}}, nil
	})
	if !startDone {
		if serr := <-started; serr != nil {
			return res, errors.Join(err, serr)
		}
	}
	res.Workload = fmt.Sprintf("%s persistent messages recovered at start", thousands(int64(cfg.recovery)))
	res.Notes = append(res.Notes, fmt.Sprintf("after SIGKILL; a client tried every 10 ms from the restart on (%d tries) until a passive declare of the queue was answered; the round trips are from then until the queue reported every message", attempts))
	return res, err
}

// spinFor keeps this process's CPUs (GOMAXPROCS, which follows a cgroup's
// limit) busy for d with loops that do no broker work, and returns how
// many it ran: the busy scenario, where what the healthy client waits for
// is the kernel giving its thread and the idle broker's a CPU. A load that
// keeps the machine's CPUs as busy (a load client and the broker serving
// it, on a small machine) is timed on about this floor; one that blocks
// now and then leaves the probe more room.
func spinFor(d time.Duration) int {
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	loops := runtime.GOMAXPROCS(0)
	for range loops {
		wg.Go(func() {
			for n := 0; ; n++ {
				if n%1024 == 0 && time.Now().After(end) {
					return
				}
			}
		})
	}
	wg.Wait()
	return loops
}
