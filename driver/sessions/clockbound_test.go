package sessions

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"warren/driver/clockapi"

	"warren/engine"
	"warren/engine/hub"
)

// TestClockMoveBound: a session's clock moves at most 100 years
// (engine.MaxAdvanceMs) at a time, over the WebSocket's clock message and
// over POST /api/sessions/{id}/clock alike, and a refused move moves
// nothing. Issue 26: an editor's advanceMs 9223372036854775000 was
// accepted, the clock read year −292274998, a 5 s TTL message expired at
// once and a queue with expires=1h was deleted.
func TestClockMoveBound(t *testing.T) {
	ts := startManager(t, hashAll)
	c := ts.create(t, `{"clock":"manual"}`)
	a := ts.join(t, c.ID, "Ada")
	for _, line := range []string{"declare queue q ttl=5s", "publish q hello", "declare queue lease expires=1h"} {
		if m := a.result(a.command(line)); m.Type != hub.OutResult || m.Result.Error != nil {
			t.Fatalf("%q: %+v", line, m)
		}
	}
	clockMsg := func(advanceMs int64) hub.Message {
		t.Helper()
		a.refs++
		ref := strconv.Itoa(a.refs)
		a.send(map[string]any{"type": "clock", "ref": ref, "advanceMs": advanceMs})
		return a.result(ref)
	}
	for _, c := range []struct {
		advanceMs int64
		key       string
	}{
		{9223372036854775000, hub.KeyClockRange},
		{engine.MaxAdvanceMs + 1, hub.KeyClockRange}, // just over 100 years
		{-5000, hub.KeyBadClockRequest},
		{0, hub.KeyBadClockRequest}, // no move named at all
	} {
		m := clockMsg(c.advanceMs)
		if m.Type != hub.OutError || m.Error.Key != c.key {
			t.Fatalf("advanceMs %d: %+v, want the error %s", c.advanceMs, m, c.key)
		}
		if c.key == hub.KeyClockRange && (m.Error.Args["max"] != "876000h" || m.Error.Args["now"] != "0s" || !strings.Contains(m.Error.Text, "at most 876000h at a time")) {
			t.Fatalf("advanceMs %d: %+v", c.advanceMs, m.Error)
		}
	}
	clock := func(body string) (int, clockapi.Reply, string) {
		t.Helper()
		status, data := ts.do(t, "POST", "/api/sessions/"+c.ID+"/clock", body)
		var r clockapi.Reply
		json.Unmarshal(data, &r)
		return status, r, string(data)
	}
	for _, bad := range []string{`{"advance":"9223372036854775000"}`, `{"advance":"36500d1ms"}`, `{"advance":"-1ms"}`, `{"advance":"300000000000000d"}`} {
		if status, _, raw := clock(bad); status != http.StatusBadRequest || !strings.Contains(raw, "876000h") && !strings.Contains(raw, "bad duration") {
			t.Errorf("POST %s: %d %s, want 400 with the bound", bad, status, raw)
		}
	}
	// Nothing moved: the 5 s message and the leased queue are still there.
	status, r, raw := clock(`{"advance":"0ms"}`)
	if status != http.StatusOK || r.NowMs != 0 || r.PendingTimers != 2 {
		t.Fatalf("after the refused moves: %d %s", status, raw)
	}
	// Exactly 100 years, by each way, is a move.
	status, r, raw = clock(`{"advance":"36500d"}`)
	if status != http.StatusOK || r.NowMs != engine.MaxAdvanceMs || !strings.HasPrefix(r.Time, "21") {
		t.Fatalf("advance 100 years over HTTP: %d %s", status, raw)
	}
	if m := clockMsg(engine.MaxAdvanceMs); m.Type != hub.OutResult || m.Result.Error != nil {
		t.Fatalf("advanceMs of exactly 100 years: %+v", m)
	}
	status, r, raw = clock(`{"advance":"0ms"}`)
	if status != http.StatusOK || r.NowMs != 2*engine.MaxAdvanceMs || !strings.HasPrefix(r.Time, "22") {
		t.Fatalf("after 200 years: %d %s", status, raw)
	}
}
