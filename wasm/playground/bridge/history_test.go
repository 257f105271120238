package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/hub"
	"warren/wasm/playground/bridge"
)

// exportedHistory runs a shared session in memory (lines, a real
// client's publish of a body longer than a typed line may be, a clock
// move) and returns its exported history's lines and its state hash.
func exportedHistory(t *testing.T) ([]string, string) {
	t.Helper()
	s := hub.New(hub.Config{Engine: engine.Config{Seed: 5}}, 1_700_000_000_000)
	h := hub.NewHistory(s, hub.HistoryLimits{})
	take := func() { h.Add(s, s.Ready().Entries) }
	ada, err := s.Join(0, "Ada", hub.Editor)
	if err != nil {
		t.Fatal(err)
	}
	take()
	for _, line := range []string{"declare queue jobs ttl=5s", "consume jobs", "publish jobs hello"} {
		s.Command(0, ada, "r", line)
		take()
	}
	big := strings.Repeat("b", bridge.MaxLineBytes)
	origin := hub.Origin{Kind: hub.OriginAMQP, Connection: "c1"}
	res, err := s.Apply(0, origin, []engine.Command{engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "pika"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	take()
	ch := engine.ChannelID{Conn: res[0].Conn, Num: 1}
	if _, err := s.Apply(0, origin, []engine.Command{engine.CmdOpenChannel{Conn: ch.Conn, Num: 1},
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "jobs", Body: []byte(big)}}}, nil); err != nil {
		t.Fatal(err)
	}
	take()
	s.Clock(0, ada, "r", hub.ClockRequest{AdvanceMs: 6000})
	take()
	text := string(h.Script(s, hub.Export{}))
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), hub.FormatHash(hub.HashState(s.Broker()))
}

// TestHistoryOpens: the playground replays an exported history, its
// long lines included, to the session's state hash; the log holds its
// lines (not its comments), so a rewind replays a part of it; the
// channels are named as the session's pages name them; and a typed line
// as long is still refused.
func TestHistoryOpens(t *testing.T) {
	lines, want := exportedHistory(t)
	s := bridge.New()
	rr := s.Replay(lines, -1)
	if rr.Error != "" {
		t.Fatal(rr.Error)
	}
	for i, r := range rr.Results {
		if r.Error != "" {
			t.Fatalf("line %d (%.60s): %s", i+1, lines[i], r.Error)
		}
	}
	var got bridge.StateHash
	if err := json.Unmarshal([]byte(s.Call("hash", nil)), &got); err != nil {
		t.Fatal(err)
	}
	// Six entries: three lines, the client's two turns (the connection's
	// opening, then its channel and publish), the clock.
	if got.Hash != want || got.History == nil || *got.History != 6 || got.Live {
		t.Fatalf("hash() = %+v, want the session's %s after entry 6", got, want)
	}
	log := s.Log()
	if len(log) != 8 || !strings.HasPrefix(log[0], "history start 0 ") || !strings.HasPrefix(log[7], "history hash 6 ") {
		t.Fatalf("the log is %d lines: %.80q", len(log), log)
	}
	trace := ""
	for _, r := range rr.Results {
		trace += r.Output
	}
	if !strings.Contains(trace, "published ch=app x=\"\" key=jobs") || !strings.Contains(trace, "published ch=pika") {
		t.Errorf("the replay's trace does not name the session's channels:\n%s", trace)
	}
	// Rewind to the state after entry 2.
	if rr := s.Replay(log, 3); rr.Error != "" || s.Hash().History == nil || *s.Hash().History != 2 {
		t.Fatalf("rewind: %s %+v", rr.Error, s.Hash())
	}
	r := s.Exec("publish q " + strings.Repeat("x", bridge.MaxLineBytes))
	if r.ErrorDetail == nil || r.ErrorDetail.Key != bridge.KeyLineTooLong || r.ErrorDetail.Args["limit"] != "65536" {
		t.Fatalf("a long typed line: %+v", r.ErrorDetail)
	}
	// A fresh playground hashes too.
	if h := bridge.New().Hash(); len(h.Hash) != 16 || h.History != nil {
		t.Fatalf("a fresh playground's hash: %+v", h)
	}
}
