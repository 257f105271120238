package bridge_test

import (
	"strings"
	"testing"

	"warren/engine/script"
	"warren/wasm/playground/bridge"
)

// TestErrorDetails: a script error reaches the page as its English text
// and as data (key, args, mismatches, cause), from exec, check and replay,
// and so do the bridge's own refusals; and the help overview comes as
// data too.
func TestErrorDetails(t *testing.T) {
	s := bridge.New()
	r := call(t, s, "exec", "frobnicate q")
	check(t, "error", path(t, r, "error"), `unknown command "frobnicate" (try "help")`)
	check(t, "errorDetail", path(t, r, "errorDetail"), map[string]any{"key": "unknownCommand", "args": map[string]any{"command": `"frobnicate"`}})

	run(t, s, "declare queue orders")
	r = call(t, s, "exec", "expect queue orders ready=1 header.x=(absent) nope=2")
	check(t, "expect error", path(t, r, "error"), "expectation failed: queue orders: ready=0 (want 1), nope=(absent) (want 2)")
	check(t, "expect errorDetail", path(t, r, "errorDetail"), map[string]any{
		"key": "expectationFailed",
		"cause": map[string]any{
			"key":  "queueDiffers",
			"args": map[string]any{"queue": "orders"},
			"mismatches": []any{
				map[string]any{"field": "ready", "got": "0", "want": "1"},
				map[string]any{"field": "nope", "got": "", "want": "2", "absent": true},
			},
		},
	})

	c := call(t, s, "check", []any{"expect exists queue orders", "expect msg gone 0"})
	check(t, "check line 0", path(t, c, "lines", 0), map[string]any{"line": "expect exists queue orders"})
	check(t, "check line 1", path(t, c, "lines", 1), map[string]any{
		"line":        "expect msg gone 0",
		"error":       `expectation failed: no queue "gone"`,
		"errorDetail": map[string]any{"key": "expectationFailed", "cause": map[string]any{"key": "noQueue", "args": map[string]any{"queue": `"gone"`}}},
	})

	for _, c := range []struct {
		line, key string
		args      map[string]any
		text      string
	}{
		{"a\nb", bridge.KeyLineBreak, nil, "one line at a time: the line contains a line break"},
		{strings.Repeat("x", bridge.MaxLineBytes+1), bridge.KeyLineTooLong, map[string]any{"bytes": "65537", "limit": "65536"}, "line too long: 65537 bytes, the limit is 65536"},
	} {
		r := call(t, s, "exec", c.line)
		check(t, c.key+" error", path(t, r, "error"), c.text)
		want := map[string]any{"key": c.key}
		if c.args != nil {
			want["args"] = c.args
		}
		check(t, c.key+" errorDetail", path(t, r, "errorDetail"), want)
	}
	full := bridge.New()
	for range bridge.MaxLogLines {
		full.Exec("use app")
	}
	fr := asMap(t, full.Exec("use app"))
	check(t, "log full error", fr["error"], "the log is full (10000 lines): reset, or replay part of it")
	check(t, "log full errorDetail", fr["errorDetail"], map[string]any{"key": bridge.KeyLogFull, "args": map[string]any{"limit": "10000"}})
	rep := s.Replay(make([]string, bridge.MaxLogLines+1), -1)
	check(t, "replay error", rep.Error, "replay: 10001 lines, the limit is 10000")
	check(t, "replay errorDetail", *rep.ErrorDetail, bridge.ErrorDetail{Key: bridge.KeyReplayTooLong, Args: map[string]string{"lines": "10001", "limit": "10000"}})

	h := call(t, s, "exec", "help")
	groups := path(t, h, "help", "groups").([]any)
	check(t, "help groups", len(groups), len(script.HelpOverview()))
	check(t, "help group 0", groups[0], map[string]any{"key": "topology", "title": "Topology",
		"verbs": []any{"bind", "bind exchange", "declare exchange", "declare queue", "delete exchange", "delete queue", "purge", "unbind", "unbind exchange"}})
	check(t, "help more", path(t, h, "help", "more"), script.HelpMore)
	if o := path(t, h, "output").(string); !strings.Contains(o, "Topology:") {
		t.Errorf("help output %q", o)
	}
	if m := asMap(t, s.Exec("help publish")); m["help"] != nil {
		t.Errorf("help publish has an overview: %v", m["help"])
	}
}

// TestErrorKeys: ErrorKeys is the script's keys and the bridge's own,
// each once.
func TestErrorKeys(t *testing.T) {
	keys := bridge.ErrorKeys()
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Errorf("%q twice", k)
		}
		seen[k] = true
	}
	for _, k := range append(script.ErrorKeys(), bridge.KeyLineTooLong, bridge.KeyLineBreak, bridge.KeyLogFull, bridge.KeyReplayTooLong) {
		if !seen[k] {
			t.Errorf("ErrorKeys lacks %q", k)
		}
	}
	check(t, "count", len(keys), len(script.ErrorKeys())+4)
}
