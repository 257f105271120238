package bridge_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"warren/wasm/playground/bridge"
)

// run executes lines and fails the test on a script error.
func run(t *testing.T, s *bridge.Session, lines ...string) []bridge.Result {
	t.Helper()
	var out []bridge.Result
	for _, l := range lines {
		r := s.Exec(l)
		if r.Error != "" {
			t.Fatalf("%s: %s", l, r.Error)
		}
		out = append(out, r)
	}
	return out
}

// asMap marshals v and reads it back as JavaScript would see it.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// path walks a decoded JSON value: string keys index objects, ints arrays,
// and "name=X" picks the array element whose name is X.
func path(t *testing.T, v any, steps ...any) any {
	t.Helper()
	for i, st := range steps {
		switch k := st.(type) {
		case int:
			arr, ok := v.([]any)
			if !ok || k >= len(arr) {
				t.Fatalf("at %v: %v is not an array with index %d", steps[:i], v, k)
			}
			v = arr[k]
		case string:
			if name, ok := strings.CutPrefix(k, "name="); ok {
				arr, _ := v.([]any)
				var found any
				for _, e := range arr {
					if m, _ := e.(map[string]any); m["name"] == name {
						found = e
					}
				}
				if found == nil {
					t.Fatalf("at %v: no element named %q in %v", steps[:i], name, v)
				}
				v = found
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %v is not an object", steps[:i], v)
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("at %v: no key %q in %v", steps[:i], k, m)
			}
		}
	}
	return v
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func kinds(evs []bridge.Event) string {
	var ks []string
	for _, e := range evs {
		ks = append(ks, e.Kind)
	}
	return strings.Join(ks, " ")
}

// ttlDLX declares q with a 1s TTL dead-lettering to dead, and publishes.
var ttlDLX = []string{
	"declare queue dead",
	`declare queue q ttl=1s dlx="" dlrk=dead`,
	"publish q hi",
}

func TestSnapshotJSONAfterTTLAndDLX(t *testing.T) {
	s := bridge.New()
	res := run(t, s, ttlDLX...)
	check(t, "publish events", kinds(res[2].Events), "published enqueued")
	check(t, "enqueued at", res[2].Events[1].At, int64(1000))

	adv := s.AdvanceBy(1500)
	check(t, "advanceBy line", adv.Line, "advance 1.5s")
	check(t, "advanceBy events", kinds(adv.Events), "expired dead-lettered enqueued")
	check(t, "expiry time", adv.Events[0].Time, int64(1000))
	check(t, "now", adv.Now, int64(1500))

	snap := asMap(t, s.Snapshot())
	check(t, "now", path(t, snap, "now"), 1500.0)
	vh := path(t, snap, "vhosts", "name=/")
	dead := path(t, vh, "queues", "name=dead")
	check(t, "dead readyCount", path(t, dead, "readyCount"), 1.0)
	msg := path(t, dead, "ready", 0)
	check(t, "body", path(t, msg, "body"), "hi")
	check(t, "id", path(t, msg, "id"), 2.0)
	check(t, "routingKey", path(t, msg, "routingKey"), "dead")
	check(t, "expiresAt", path(t, msg, "expiresAt"), nil)
	check(t, "x-death reason", path(t, msg, "headers", "x-death", 0, "reason"), "expired")
	check(t, "x-death queue", path(t, msg, "headers", "x-death", 0, "queue"), "q")
	check(t, "x-death count", path(t, msg, "headers", "x-death", 0, "count"), 1.0)
	check(t, "x-death time", path(t, msg, "headers", "x-death", 0, "time"), 1.0)
	check(t, "x-death routing-keys", path(t, msg, "headers", "x-death", 0, "routing-keys"), []any{"q"})
	check(t, "x-first-death-reason", path(t, msg, "headers", "x-first-death-reason"), "expired")

	q := path(t, vh, "queues", "name=q")
	check(t, "q ready", path(t, q, "ready"), []any{})
	check(t, "q type", path(t, q, "type"), "classic")
	check(t, "q args", path(t, q, "args"), map[string]any{"x-message-ttl": 1000.0, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dead"})
	check(t, "q effective", path(t, q, "effective"), map[string]any{
		"messageTtlMs": 1000.0, "expiresMs": nil, "maxLength": nil, "maxLengthBytes": nil, "overflow": "drop-head",
		"deadLetterExchange": "", "deadLetterRoutingKey": "dead", "deliveryLimit": nil, "maxPriority": nil, "policy": "", "operatorPolicy": ""})
	check(t, "default exchange", path(t, vh, "exchanges", "name=", "type"), "direct")
	check(t, "timers", path(t, snap, "timers"), []any{})
	check(t, "bindings", path(t, vh, "bindings"), []any{})
	check(t, "app channel", path(t, vh, "connections", "name=app", "channels", "name=app", "number"), 1.0)
}

func TestStepReportsTheExpiry(t *testing.T) {
	s := bridge.New()
	run(t, s, ttlDLX...)
	next := s.Next()
	if next == nil {
		t.Fatal("Next() = nil, want the TTL timer")
	}
	check(t, "next", *next, bridge.Timer{At: 1000, Kind: "message-ttl", Vhost: "/", Queue: "q", MsgID: 1})

	st := s.Step()
	check(t, "step error", st.Error, "")
	check(t, "step line", st.Line, "advance to 1s")
	check(t, "step now", st.Now, int64(1000))
	check(t, "fired", st.Fired, []bridge.Timer{*next})
	check(t, "step events", kinds(st.Events), "expired dead-lettered enqueued")
	dl := st.Events[1]
	if dl.Queue != "q" || dl.MsgID != 1 || dl.NewMsgID != 2 || dl.Reason != "expired" || dl.Time != 1000 ||
		dl.Exchange == nil || *dl.Exchange != "" || dl.RoutingKey == nil || *dl.RoutingKey != "dead" {
		t.Errorf("dead-lettered event = %+v", dl)
	}
	check(t, "event JSON", asMap(t, st.Events[0]), map[string]any{"kind": "expired", "time": 1000.0, "vhost": "/", "queue": "q", "msgId": 1.0, "trace": "expired q=q msg=1"})

	check(t, "next after", s.Next(), (*bridge.Timer)(nil))
	idle := s.Step()
	check(t, "idle step", idle.Output, "nothing scheduled\n")
	check(t, "idle step logged", idle.Logged, false)
	check(t, "log", s.Log(), append(append([]string{}, ttlDLX...), "advance to 1s"))
}

func TestConsumerTimeoutTimerNamesTheChannel(t *testing.T) {
	s := bridge.New()
	run(t, s, "declare queue q", "publish q a", "@c1.2 consume q tag=me")
	next := s.Next()
	if next == nil {
		t.Fatal("no timer")
	}
	check(t, "next", *next, bridge.Timer{At: 30 * 60 * 1000, Kind: "consumer-timeout", Vhost: "/", Channel: "c1.2"})
	snap := asMap(t, s.Snapshot())
	ch := path(t, snap, "vhosts", 0, "connections", "name=c1", "channels", "name=c1.2")
	check(t, "unacked count", path(t, ch, "unackedCount"), 1.0)
	check(t, "unacked tag", path(t, ch, "unacked", 0, "deliveryTag"), 1.0)
	check(t, "unacked consumer", path(t, ch, "unacked", 0, "consumerTag"), "me")
	check(t, "unacked body", path(t, ch, "unacked", 0, "body"), "a")
	check(t, "consumer", path(t, snap, "vhosts", 0, "queues", "name=q", "consumers", 0), map[string]any{
		"tag": "me", "channel": "c1.2", "noAck": false, "exclusive": false, "priority": 0.0, "prefetch": 0.0,
		"unacked": 1.0, "active": true, "hasCredit": true})
	st := s.Step()
	check(t, "timeout events", kinds(st.Events), "consumer.cancelled requeued channel.closed")
	check(t, "closed channel", st.Events[2].Channel, "c1.2")
	check(t, "closed code", st.Events[2].Code, 406)
	check(t, "time", st.Events[2].Time, int64(30*60*1000))
}

// TestHeadOfLineCaveat: a classic queue expires messages only at its head,
// so an expired message behind a live one waits, and the snapshot says so.
func TestHeadOfLineCaveat(t *testing.T) {
	s := bridge.New()
	run(t, s, "declare queue q", "publish q head expiration=10s", "publish q tail expiration=1s")
	s.AdvanceTo(2000)
	q := path(t, asMap(t, s.Snapshot()), "vhosts", 0, "queues", "name=q")
	check(t, "queue expired", path(t, q, "expired"), 1.0)
	check(t, "head expired", path(t, q, "ready", 0, "expired"), false)
	check(t, "head expiresAt", path(t, q, "ready", 0, "expiresAt"), 10000.0)
	check(t, "tail body", path(t, q, "ready", 1, "body"), "tail")
	check(t, "tail expired", path(t, q, "ready", 1, "expired"), true)
	check(t, "tail expiresAt", path(t, q, "ready", 1, "expiresAt"), 1000.0)
	check(t, "tail expiration", path(t, q, "ready", 1, "properties", "expiration"), "1000")
	st := s.Step()
	check(t, "both go when the head does", kinds(st.Events), "expired expired")
	check(t, "at", st.Now, int64(10000))
}

// history is a session that touches most of the engine: server-named
// queues (seeded names), policies, topic routing, a delayed exchange,
// consumers, acks and rejects, a quorum queue, an AMQP error, a script
// error, and every kind of time move.
func history(t *testing.T, s *bridge.Session) []bridge.Result {
	var rs []bridge.Result
	do := func(r bridge.Result) { rs = append(rs, r) }
	for _, l := range []string{
		"declare queue dead",
		"declare queue",
		`set_policy ttl "^work" '{"message-ttl":3000,"dead-letter-exchange":"","dead-letter-routing-key":"dead"}' --apply-to queues`,
		"declare exchange logs topic",
		"declare queue work.a max-length=2 overflow=reject-publish-dlx",
		"bind work.a logs app.*",
		"declare exchange later x-delayed-message delayed-type=direct",
		"bind dead later k",
		"publish logs app.info one header.trace=[1,true,x]",
		"publish logs app.warn two priority=3",
		"publish logs app.error three",
		"publish later k soon delay=2s",
		"declare queue qq type=quorum delivery-limit=1",
		"publish qq again",
		"@c1 consume qq tag=c",
		"@c1 nack last",
		"publish nowhere-at-all x",
		"delete queue missing-queue if-empty",
		"get no-such-queue",
		"expect queue work.a ready=99",
		"this is not a command",
	} {
		do(s.Exec(l))
	}
	do(s.AdvanceBy(1000))
	do(s.Step())
	do(s.Exec("@c2 consume work.a prefetch=1"))
	do(s.Exec("@c2 ack last"))
	do(s.AdvanceTo(2500))
	do(s.Step())
	do(s.Exec("run"))
	do(s.Exec("publish dead last-one"))
	return rs
}

func eventsJSON(t *testing.T, rs []bridge.Result) string {
	var evs []bridge.Event
	for _, r := range rs {
		evs = append(evs, r.Events...)
	}
	b, err := json.Marshal(evs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func snapshotJSON(t *testing.T, s *bridge.Session) string {
	b, err := json.Marshal(s.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplayReproducesTheSession(t *testing.T) {
	live := bridge.New()
	rs := history(t, live)
	wantEvents, wantSnap, log := eventsJSON(t, rs), snapshotJSON(t, live), live.Log()
	if !strings.Contains(wantEvents, `"dead-lettered"`) || !strings.Contains(wantEvents, `"amq.gen-`) || !strings.Contains(wantEvents, `"code":404`) {
		t.Fatalf("the history should dead-letter, name a queue and fail with 404; events: %s", wantEvents)
	}
	if len(log) != len(rs)-1 {
		t.Errorf("log has %d lines for %d results, want all but the unparsable one", len(log), len(rs))
	}

	for name, s := range map[string]*bridge.Session{"fresh session": bridge.New(), "same session": live} {
		rep := s.Replay(log, -1)
		if rep.Error != "" {
			t.Fatal(rep.Error)
		}
		check(t, name+": log", s.Log(), log)
		check(t, name+": now", rep.Now, rs[len(rs)-1].Now)
		if got := eventsJSON(t, rep.Results); got != wantEvents {
			t.Errorf("%s: replayed events differ\n got %s\nwant %s", name, got, wantEvents)
		}
		if got := snapshotJSON(t, s); got != wantSnap {
			t.Errorf("%s: replayed snapshot differs\n got %s\nwant %s", name, got, wantSnap)
		}
	}
}

// TestReplayUpTo: replaying the first k lines of the log gives the state
// the live session had after line k — time travel.
func TestReplayUpTo(t *testing.T) {
	live := bridge.New()
	history(t, live)
	log := live.Log()
	// The state after each line, from a second session given the log one
	// line at a time.
	step := bridge.New()
	states := []string{snapshotJSON(t, step)}
	for _, l := range log {
		step.Exec(l)
		states = append(states, snapshotJSON(t, step))
	}
	check(t, "stepwise final state", states[len(states)-1], snapshotJSON(t, live))
	travel := bridge.New()
	for k := len(log); k >= 0; k-- {
		rep := travel.Replay(log, k)
		check(t, fmt.Sprintf("results after replay to %d", k), len(rep.Results), k)
		if got := snapshotJSON(t, travel); got != states[k] {
			t.Fatalf("replay to line %d: state differs\n got %s\nwant %s", k, got, states[k])
		}
		check(t, fmt.Sprintf("log after replay to %d", k), travel.Log(), log[:k])
	}
}

func TestExecRefusals(t *testing.T) {
	s := bridge.New()
	for _, c := range []struct {
		line, err string
		logged    bool
	}{
		{"", "", false},
		{"   # a comment", "", false},
		{"frobnicate q", `unknown command "frobnicate"`, false},
		{"declare queue q\npublish q x", "one line at a time", false},
		{strings.Repeat("x", bridge.MaxLineBytes+1), "line too long", false},
		{"expect queue nope ready=1", "nope", true},
		{"advance to 5s", "", true},
		{"advance to 1s", "cannot go back in time", true},
	} {
		r := s.Exec(c.line)
		if (c.err == "") != (r.Error == "") || !strings.Contains(r.Error, c.err) {
			t.Errorf("Exec(%.40q).Error = %q, want %q", c.line, r.Error, c.err)
		}
		check(t, fmt.Sprintf("Exec(%.40q).Logged", c.line), r.Logged, c.logged)
	}
	check(t, "log", s.Log(), []string{"expect queue nope ready=1", "advance to 5s", "advance to 1s"})

	// The bridge's own time moves are refused before they run.
	for _, r := range []bridge.Result{s.AdvanceTo(4999), s.AdvanceBy(-1), s.AdvanceBy(bridge.MaxTimeMs), s.AdvanceTo(bridge.MaxTimeMs + 1)} {
		if r.Error == "" || r.Logged || r.Now != 5000 {
			t.Errorf("refused time move: %+v", r)
		}
	}
	check(t, "AdvanceTo(5000) line", s.AdvanceTo(5000).Line, "advance to 5s")
	check(t, "AdvanceBy(0) line", s.AdvanceBy(0).Line, "advance 0s")
	check(t, "AdvanceBy(61001) now", s.AdvanceBy(61_001).Now, int64(66_001))

	// An AMQP error is an event and an output line, not a script error.
	r := s.Exec("@c1 publish no-such-exchange k x")
	check(t, "AMQP error", r.Error, "")
	check(t, "AMQP error events", kinds(r.Events), "channel.closed")
	check(t, "AMQP error code", r.Events[0].Code, 404)
	if !strings.Contains(r.Output, "error: 404 NOT_FOUND") {
		t.Errorf("output %q lacks the error line", r.Output)
	}

	// show output is not read as events.
	check(t, "show timers events", s.Exec("show timers").Events, []bridge.Event{})

	s.Reset()
	check(t, "log after reset", s.Log(), []string{})
	check(t, "now after reset", s.Now(), int64(0))
}

func TestLimits(t *testing.T) {
	s := bridge.New()
	run(t, s, "declare queue q")
	r := s.Exec("publish q x count=6000")
	check(t, "events", len(r.Events), bridge.MaxEventsPerResult)
	check(t, "eventsTruncated", r.EventsTruncated, true)
	q := path(t, asMap(t, s.Snapshot()), "vhosts", 0, "queues", "name=q")
	check(t, "readyCount", path(t, q, "readyCount"), 6000.0)
	check(t, "ready shown", len(path(t, q, "ready").([]any)), bridge.MaxMessagesShown)

	big := strings.Repeat("é", bridge.MaxBodyBytes) // 2 bytes each
	run(t, s, "purge q", `publish q "`+big+`"`)
	m := path(t, asMap(t, s.Snapshot()), "vhosts", 0, "queues", "name=q", "ready", 0)
	check(t, "bodyBytes", path(t, m, "bodyBytes"), float64(2*bridge.MaxBodyBytes))
	check(t, "bodyTruncated", path(t, m, "bodyTruncated"), true)
	check(t, "body cut between characters", path(t, m, "body"), big[:bridge.MaxBodyBytes])

	rep := s.Replay(make([]string, bridge.MaxLogLines+1), -1)
	if rep.Error == "" || len(rep.Results) != 0 || len(s.Log()) != 4 {
		t.Errorf("an over-long replay ran (error %q) or changed the log (now %d lines)", rep.Error, len(s.Log()))
	}
}

// TestTimersAreBounded: a delayed exchange holding more messages than
// MaxTimersShown arms a timer for each; the snapshot lists the first
// MaxTimersShown and counts them all, and so does the Step that fires them.
func TestTimersAreBounded(t *testing.T) {
	const n = bridge.MaxTimersShown + 50
	s := bridge.New()
	run(t, s,
		"declare exchange later x-delayed-message delayed-type=direct",
		"declare queue q",
		"bind q later k",
		fmt.Sprintf("publish later k m delay=2s count=%d", n),
	)
	snap := s.Snapshot()
	check(t, "timerCount", snap.TimerCount, n)
	check(t, "timers shown", len(snap.Timers), bridge.MaxTimersShown)
	check(t, "first timer", snap.Timers[0], bridge.Timer{At: 2000, Kind: "delayed-release", Vhost: "/", Exchange: "later", MsgID: 1})
	st := s.Step()
	check(t, "step error", st.Error, "")
	check(t, "firedCount", st.FiredCount, n)
	check(t, "fired shown", len(st.Fired), bridge.MaxTimersShown)
	check(t, "timerCount after", s.Snapshot().TimerCount, 0)
	check(t, "timerCount JSON", path(t, asMap(t, s.Snapshot()), "timerCount"), 0.0)
}
