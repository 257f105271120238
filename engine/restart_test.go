package engine_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// copyID names one message copy in one queue.
type copyID struct {
	vhost, queue string
	msg          uint64
}

// copyLedger follows the message copies the events tell of: Enqueued
// creates one, and exactly one ending event ends it (engine/doc.go).
type copyLedger struct {
	live map[copyID]bool
	errs []string
}

func (l *copyLedger) apply(evs []engine.Event) {
	for _, e := range evs {
		id := copyID{e.Vhost, e.Queue, e.MsgID}
		switch e.Kind {
		case engine.EvEnqueued:
			if l.live[id] {
				l.errs = append(l.errs, "enqueued twice: "+e.String())
			}
			l.live[id] = true
		case engine.EvDelivered:
			if e.NoAck {
				l.end(id, e)
			}
		case engine.EvAcked, engine.EvExpired, engine.EvRejected, engine.EvOverflowed,
			engine.EvDeliveryLimited, engine.EvPurged, engine.EvDiscarded:
			l.end(id, e)
		}
	}
}

func (l *copyLedger) end(id copyID, e engine.Event) {
	if !l.live[id] {
		l.errs = append(l.errs, "ended but not live: "+e.String())
	}
	delete(l.live, id)
}

// checkCopies compares the copies the events say are live with what the
// broker holds: every ready copy is live, and each queue has as many live
// copies as it counts ready and unacked (an acknowledgement a transaction
// buffered still counts as unacked, but no view lists it).
func checkCopies(b *engine.Broker, live map[copyID]bool) string {
	perQueue := map[copyID]int{}
	for id := range live {
		perQueue[copyID{id.vhost, id.queue, 0}]++
	}
	var lines []string
	for _, v := range b.Snapshot().Vhosts {
		for _, q := range v.Queues {
			for _, r := range q.Ready {
				if !live[copyID{v.Name, q.Name, r.Msg.ID}] {
					lines = append(lines, fmt.Sprintf("queue %s holds message %d, whose copy the events ended", q.Name, r.Msg.ID))
				}
			}
			k := copyID{v.Name, q.Name, 0}
			if n := perQueue[k]; n != q.ReadyCount+q.Unacked {
				lines = append(lines, fmt.Sprintf("queue %s: %d live copies by the events, %d ready and %d unacked", q.Name, n, q.ReadyCount, q.Unacked))
			}
			delete(perQueue, k)
		}
	}
	for k, n := range perQueue {
		lines = append(lines, fmt.Sprintf("%d live copies in %s/%s, which does not exist", n, k.vhost, k.queue))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestRestartKeepsTheEventStory drives random work with restarts in
// between, batches small so that a restart's discards span calls, and
// checks after every line that the events tell exactly the copies the
// broker holds, and after every restart what a restart leaves: no
// connection, channel, consumer or unacked delivery, only durable queues,
// only persistent messages in durable classic queues, and counts that
// agree with the queues.
func TestRestartKeepsTheEventStory(t *testing.T) {
	total := map[string]int{}
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			r := script.New(engine.Config{Seed: seed, MaxBatch: 3})
			ledger := &copyLedger{live: map[copyID]bool{}}
			queues := []string{"d1 durable", "d2 durable max-priority=5", "d3 durable ttl=3s dlx=\"\" dlrk=dead",
				"dead durable", "qq type=quorum delivery-limit=2", "t1", "t2 exclusive", "ad durable auto-delete"}
			for _, q := range queues {
				mustExec(t, r, "declare queue "+q, ledger)
			}
			names := []string{"d1", "d2", "d3", "dead", "qq", "t1", "t2", "ad"}
			restarts := 0
			seen := map[string]int{}
			for step := 0; step < 400; step++ {
				q := names[rng.IntN(len(names))]
				var line string
				switch k := rng.IntN(20); {
				case k < 7:
					line = fmt.Sprintf("publish %s m%d", q, step)
					if rng.IntN(2) == 0 {
						line += " persistent"
					}
					if rng.IntN(4) == 0 {
						line += fmt.Sprintf(" expiration=%d", 1000*(1+rng.IntN(5)))
					}
					if rng.IntN(3) == 0 {
						line += fmt.Sprintf(" priority=%d", rng.IntN(6))
					}
				case k < 9:
					line = fmt.Sprintf("@c%d get %s", rng.IntN(2), q)
				case k < 10:
					line = fmt.Sprintf("@c%d consume %s prefetch=%d", rng.IntN(2), q, 1+rng.IntN(3))
				case k < 12:
					line = fmt.Sprintf("@c%d ack all", rng.IntN(2))
				case k < 13:
					line = fmt.Sprintf("@c%d nack all", rng.IntN(2))
				case k < 14:
					line = "@tx tx select"
				case k < 15:
					line = fmt.Sprintf("@tx get %s", q)
				case k < 16:
					line = "@tx ack all"
				case k < 17:
					line = fmt.Sprintf("advance %dms", 100*rng.IntN(20))
				case k < 18:
					line = fmt.Sprintf("@c%d declare queue %s", rng.IntN(2), queues[rng.IntN(len(queues))])
				default:
					line = fmt.Sprintf("restart %dms", 500*rng.IntN(8))
				}
				out, err := r.Exec(line)
				if err != nil && !strings.Contains(err.Error(), "unacked") {
					// A line the state refuses (no such queue, no
					// delivery to ack) is part of random work.
					t.Logf("%s: %v", line, err)
				}
				ledger.apply(r.LastEvents())
				for _, e := range r.LastEvents() {
					seen[e.Kind.String()+" "+e.Reason]++
				}
				if len(ledger.errs) > 0 {
					t.Fatalf("after %q:\n%s\n%s", line, strings.Join(ledger.errs, "\n"), out)
				}
				if d := checkCopies(r.B, ledger.live); d != "" {
					t.Fatalf("after %q:\n%s\n%s", line, d, out)
				}
				if strings.HasPrefix(line, "restart") {
					restarts++
					checkRestarted(t, r.B)
				}
			}
			if restarts == 0 {
				t.Fatal("no restart ran")
			}
			t.Logf("%d restarts; events %v", restarts, seen)
			for _, k := range []string{"requeued ", "discarded transient", "discarded restart", "queue.deleted restart"} {
				total[k] += seen[k]
			}
		})
	}
	for k, n := range total {
		if n == 0 {
			t.Errorf("no %q event in any run: the work does not reach that rule", k)
		}
	}
}

func mustExec(t *testing.T, r *script.Runner, line string, ledger *copyLedger) {
	t.Helper()
	if _, err := r.Exec(line); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	ledger.apply(r.LastEvents())
}

// checkRestarted checks what a restart leaves.
func checkRestarted(t *testing.T, b *engine.Broker) {
	t.Helper()
	if n := len(b.ConnectionRefs()); n != 0 {
		t.Errorf("%d connection chunks listed after a restart", n)
	}
	if n := len(b.ChannelRefs()); n != 0 {
		t.Errorf("%d channel chunks listed after a restart", n)
	}
	if u := b.MessageTotals().Unacked; u.Msgs != 0 || u.Bytes != 0 {
		t.Errorf("unacked after a restart: %+v", u)
	}
	var ready int64
	for _, v := range b.Snapshot().Vhosts {
		tot, _ := b.VhostTotals(v.Name)
		if tot.Connections != 0 || tot.Channels != 0 || tot.Consumers != 0 || tot.Unacked != 0 {
			t.Errorf("vhost %s after a restart: %+v", v.Name, tot)
		}
		var vready int64
		for _, q := range v.Queues {
			if !q.Durable {
				t.Errorf("transient queue %s after a restart", q.Name)
			}
			if len(q.Consumers) != 0 {
				t.Errorf("queue %s has consumers after a restart", q.Name)
			}
			for _, m := range q.Ready {
				if q.Type == "classic" && (m.Msg.Props == nil || m.Msg.Props.DeliveryMode != 2) {
					t.Errorf("transient message %d in durable classic queue %s after a restart", m.Msg.ID, q.Name)
				}
			}
			vready += int64(q.ReadyCount)
		}
		if tot.Ready != vready {
			t.Errorf("vhost %s counts %d ready, its queues hold %d", v.Name, tot.Ready, vready)
		}
		ready += vready
	}
	if r, _ := b.ReadyTotals(); r != ready {
		t.Errorf("broker counts %d ready, its queues hold %d", r, ready)
	}
	for _, tm := range b.Timers() {
		if tm.Kind == "consumer-timeout" || tm.Kind == "dispatch" {
			t.Errorf("timer left after a restart: %+v", tm)
		}
	}
}

// TestRestartReportsInBatches: a durable queue's transient messages leave
// it at once, but their Discarded events come a batch per call, as a
// purge's do; the restart itself makes one batch.
func TestRestartReportsInBatches(t *testing.T) {
	r := script.New(engine.Config{Seed: 1, MaxBatch: 10})
	for _, line := range []string{"declare queue q durable", "publish q p persistent count=5", "publish q t count=100"} {
		if _, err := r.Exec(line); err != nil {
			t.Fatal(err)
		}
	}
	b := r.B
	b.Restart(b.Now() + 1000)
	evs := b.DrainEvents(nil)
	if n := countKind(evs, engine.EvDiscarded); n != 10 {
		t.Fatalf("the restart reported %d discards, want one batch of 10", n)
	}
	if ready, _ := b.ReadyTotals(); ready != 5 {
		t.Fatalf("%d ready after the restart, want the 5 persistent", ready)
	}
	total := 10
	for i := 0; i < 20 && total < 100; i++ {
		b.AdvanceTo(b.Now())
		evs = b.DrainEvents(evs[:0])
		n := countKind(evs, engine.EvDiscarded)
		if n > 10 {
			t.Fatalf("a call reported %d discards, more than a batch", n)
		}
		total += n
	}
	if total != 100 {
		t.Fatalf("%d discards reported, want 100", total)
	}
}

func countKind(evs []engine.Event, k engine.EventKind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// TestRestartNeverMovesTimeBack: a restart "at" an earlier time starts
// now.
func TestRestartNeverMovesTimeBack(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1})
	b.AdvanceTo(5000)
	b.Restart(1000)
	if b.Now() != 5000 {
		t.Fatalf("now %v after a restart at an earlier time", b.Now())
	}
	evs := b.DrainEvents(nil)
	if len(evs) != 1 || evs[0].Kind != engine.EvRestarted || evs[0].Time != 5000 {
		t.Fatalf("events %v", evs)
	}
}

// TestRestartFinishesWorkLeftForLater: work commands left for later calls
// (a purge's events, a closed channel's returns, a transaction's commit)
// is finished before the restart's rules apply, so no copy is lost or
// told twice.
func TestRestartFinishesWorkLeftForLater(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1, MaxBatch: 2})
	ledger := &copyLedger{live: map[copyID]bool{}}
	drain := func() {
		ledger.apply(b.DrainEvents(nil))
		if len(ledger.errs) > 0 {
			t.Fatal(strings.Join(ledger.errs, "\n"))
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
	must(err)
	ch1, err := b.OpenChannel(c, 1)
	must(err)
	ch2, err := b.OpenChannel(c, 2)
	must(err)
	for _, q := range []string{"purged", "returned", "committed"} {
		_, err := b.QueueDeclare(ch1, engine.QueueDeclare{Queue: q, Durable: true})
		must(err)
	}
	persistent := &engine.Properties{DeliveryMode: 2}
	for i := 0; i < 10; i++ {
		must(b.BasicPublish(ch1, engine.BasicPublish{RoutingKey: "purged", Props: persistent, Body: []byte("p")}))
		must(b.BasicPublish(ch1, engine.BasicPublish{RoutingKey: "returned", Props: persistent, Body: []byte("r")}))
	}
	b.Settle(b.Now())
	_, err = b.BasicConsume(ch2, engine.BasicConsume{Queue: "returned"})
	must(err)
	b.Settle(b.Now())
	drain()
	must(b.TxSelect(ch1))
	for i := 0; i < 10; i++ {
		must(b.BasicPublish(ch1, engine.BasicPublish{RoutingKey: "committed", Props: persistent, Body: []byte("c")}))
	}
	must(b.TxCommit(ch1))
	_, err = b.QueuePurge(ch1, "purged")
	must(err)
	b.CloseChannel(ch2)
	b.Restart(b.Now() + 1000)
	b.Settle(b.Now())
	drain()
	if d := checkCopies(b, ledger.live); d != "" {
		t.Fatal(d)
	}
	for _, q := range b.Snapshot().Vhosts[0].Queues {
		want := map[string]int{"purged": 0, "returned": 10, "committed": 10}[q.Name]
		if q.ReadyCount != want {
			t.Errorf("queue %s holds %d, want %d", q.Name, q.ReadyCount, want)
		}
	}
	checkRestarted(t, b)
}
