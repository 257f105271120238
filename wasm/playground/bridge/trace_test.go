package bridge

import (
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
