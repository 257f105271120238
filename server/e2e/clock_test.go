package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/server"
	"warren/server/broker"
)

// postClock moves the server's clock through the management API, as
// `warren ctl advance` does, and returns the reply.
func postClock(t *testing.T, srv *server.Server, body string) string {
	t.Helper()
	req, err := http.NewRequest("POST", "http://"+srv.HTTPAddr()+"/api/clock", strings.NewReader(body))
	must(t, err)
	req.SetBasicAuth("guest", "guest")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	if resp.StatusCode != 200 {
		t.Fatalf("POST /api/clock %s: %d %s", body, resp.StatusCode, data)
	}
	return string(data)
}

// TestRetryWithBackoffOnAManualClock is docs/clock.md's worked example: a
// retry-with-backoff chain made of TTL and dead-lettering alone (a job
// goes work.0 → retry.1m → work.1 → retry.5m → work.2 → retry.30m →
// work.3: each failure is a reject that dead-letters into the next delay
// tier, and each tier's TTL dead-letters into the next work queue), with a
// worker that fails every attempt, driven through all its retries by
// advancing a manual clock: 36 minutes in well under a second of wall
// time. The message the worker finally gives up on has an x-death entry
// for every tier and every rejection, newest first.
func TestRetryWithBackoffOnAManualClock(t *testing.T) {
	srv := startServerWith(t, server.Options{Clock: broker.ClockManual})
	conn := dial(t, srv)
	ch := channel(t, conn)

	tiers := []struct {
		name string
		ttl  time.Duration
	}{{"retry.1m", time.Minute}, {"retry.5m", 5 * time.Minute}, {"retry.30m", 30 * time.Minute}}
	for i, tier := range tiers {
		_, err := ch.QueueDeclare(fmt.Sprintf("work.%d", i), true, false, false, false, amqp.Table{
			"x-dead-letter-exchange": "", "x-dead-letter-routing-key": tier.name})
		must(t, err)
		_, err = ch.QueueDeclare(tier.name, true, false, false, false, amqp.Table{
			"x-message-ttl":          tier.ttl.Milliseconds(),
			"x-dead-letter-exchange": "", "x-dead-letter-routing-key": fmt.Sprintf("work.%d", i+1)})
		must(t, err)
	}
	_, err := ch.QueueDeclare("work.3", true, false, false, false, nil)
	must(t, err)

	// The worker fails every attempt but the last, where it gives up.
	// After each reject it checks, on the same channel, that the job is
	// parked in the next tier, and tells the test.
	wch := channel(t, conn)
	parked := make(chan string, 1)
	gaveUp := make(chan amqp.Delivery, 1)
	for i := 0; i <= len(tiers); i++ {
		msgs, err := wch.Consume(fmt.Sprintf("work.%d", i), "", false, false, false, false, nil)
		must(t, err)
		go func(i int) {
			for m := range msgs {
				if i == len(tiers) {
					m.Ack(false)
					gaveUp <- m
					continue
				}
				if err := m.Reject(false); err != nil {
					t.Error(err)
				}
				q, err := wch.QueueDeclarePassive(tiers[i].name, true, false, false, false, nil)
				if err != nil || q.Messages != 1 {
					t.Errorf("after the reject %s holds %d messages (%v)", tiers[i].name, q.Messages, err)
				}
				parked <- tiers[i].name
			}
		}(i)
	}
	wait := func(tier string) {
		t.Helper()
		select {
		case got := <-parked:
			if got != tier {
				t.Fatalf("the job went to %s, want %s", got, tier)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the job never reached %s", tier)
		}
	}

	began := time.Now()
	publish(t, ch, "", "work.0", amqp.Publishing{Body: []byte("job 1")})
	wait("retry.1m")
	if got := postClock(t, srv, `{"advance":"59s"}`); !strings.Contains(got, `"next_timer_in":"1s"`) {
		t.Fatalf("advance 59s: %s", got)
	}
	postClock(t, srv, `{"advance":"1s"}`)
	wait("retry.5m")
	postClock(t, srv, `{"advance":"5m"}`)
	wait("retry.30m")
	if got := postClock(t, srv, `{"advance":"30m"}`); !strings.Contains(got, `"now":"36m"`) {
		t.Fatalf("advance 30m: %s", got)
	}
	var final amqp.Delivery
	select {
	case final = <-gaveUp:
	case <-time.After(5 * time.Second):
		t.Fatal("the worker never gave up")
	}
	if wall := time.Since(began); wall >= time.Second {
		t.Errorf("36 minutes of retries took %v of wall time, want under 1 s", wall)
	}

	deaths, _ := final.Headers["x-death"].([]any)
	var got []string
	for _, d := range deaths {
		e, _ := d.(amqp.Table)
		got = append(got, fmt.Sprintf("%v %v %v", e["queue"], e["reason"], e["count"]))
	}
	want := []string{"retry.30m expired 1", "work.2 rejected 1", "retry.5m expired 1", "work.1 rejected 1", "retry.1m expired 1", "work.0 rejected 1"}
	if fmt.Sprint(got) != fmt.Sprint(want) || string(final.Body) != "job 1" {
		t.Errorf("the final message %q has x-death %v, want %v", final.Body, got, want)
	}
}
