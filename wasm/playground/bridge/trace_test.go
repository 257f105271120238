package bridge

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestEventsCarryScriptNamesAndFields checks the JSON events of a line: the
// channel is named as the script names it, dead-lettering names the new
// message, and implicit channel opening is left out as the trace does.
func TestEventsCarryScriptNamesAndFields(t *testing.T) {
	s := New()
	for _, l := range []string{"declare queue dead", "declare queue q ttl=1s dlx=\"\" dlrk=dead", "publish q hi"} {
		if r := s.Exec(l); r.Error != "" {
			t.Fatalf("%s: %s", l, r.Error)
		}
	}
	r := s.Exec("advance 1s")
	var kinds []string
	for _, e := range r.Events {
		kinds = append(kinds, e.Kind)
		if e.Kind == "dead-lettered" && (e.MsgID != 1 || e.NewMsgID != 2 || e.Reason != "expired" || e.Exchange == nil || *e.Exchange != "") {
			t.Fatalf("dead-lettered event %+v", e)
		}
	}
	if len(kinds) != 3 || kinds[0] != "expired" || kinds[1] != "dead-lettered" || kinds[2] != "enqueued" {
		t.Fatalf("kinds %v", kinds)
	}
	r = s.Exec("publish q again")
	for _, e := range r.Events {
		if e.Kind == "channel.opened" || e.Kind == "connection.opened" {
			t.Fatalf("implicit %s shown", e.Kind)
		}
		if e.Kind == "published" && e.Channel != "app" {
			t.Fatalf("published on channel %q, want app", e.Channel)
		}
	}
}

// TestEventBudget: a result stops taking events at its budget and says so.
func TestEventBudget(t *testing.T) {
	s := New()
	s.Exec("declare queue q")
	b := &budget{events: 1, outputBytes: MaxOutputBytes}
	s.Exec("publish q a")
	evs, truncated := eventsOf(s.r, b)
	if len(evs) != 1 || !truncated || b.events != 0 {
		t.Fatalf("events %d truncated %v left %d", len(evs), truncated, b.events)
	}
}

// eventJSON is an event as JavaScript sees it.
func eventJSON(t *testing.T, e Event) map[string]any {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// find returns the JSON of the first event of kind in r.
func find(t *testing.T, r Result, kind string) map[string]any {
	t.Helper()
	for _, e := range r.Events {
		if e.Kind == kind {
			return eventJSON(t, e)
		}
	}
	t.Fatalf("%s: no %s event in %+v", r.Line, kind, r.Events)
	return nil
}

// TestEventsSayWhatTheirFieldsMean: an enqueued event carries the binding
// that routed the copy (via) and its expiry as expiresAt, an unroutable
// message is a dropped event naming the exchange and the cause, and the
// multi-purpose fields also come under the names the trace gives them.
func TestEventsSayWhatTheirFieldsMean(t *testing.T) {
	s := New()
	exec := func(line string) Result {
		t.Helper()
		r := s.Exec(line)
		if r.Error != "" {
			t.Fatalf("%s: %s", line, r.Error)
		}
		return r
	}
	if x := find(t, exec("declare exchange animals topic"), "exchange.declared"); x["type"] != "topic" {
		t.Errorf("exchange.declared %v, want type topic", x)
	}
	exec("declare queue Q1 ttl=10s")
	if b := find(t, exec("bind Q1 animals *.orange.*"), "bound"); b["destination"] != "Q1" || b["destinationType"] != "queue" {
		t.Errorf("bound %v, want destination Q1, a queue", b)
	}
	e := find(t, exec("publish animals quick.orange.rabbit m"), "enqueued")
	want := map[string]any{"exchange": "animals", "type": "topic", "key": "*.orange.*", "text": "animals:*.orange.*"}
	if !reflect.DeepEqual(e["via"], want) || e["expiresAt"] != float64(10000) {
		t.Errorf("enqueued %v, want via %v and expiresAt 10000", e, want)
	}
	d := find(t, exec("publish animals quick.brown.fox m"), "dropped")
	if d["exchange"] != "animals" || d["cause"] != "routed to no queue" {
		t.Errorf("dropped %v, want exchange animals, cause routed to no queue", d)
	}
	d = find(t, exec("publish nowhere m"), "dropped")
	if x, ok := d["exchange"]; !ok || x != "" {
		t.Errorf("dropped %v, want exchange \"\" (the default exchange)", d)
	}
	exec("declare exchange h headers")
	exec("declare exchange ae fanout")
	exec("declare exchange x direct ae=ae")
	exec("bind Q1 ae")
	e = find(t, exec("publish x k m"), "enqueued")
	if v, _ := e["via"].(map[string]any); v["alternate"] != true || v["text"] != "ae" {
		t.Errorf("enqueued %v, want via ae, alternate", e)
	}
	exec("declare queue hq")
	b := find(t, exec("bind hq h \"\" x-match=any a=1"), "bound")
	if b["argsText"] != "{a:1,x-match:any}" {
		t.Errorf("bound %v, want argsText {a:1,x-match:any}", b)
	}
	e = find(t, exec("publish h \"\" m header.a=1"), "enqueued")
	if v, _ := e["via"].(map[string]any); !reflect.DeepEqual(v["args"], map[string]any{"a": float64(1), "x-match": "any"}) {
		t.Errorf("enqueued %v, want the headers binding's args", e)
	}
	snap := s.Snapshot()
	for _, v := range snap.Vhosts {
		for _, q := range v.Queues {
			if q.Name == "Q1" && (len(q.Ready) != 2 || q.Ready[0].Via == nil || q.Ready[0].Via.Text != "animals:*.orange.*" || !q.Ready[1].Via.Alternate) {
				t.Errorf("queue Q1 ready %+v, want each copy's via", q.Ready)
			}
		}
	}
}

// TestAMQPErrorResult: a line that raised an AMQP exception says so in
// amqpError, with the reply text exactly as RabbitMQ sends it and what it
// closed; a line without one has none.
func TestAMQPErrorResult(t *testing.T) {
	s := New()
	r := s.Exec("publish nosuch k body")
	if r.AMQPError == nil || *r.AMQPError != (AMQPError{Code: 404, Text: "NOT_FOUND - no exchange 'nosuch' in vhost '/'", Closed: "channel"}) {
		t.Errorf("amqpError %+v", r.AMQPError)
	}
	r = s.Exec(`set_policy P ".*" '{"message-ttl":-1}'`)
	if r.AMQPError == nil || *r.AMQPError != (AMQPError{Code: 406, Text: "Validation failed\n\n-1 is not a valid message TTL"}) {
		t.Errorf("amqpError %+v", r.AMQPError)
	}
	if strings.Contains(r.Output, `\n`) {
		t.Errorf("output %q shows a literal \\n", r.Output)
	}
	r = s.Exec("declare exchange e bogus")
	if r.AMQPError == nil || r.AMQPError.Closed != "connection" {
		t.Errorf("amqpError %+v, want the connection closed", r.AMQPError)
	}
	if r = s.Exec("declare queue q"); r.AMQPError != nil {
		t.Errorf("amqpError %+v after a line that succeeded", r.AMQPError)
	}
}

// TestClosedConnectionKeepsItsName: the connection an error closed is
// named as the trace names it (ch=app), not by its engine id, although the
// runner has forgotten it by the time the bridge reads the line's events.
func TestClosedConnectionKeepsItsName(t *testing.T) {
	s := New()
	r := s.Exec("declare exchange e bogus")
	var closed *Event
	for i := range r.Events {
		if r.Events[i].Kind == "connection.closed" {
			closed = &r.Events[i]
		}
	}
	if closed == nil || closed.Channel != "app" || !strings.Contains(closed.Trace, " ch=app ") {
		t.Fatalf("connection.closed %+v, want channel app", closed)
	}
}
