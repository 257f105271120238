package bridge_test

import (
	"strings"
	"testing"

	"warren/wasm/playground/bridge"
)

// TestCheck: check answers each expect line's outcome, runs every line
// even after one fails, and logs nothing, so a share link or a rewind
// never replays a lesson's checks.
func TestCheck(t *testing.T) {
	s := bridge.New()
	for _, l := range []string{"declare queue q ttl=5s", "publish q hi"} {
		s.Exec(l)
	}
	r := call(t, s, "check", []any{"expect queue q ready=2", "expect msg q 0 body=hi", "expect missing queue nope"})
	check(t, "passed", path(t, r, "passed"), false)
	check(t, "line 0 line", path(t, r, "lines", 0, "line"), "expect queue q ready=2")
	if e, _ := path(t, r, "lines", 0, "error").(string); !strings.Contains(e, "ready") {
		t.Errorf("line 0 error = %q, want one about ready", e)
	}
	check(t, "line 1", path(t, r, "lines", 1), map[string]any{"line": "expect msg q 0 body=hi"})
	check(t, "line 2", path(t, r, "lines", 2), map[string]any{"line": "expect missing queue nope"})

	r = call(t, s, "check", []any{"expect queue q ready=1", "expect time 0s"})
	check(t, "all pass", path(t, r, "passed"), true)
	check(t, "nothing logged", call(t, s, "log"), []any{"declare queue q ttl=5s", "publish q hi"})

	got, err := bridge.New().Check(nil)
	if err != nil || !got.Passed || len(got.Lines) != 0 {
		t.Errorf("Check(nil) = %+v, %v; want passed with no lines", got, err)
	}
}
