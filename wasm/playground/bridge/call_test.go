package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"

	"warren/engine/hub"
	"warren/wasm/playground/bridge"
)

// call runs Session.Call and decodes its JSON as JavaScript's JSON.parse
// would.
func call(t *testing.T, s *bridge.Session, method string, args ...any) any {
	t.Helper()
	out := s.Call(method, args)
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: answer is not JSON: %v\n%s", method, err, out)
	}
	return v
}

func TestCall(t *testing.T) {
	s := bridge.New()
	check(t, "next with nothing scheduled", call(t, s, "next"), nil)
	for _, l := range ttlDLX {
		if r := call(t, s, "exec", l); path(t, r, "logged") != true {
			t.Fatalf("exec %q: %v", l, r)
		}
	}
	check(t, "next", call(t, s, "next"), map[string]any{"at": 1000.0, "kind": "message-ttl", "vhost": "/", "queue": "q", "msgId": 1.0})
	st := call(t, s, "step")
	check(t, "step now", path(t, st, "now"), 1000.0)
	check(t, "step fired", path(t, st, "fired", 0, "kind"), "message-ttl")
	check(t, "step dead-lettered reason", path(t, st, "events", 1, "reason"), "expired")
	check(t, "step dead-lettered exchange", path(t, st, "events", 1, "exchange"), "")
	check(t, "x-death reason", path(t, call(t, s, "snapshot"), "vhosts", 0, "queues", "name=dead", "ready", 0, "headers", "x-death", 0, "reason"), "expired")
	check(t, "advanceBy", path(t, call(t, s, "advanceBy", 500.0), "line"), "advance 500ms")
	check(t, "advanceTo", path(t, call(t, s, "advanceTo", 2000.0), "now"), 2000.0)
	log := call(t, s, "log")
	check(t, "log", log, []any{"declare queue dead", `declare queue q ttl=1s dlx="" dlrk=dead`, "publish q hi", "advance to 1s", "advance 500ms", "advance to 2s"})

	rep := call(t, s, "replay", log, 3.0)
	check(t, "replay now", path(t, rep, "now"), 0.0)
	check(t, "replay results", len(path(t, rep, "results").([]any)), 3)
	check(t, "replayed state", path(t, call(t, s, "snapshot"), "vhosts", 0, "queues", "name=q", "readyCount"), 1.0)
	check(t, "replay all", path(t, call(t, s, "replay", log), "now"), 2000.0)
	check(t, "replay all (-1)", path(t, call(t, s, "replay", log, -1.0), "now"), 2000.0)
	check(t, "reset", call(t, s, "reset"), map[string]any{"now": 0.0})
	check(t, "log after reset", call(t, s, "log"), []any{})

	for _, c := range []struct {
		method string
		args   []any
		err    string
	}{
		{"frob", nil, `unknown method "frob"`},
		{"exec", nil, "takes 1 argument"},
		{"exec", []any{5.0}, "must be a string, got a number"},
		{"advanceBy", []any{-1.0}, "whole number"},
		{"advanceBy", []any{1.5}, "whole number"},
		{"advanceTo", []any{"5s"}, "whole number"},
		{"advanceTo", []any{1e300}, "whole number"},
		{"step", []any{1.0}, "no arguments"},
		{"replay", []any{"declare queue q"}, "must be an array"},
		{"replay", []any{[]any{"declare queue q", nil}}, "lines[1] must be a string, got null"},
		{"replay", []any{[]any{}, 0.5}, "upTo must be an integer"},
		{"replay", []any{make([]any, bridge.MaxLogLines+1)}, "more than"},
		{"check", nil, "takes 1 argument"},
		{"check", []any{"expect time 0s"}, "must be an array"},
		{"check", []any{[]any{"expect time 0s", "publish q x"}}, `lines[1] "publish q x" is not an expect line`},
		{"check", []any{[]any{"expect queue"}}, "lines[0]: "},
	} {
		got, _ := call(t, s, c.method, c.args...).(map[string]any)
		if e, _ := got["error"].(string); !strings.Contains(e, c.err) || len(got) != 1 {
			t.Errorf("%s(%v) = %v, want only an error containing %q", c.method, c.args, got, c.err)
		}
	}
	check(t, "refused calls change nothing", call(t, s, "log"), []any{})

	// A refused time move is a Result with an error (the session has a
	// time to report).
	check(t, "advanceTo backwards", path(t, call(t, s, "exec", "advance 1s"), "now"), 1000.0)
	if e := path(t, call(t, s, "advanceTo", 500.0), "error"); !strings.Contains(e.(string), "out of range") {
		t.Errorf("advanceTo backwards: %v", e)
	}
}

// TestMethodsAllAnswer: every listed method answers JSON on a fresh
// session, so the wasm main registers nothing that cannot be called.
func TestMethodsAllAnswer(t *testing.T) {
	for _, m := range bridge.Methods {
		var args []any
		switch m {
		case "exec":
			args = []any{"declare queue q"}
		case "advanceBy", "advanceTo":
			args = []any{10.0}
		case "replay":
			args = []any{[]any{"declare queue q"}, -1.0}
		case "check":
			args = []any{[]any{"expect missing queue q"}}
		}
		s := bridge.New()
		switch m {
		case "liveStart", "liveApply", "liveHash":
			snap, entry := liveSample(t)
			if m == "liveStart" {
				args = []any{snap, "manual"}
			} else {
				call(t, s, "liveStart", snap, "manual")
			}
			if m == "liveApply" {
				args = []any{entry}
			}
		}
		v := call(t, s, m, args...)
		if o, ok := v.(map[string]any); ok && o["error"] != nil {
			t.Errorf("%s: %v", m, o["error"])
		}
	}
}

// liveSample returns a shared session's welcome snapshot and its first
// entry, as JSON text.
func liveSample(t *testing.T) (snapshot, entry string) {
	t.Helper()
	h := newLiveHub(t)
	ada := h.join("Ada", hub.Editor)
	h.command(ada, "declare queue q")
	for _, m := range h.take(ada) {
		switch msgType(m) {
		case "welcome":
			snapshot = string(m["snapshot"])
		case "entry":
			entry = string(m["entry"])
		}
	}
	return snapshot, entry
}
