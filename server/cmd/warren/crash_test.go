package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestCrashKeepsConfirmedMessages is the crash test: a publisher
// with confirms sends persistent messages (some with a TTL, with
// priorities, into a queue with a dead-letter exchange) while a consumer
// acks some of them, and `warren serve --data DIR` is killed with SIGKILL
// at a random moment, 20 times in a row. After each restart every
// confirmed message that was not acked is there exactly once (in its
// queue, or in the dead-letter queue with an x-death if its TTL ran out),
// no message is there twice, transient messages and the non-durable queue
// are gone, and the durable definitions (exchanges, queues, bindings, a
// policy) are intact.
func TestCrashKeepsConfirmedMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills warren serve 20 times")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 10))
	dir := t.TempDir()
	var prev *crashRound
	for round := 0; round < 20; round++ {
		// A small snapshot threshold, so that crashes also land while
		// snapshots replace the log, and restarts load them.
		p := startServe(t, "--data", dir, "--snapshot-after", "200000")
		c := dialCrash(t, p)
		if round == 0 {
			declareCrashTopology(t, c, p)
		} else {
			checkAfterCrash(t, round, c, p, prev)
		}
		prev = runUntilKilled(t, round, c, p, time.Duration(50+rng.IntN(450))*time.Millisecond, rng.Uint64())
	}
	p := startServe(t, "--data", dir)
	checkAfterCrash(t, 20, dialCrash(t, p), p, prev)
}

// crashRound is what one round's clients saw before the kill.
type crashRound struct {
	mu         sync.Mutex
	confirmed  map[string]bool // persistent, confirmed by the broker
	transient  map[string]bool // published with delivery-mode 1
	published  map[string]bool // every message sent, confirmed or not
	acked      map[string]bool // delivered and acked by the consumer
	deliveries int
}

func dialCrash(t *testing.T, p *servedProcess) *amqp.Connection {
	t.Helper()
	c, err := amqp.Dial("amqp://guest:guest@" + p.amqpAddr + "/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func declareCrashTopology(t *testing.T, c *amqp.Connection, p *servedProcess) {
	t.Helper()
	ch, err := c.Channel()
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	must(t, ch.ExchangeDeclare("crash.x", "direct", true, false, false, false, nil))
	must(t, ch.ExchangeDeclare("crash.dlx", "fanout", true, false, false, false, nil))
	_, err = ch.QueueDeclare("crash.q", true, false, false, false, amqp.Table{"x-max-priority": int32(9), "x-dead-letter-exchange": "crash.dlx"})
	must(t, err)
	_, err = ch.QueueDeclare("crash.dlq", true, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("crash.barrier", true, false, false, false, nil)
	must(t, err)
	must(t, ch.QueueBind("crash.q", "k", "crash.x", false, nil))
	must(t, ch.QueueBind("crash.dlq", "", "crash.dlx", false, nil))
	req, _ := http.NewRequest("PUT", "http://"+p.http+"/api/policies/%2F/crash-limit",
		strings.NewReader(`{"pattern":"^crash\\.limited$","definition":{"max-length":100},"apply-to":"queues"}`))
	req.SetBasicAuth("guest", "guest")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("PUT policy: %s", resp.Status)
	}
}

// runUntilKilled publishes and consumes until after d, then kills the
// server with SIGKILL and returns what the clients saw.
func runUntilKilled(t *testing.T, round int, c *amqp.Connection, p *servedProcess, d time.Duration, seed uint64) *crashRound {
	t.Helper()
	r := &crashRound{confirmed: map[string]bool{}, transient: map[string]bool{}, published: map[string]bool{}, acked: map[string]bool{}}
	pub, err := c.Channel()
	must(t, err)
	must(t, pub.Confirm(false))
	// A non-durable queue, gone after every restart.
	_, err = pub.QueueDeclare("crash.transient", false, false, false, false, nil)
	must(t, err)
	sub, err := c.Channel()
	must(t, err)
	must(t, sub.Qos(10, 0, false))
	deliveries, err := sub.Consume("crash.q", "", false, false, false, false, nil)
	must(t, err)

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the consumer: acks about two thirds of what it gets
		defer wg.Done()
		rng := rand.New(rand.NewPCG(seed, 1))
		for m := range deliveries {
			r.mu.Lock()
			r.deliveries++
			r.mu.Unlock()
			if rng.IntN(3) == 0 {
				continue // left unacked: back as ready after the crash
			}
			if m.Ack(false) != nil {
				return
			}
			r.mu.Lock()
			r.acked[m.MessageId] = true
			r.mu.Unlock()
		}
	}()
	go func() { // the publisher: batches of confirmed publishes
		defer wg.Done()
		rng := rand.New(rand.NewPCG(seed, 2))
		for n := 0; ; {
			type sent struct {
				id string
				dc *amqp.DeferredConfirmation
			}
			var batch []sent
			for range 20 {
				n++
				id := fmt.Sprintf("%d-%d", round, n)
				m := amqp.Publishing{MessageId: id, Body: []byte(id), DeliveryMode: amqp.Persistent, Priority: uint8(rng.IntN(10))}
				if rng.IntN(8) == 0 {
					m.DeliveryMode = amqp.Transient
				}
				if rng.IntN(5) == 0 {
					m.Expiration = "150"
				}
				r.mu.Lock()
				r.published[id] = true
				if m.DeliveryMode == amqp.Transient {
					r.transient[id] = true
				}
				r.mu.Unlock()
				dc, err := pub.PublishWithDeferredConfirm("crash.x", "k", false, false, m)
				if err != nil {
					return
				}
				if m.DeliveryMode == amqp.Persistent {
					batch = append(batch, sent{id, dc})
				}
			}
			for _, s := range batch {
				if !s.dc.Wait() {
					return
				}
				r.mu.Lock()
				r.confirmed[s.id] = true
				r.mu.Unlock()
			}
		}
	}()
	time.Sleep(d)
	p.cmd.Process.Kill()
	p.cmd.Wait()
	wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.confirmed) == 0 && round > 0 {
		t.Logf("round %d: killed before any confirm (%d published)", round, len(r.published))
	}
	return r
}

// checkAfterCrash checks the broker restarted after prev's kill, then
// empties the queues (making sure that is on disk) for the next round.
func checkAfterCrash(t *testing.T, round int, c *amqp.Connection, p *servedProcess, prev *crashRound) {
	t.Helper()
	ch, err := c.Channel()
	must(t, err)
	defer ch.Close()
	must(t, ch.ExchangeDeclarePassive("crash.x", "direct", true, false, false, false, nil))
	must(t, ch.ExchangeDeclarePassive("crash.dlx", "fanout", true, false, false, false, nil))
	seen := map[string]string{}
	for _, q := range []string{"crash.q", "crash.dlq"} {
		if _, err := ch.QueueDeclarePassive(q, true, false, false, false, nil); err != nil {
			t.Fatalf("round %d: durable queue %s is gone: %v", round, q, err)
		}
		for {
			m, ok, err := ch.Get(q, true)
			must(t, err)
			if !ok {
				break
			}
			id := m.MessageId
			if where, dup := seen[id]; dup {
				t.Errorf("round %d: message %s is there twice (%s and %s)", round, id, where, q)
			}
			seen[id] = q
			switch {
			case !prev.published[id]:
				t.Errorf("round %d: message %s in %s was never published this round", round, id, q)
			case prev.transient[id]:
				t.Errorf("round %d: transient message %s survived the crash in %s", round, id, q)
			}
			if q == "crash.dlq" {
				if deaths, _ := m.Headers["x-death"].([]any); len(deaths) == 0 {
					t.Errorf("round %d: dead-lettered %s has no x-death", round, id)
				}
			}
		}
	}
	lost := 0
	for id := range prev.confirmed {
		if _, ok := seen[id]; !ok && !prev.acked[id] {
			lost++
			if lost <= 5 {
				t.Errorf("round %d: confirmed message %s (not acked) is lost", round, id)
			}
		}
	}
	if lost > 5 {
		t.Errorf("round %d: %d confirmed messages lost in all", round, lost)
	}
	t.Logf("round %d: %d confirmed, %d acked, %d back after the crash", round, len(prev.confirmed), len(prev.acked), len(seen))
	// The bindings are intact: a message published now is routed.
	ch2, err := c.Channel()
	must(t, err)
	defer ch2.Close()
	must(t, ch2.Confirm(false))
	if _, err := ch2.QueueDeclarePassive("crash.transient", false, false, false, false, nil); err == nil {
		t.Errorf("round %d: the non-durable queue survived the crash", round)
	}
	ch2, err = c.Channel()
	must(t, err)
	must(t, ch2.Confirm(false))
	dc, err := ch2.PublishWithDeferredConfirm("crash.x", "k", false, false, amqp.Publishing{MessageId: "probe", DeliveryMode: amqp.Persistent})
	must(t, err)
	if !dc.Wait() {
		t.Fatalf("round %d: probe not confirmed", round)
	}
	if m, ok, err := ch2.Get("crash.q", true); err != nil || !ok || m.MessageId != "probe" {
		t.Fatalf("round %d: the binding crash.x → crash.q is gone (get: %v %v)", round, ok, err)
	}
	// The policy is intact.
	req, _ := http.NewRequest("GET", "http://"+p.http+"/api/policies/%2F/crash-limit", nil)
	req.SetBasicAuth("guest", "guest")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("round %d: policy crash-limit: %s", round, resp.Status)
	}
	// A confirmed publish after the gets puts them on disk too (the log
	// is written in order), so the next crash cannot bring them back.
	dc, err = ch2.PublishWithDeferredConfirm("", "crash.barrier", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent})
	must(t, err)
	if !dc.Wait() {
		t.Fatalf("round %d: barrier not confirmed", round)
	}
	ch2.Close()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
