package engine_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"warren/engine"
)

var saveSeeds = flag.Int("save.seeds", 0, "seeds for TestSaveLoadProperty (0: the default for the mode)")

// TestSaveLoadProperty is issue 10's property: a broker saved at a random
// point and loaded again produces exactly the events the original does for
// the same later commands. It drives the random command generator of
// TestProperties (with a small MaxBatch, so that batched work is often in
// flight) on two brokers, and at random steps replaces the twin with
// Load(Save(twin)); the first broker is never saved, so that a Save that
// changed anything would show too. Both get every command, and their
// drained events must match field for field (dumpEvent), messages and
// their headers included; so must what the management API and the
// playground read (dumpReads), listings in their order. At every save,
// Save(Load(Save(b))) must equal Save(b); at the end the two brokers must
// save the same bytes.
//
// More seeds: go test -run TestSaveLoadProperty -save.seeds=500 ./engine/
func TestSaveLoadProperty(t *testing.T) {
	seeds, steps := 40, 1500
	if testing.Short() {
		seeds, steps = 8, 600
	}
	if runtime.GOOS == "js" {
		seeds, steps = 6, 600
	}
	if *saveSeeds > 0 {
		seeds = *saveSeeds
	}
	var caught saveTally
	t.Run("seeds", func(t *testing.T) {
		for seed := 1; seed <= seeds; seed++ {
			t.Run("seed="+strconv.Itoa(seed), func(t *testing.T) {
				t.Parallel()
				runSaveLoad(t, uint64(seed), steps, &caught)
			})
		}
	})
	// Saves that never catch work in flight would pass vacuously.
	t.Logf("work in flight at the saves: %v", caught.n)
	if !testing.Short() && runtime.GOOS != "js" && !t.Failed() {
		for _, k := range []string{"end", "ack", "reject", "return", "commit", "policy-walk", "vhost-walk",
			"message-ttl", "queue-expires", "delayed-release", "consumer-timeout", "dispatch", "bulk-end"} {
			if caught.count(k) == 0 {
				t.Errorf("no save caught %s pending in %d seeds × %d steps", k, seeds, steps)
			}
		}
	}
}

// saveTally counts, across the parallel seeds, what the saves caught in
// flight (engine.PendingWork).
type saveTally struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *saveTally) add(b *engine.Broker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	for _, k := range engine.PendingWork(b) {
		c.n[k]++
	}
}

func (c *saveTally) count(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[k]
}

func runSaveLoad(t *testing.T, seed uint64, steps int, caught *saveTally) {
	r := rand.New(rand.NewPCG(seed, 0x5a7e))
	timeouts := []int64{0, -1, 5000}
	// Mostly tiny batches, so that batched work is in flight at the
	// saves; sometimes the default.
	batches := []int{1, 2, 3, 4, 0}
	cfg := engine.Config{Seed: seed, ConsumerTimeoutMs: timeouts[r.IntN(len(timeouts))], MaxBatch: batches[r.IntN(len(batches))], EpochMs: 1_700_000_000_000}
	// Some seeds save at almost every step, to catch state that lasts
	// only a step or two; the others now and then.
	every := 40
	if seed%4 == 0 {
		every = 2
	}
	w := &world{r: r, b: engine.New(cfg), twin: engine.New(cfg), m: newModel()}
	var events, twinEvents []engine.Event
	step, saves := 0, 0
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("seed %d step %d: panic: %v\nrecent commands:\n%s", seed, step, p, w.recent())
		}
	}()
	w.b.DrainEvents(nil)
	w.twin.DrainEvents(nil)
	for step = 1; step <= steps; step++ {
		saved := step > len(prelude) && r.IntN(every) == 0
		if saved {
			saves++
			caught.add(w.twin)
			data := w.twin.Save()
			loaded, err := engine.Load(data)
			if err != nil {
				t.Fatalf("seed %d step %d: Load: %v", seed, step, err)
			}
			if again := loaded.Save(); !bytes.Equal(again, data) {
				t.Fatalf("seed %d step %d: Save(Load(Save(b))) differs from Save(b) (%d vs %d bytes, first difference at %d)\nrecent commands:\n%s",
					seed, step, len(again), len(data), firstDiff(again, data), w.recent())
			}
			w.twin = loaded
			w.log("save and load the twin", nil)
		}
		w.pre = w.b.Snapshot()
		var desc string
		var err error
		if step > len(prelude) && r.IntN(25) == 0 {
			desc, err = w.saveExtraCommand()
		} else {
			desc, err = w.randomCommand(step)
		}
		w.log(desc, err)
		events = w.b.DrainEvents(events[:0])
		twinEvents = w.twin.DrainEvents(twinEvents[:0])
		if w.diverged != "" {
			t.Fatalf("seed %d step %d (%s): the loaded broker %s\nrecent commands:\n%s", seed, step, desc, w.diverged, w.recent())
		}
		if d := diffDumps(events, twinEvents); d != "" {
			t.Fatalf("seed %d step %d (%s): the loaded broker's events differ: %s\nrecent commands:\n%s", seed, step, desc, d, w.recent())
		}
		// The views too, right after a save and now and then.
		if step%10 != 0 && !saved {
			continue
		}
		if a, b := dumpReads(w.b), dumpReads(w.twin); a != b {
			t.Fatalf("seed %d step %d (%s): the loaded broker's views differ:\n%s\nvs\n%s\nrecent commands:\n%s", seed, step, desc, a, b, w.recent())
		}
	}
	if a, b := w.b.Save(), w.twin.Save(); !bytes.Equal(a, b) {
		t.Fatalf("seed %d: after %d steps (%d saves) the brokers save different bytes (%d vs %d, first difference at %d)", seed, steps, saves, len(a), len(b), firstDiff(a, b))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func diffDumps(a, b []engine.Event) string {
	for i := range min(len(a), len(b)) {
		if da, db := dumpEvent(a[i]), dumpEvent(b[i]); da != db {
			return fmt.Sprintf("event %d:\n  %s\nvs\n  %s", i, da, db)
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d events vs %d", len(a), len(b))
	}
	return ""
}

// dumpEvent renders every field of e, and of its message and Via, so that
// two streams compare on everything a driver could read.
func dumpEvent(e engine.Event) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s t=%d vh=%q ch=%s x=%q q=%q rk=%q msg=%d new=%d ctag=%q tag=%d mult=%t redel=%t noack=%t hdc=%t dc=%d reason=%q code=%d method=%v text=%q count=%d at=%d name=%q"+
		" overflow=%q cause=%q remaining=%d deliveries=%d detail=%+v",
		e.Kind, e.Time, e.Vhost, e.Channel, e.Exchange, e.Queue, e.RoutingKey, e.MsgID, e.NewMsgID, e.ConsumerTag, e.DeliveryTag,
		e.Multiple, e.Redelivered, e.NoAck, e.HasDeliveryCount, e.DeliveryCount, e.Reason, e.Code, e.Method, e.Text, e.Operations, e.At, e.Name,
		e.Overflow, e.Cause, e.Remaining, e.Deliveries, e.Detail)
	if v := e.Via; v != nil {
		fmt.Fprintf(&sb, " via={%q %q %q %s %t}", v.Exchange, v.Type, v.Key, engine.FormatTyped(v.Args), v.Alternate)
	}
	if m := e.Msg; m != nil {
		fmt.Fprintf(&sb, " m={%d %q %q body=%q keys=%q headers=%s", m.ID, m.Exchange, m.RoutingKey, m.Body, m.RoutingKeys(), engine.FormatTyped(m.Headers()))
		if p := m.Props; p != nil {
			q := *p
			q.Headers = nil
			fmt.Fprintf(&sb, " props=%+v", q)
		}
		sb.WriteString("}")
	}
	return sb.String()
}

// saveExtraCommand runs one of the commands TestProperties's generator
// does not, whose state a snapshot must keep too: connections with
// permissions (topic permissions, an impersonator), permission changes,
// paused connections, forced closes and driver-found channel exceptions.
func (w *world) saveExtraCommand() (string, error) {
	chans := w.channels()
	if w.chance(0.03) {
		// A node restart (restart.go), now or after some downtime.
		at := w.b.Now() + engine.Time(w.pickMs(0, 1000, 60000))
		w.both(func(b *engine.Broker) error { b.Restart(at); return nil })
		return fmt.Sprintf("restart at %d", at), nil
	}
	if w.chance(0.15) {
		return w.saveUserCommand()
	}
	switch w.r.IntN(8) {
	case 5:
		if w.chance(0.5) {
			return w.saveReplyToCommand()
		}
	case 6, 7:
		// Settle everything a channel holds: with more deliveries than
		// a batch, the rest is work in flight (bulkack.go,
		// bulkreturn.go).
		for _, c := range chans {
			if len(c.Unacked) == 0 {
				continue
			}
			id, requeue := c.ID, w.chance(0.3)
			if w.chance(0.3) {
				return "ch " + id.String() + ": basic.ack 0 multiple", w.both(func(b *engine.Broker) error {
					return b.Apply(engine.CmdBasicAck{Channel: id, DeliveryTag: 0, Multiple: true}).Err
				})
			}
			return fmt.Sprintf("ch %s: basic.nack 0 multiple requeue=%t", id, requeue), w.both(func(b *engine.Broker) error {
				return b.Apply(engine.CmdBasicNack{Channel: id, DeliveryTag: 0, Multiple: true, Requeue: requeue}).Err
			})
		}
		return "nothing to settle", nil
	case 0:
		perms := &engine.Permissions{Configure: w.pick(".*", "^q", ""), Write: w.pick(".*", "^x\\.", "^amq\\.default$"), Read: w.pick(".*", "^q[0-2]$"),
			Topics: []engine.TopicPermission{{Exchange: "x.topic", Write: w.pick("^a", "{username}", ".*"), Read: "^a"}}, Impersonator: w.chance(0.3)}
		vhost := w.pick("/", "/", "v2")
		err := w.both(func(b *engine.Broker) error {
			_, err := b.OpenConnection(engine.ConnectionOpen{Vhost: vhost, User: "limited", Name: "perm", ClientProperties: engine.Table{"product": "test"}, Perms: perms})
			return err
		})
		return fmt.Sprintf("connection.open %s as limited %+v", vhost, *perms), err
	case 1:
		perms := &engine.Permissions{Configure: ".*", Write: w.pick(".*", "^x\\.topic$"), Read: ".*"}
		vhost := w.pick("/", "v2")
		w.both(func(b *engine.Broker) error { b.SetPermissions("limited", vhost, perms); return nil })
		return fmt.Sprintf("set permissions limited in %s %+v", vhost, *perms), nil
	case 2:
		if len(chans) == 0 {
			return "nothing to pause", nil
		}
		id, paused := chans[w.r.IntN(len(chans))].ID.Conn, w.chance(0.5)
		w.both(func(b *engine.Broker) error { b.Apply(engine.CmdPauseConnection{Conn: id, Paused: paused}); return nil })
		return fmt.Sprintf("pause connection %d %t", id, paused), nil
	case 3:
		if len(chans) == 0 {
			return "nothing to force-close", nil
		}
		id := chans[w.r.IntN(len(chans))].ID.Conn
		w.both(func(b *engine.Broker) error { b.ForceCloseConnection(id, "test"); return nil })
		return fmt.Sprintf("force-close connection %d", id), nil
	case 4:
		w.both(func(b *engine.Broker) error {
			b.ForceCloseUserConnections("limited", "user 'limited' is deleted")
			return nil
		})
		return "force-close limited's connections", nil
	}
	if len(chans) == 0 {
		return "no channel for an exception", nil
	}
	id := chans[w.r.IntN(len(chans))].ID
	e := &engine.Error{Code: 406, Text: "PRECONDITION_FAILED - message size 200 is larger than configured max size 100", Method: engine.MethodBasicPublish}
	w.both(func(b *engine.Broker) error { b.ChannelException(id, e); return nil })
	return "channel exception on " + id.String(), nil
}

// dumpReads renders what a management API or a playground reads of b: the
// snapshot, the totals, and the listings in the order they keep (which
// Load must keep too).
func dumpReads(b *engine.Broker) string {
	var sb strings.Builder
	snap, err := json.Marshal(b.Snapshot())
	if err != nil {
		panic(err)
	}
	sb.Write(snap)
	fmt.Fprintf(&sb, "\ntotals %+v timers %+v conns %v chans %v", b.MessageTotals(), b.Timers(), b.ConnectionRefs(), b.ChannelRefs())
	fmt.Fprintf(&sb, "\nusers %+v perms %+v topics %+v", b.Users(), b.UserPermissions(), b.TopicPermissions())
	for _, v := range b.Vhosts() {
		tot, _ := b.VhostTotals(v)
		fmt.Fprintf(&sb, "\nvhost %q %+v queues %v exchanges %v bindings %+v", v, tot, b.QueueNames(v), b.ExchangeNames(v), b.Bindings(v))
		for _, u := range []string{"guest", "limited", "admin"} {
			c, ch := b.UserTotals(v, u)
			fmt.Fprintf(&sb, " %s=%d/%d", u, c, ch)
		}
	}
	return sb.String()
}

// pickMs picks one of the durations, in milliseconds.
func (w *world) pickMs(options ...int64) int64 { return options[w.r.IntN(len(options))] }

// saveUserCommand changes the users and their permissions (users.go),
// which a snapshot keeps too.
func (w *world) saveUserCommand() (string, error) {
	user := w.pick("limited", "admin")
	vhost := w.pick("/", "v2")
	switch w.r.IntN(5) {
	case 0:
		u := engine.User{Name: user, PasswordHash: w.pick("", "aGFzaA=="), HashingAlgorithm: "rabbit_password_hashing_sha256", Tags: []string{w.pick("management", "impersonator")}}
		return fmt.Sprintf("put user %+v", u), w.both(func(b *engine.Broker) error { return b.PutUser(u) })
	case 1:
		return "delete user " + user, w.both(func(b *engine.Broker) error { return b.DeleteUser(user) })
	case 2:
		p := engine.UserPermission{User: user, Vhost: vhost, Configure: ".*", Write: w.pick(".*", "^x"), Read: ".*"}
		return fmt.Sprintf("put permission %+v", p), w.both(func(b *engine.Broker) error { return b.PutUserPermission(p) })
	case 3:
		tp := engine.UserTopicPermission{User: user, Vhost: vhost, Exchange: w.pick("x.topic", "amq.topic"), Write: "^a", Read: ".*"}
		return fmt.Sprintf("put topic permission %+v", tp), w.both(func(b *engine.Broker) error { return b.PutTopicPermission(tp) })
	}
	return "clear permission " + user + " " + vhost, w.both(func(b *engine.Broker) error { return b.ClearUserPermission(user, vhost) })
}

// saveReplyToCommand is a step of direct reply-to (replyto.go), whose
// consumers a snapshot keeps: a reply consumer, a request asking for a
// reply, a reply to an address a queued request carries (or to a made-up
// one), or the consumer's cancel.
func (w *world) saveReplyToCommand() (string, error) {
	chans := w.channels()
	if len(chans) == 0 {
		return "no channel for direct reply-to", nil
	}
	id := chans[w.r.IntN(len(chans))].ID
	switch w.r.IntN(4) {
	case 0:
		noAck := w.chance(0.9)
		return fmt.Sprintf("ch %s: consume amq.rabbitmq.reply-to no-ack=%t", id, noAck), w.both(func(b *engine.Broker) error {
			_, err := b.BasicConsume(id, engine.BasicConsume{Queue: engine.ReplyToQueue, ConsumerTag: "reply", NoAck: noAck})
			return err
		})
	case 1:
		q := w.pick(propQueues...)
		return "ch " + id.String() + ": publish to " + q + " reply_to amq.rabbitmq.reply-to", w.both(func(b *engine.Broker) error {
			return b.BasicPublish(id, engine.BasicPublish{RoutingKey: q, Props: &engine.Properties{ReplyTo: engine.ReplyToQueue, CorrelationID: "c"}, Body: []byte("req")})
		})
	case 2:
		to := "amq.rabbitmq.reply-to.1.1.1"
		for _, v := range w.pre.Vhosts {
			for _, q := range v.Queues {
				for _, m := range q.Ready {
					if m.Msg.Props != nil && strings.HasPrefix(m.Msg.Props.ReplyTo, "amq.rabbitmq.reply-to.") {
						to = m.Msg.Props.ReplyTo
					}
				}
			}
		}
		mandatory := w.chance(0.5)
		return fmt.Sprintf("ch %s: reply to %s mandatory=%t", id, to, mandatory), w.both(func(b *engine.Broker) error {
			return b.BasicPublish(id, engine.BasicPublish{RoutingKey: to, Mandatory: mandatory, Body: []byte("reply")})
		})
	}
	return "ch " + id.String() + ": cancel reply", w.both(func(b *engine.Broker) error { return b.BasicCancel(id, "reply") })
}
