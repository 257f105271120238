package ctl_test

import (
	"strings"
	"testing"
	"time"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// newManualServer is newServer with the broker on a manual clock and the
// wall clock fixed at the epoch, so that every output is exact.
func newManualServer(t *testing.T) *server {
	t.Helper()
	epoch := time.Unix(1_700_000_000, 0)
	b := broker.StartWith(engine.Config{Seed: 1}, broker.Options{Clock: broker.ClockManual, Now: func() time.Time { return epoch }})
	users, err := auth.NewStore(b)
	if err != nil {
		b.Stop()
		t.Fatal(err)
	}
	return serve(t, b, users)
}

// TestClockCommands: advance, step and clock move and show the clock as
// a test scripting a manual broker would use them.
func TestClockCommands(t *testing.T) {
	s := newManualServer(t)
	s.declare("/", engine.QueueDeclare{Queue: "retry", Args: engine.Table{"x-message-ttl": int64(300_000)}})
	s.publish("/", "retry", "m")

	s.expect(s.ctl("clock"), 0, "Reading the clock ...\nMode: manual\nTime: 0s (2023-11-14T22:13:20.000Z)\nNext timer: in 5m, at 5m\nPending timers: 1\n", "")
	s.expect(s.ctl("advance", "1m30s"), 0, "Advancing the clock by 1m30s ...\nMode: manual\nTime: 1m30s (2023-11-14T22:14:50.000Z)\nAdvanced by: 1m30s\nNext timer: in 3m30s, at 5m\nPending timers: 1\n", "")
	s.expect(s.ctl("step"), 0, "Stepping the clock to the next timer ...\nMode: manual\nTime: 5m (2023-11-14T22:18:20.000Z)\nAdvanced by: 3m30s\nTimers reached: 1\nNext timer: none\nPending timers: 0\n", "")
	s.expect(s.ctl("--quiet", "step", "3"), 0, "Mode: manual\nTime: 5m (2023-11-14T22:18:20.000Z)\nAdvanced by: 0s\nTimers reached: 0\nNext timer: none\nPending timers: 0\n", "")
	s.expect(s.ctl("clock", "paused"), 0, "Setting the clock to paused ...\nMode: paused\nTime: 5m (2023-11-14T22:18:20.000Z)\nAdvanced by: 0s\nNext timer: none\nPending timers: 0\n", "")
	s.expect(s.ctl("advance", "1h"), 65, "Advancing the clock by 1h ...\n",
		"Error:\nthe clock is paused: set the mode to manual to move it by hand, or to live to resume it\n")
}

// TestClockCommandErrors: bad arguments are usage errors; a duration the
// server cannot read fails with its reason.
func TestClockCommandErrors(t *testing.T) {
	s := newManualServer(t)
	s.expect(s.ctl("--quiet", "advance", "soon"), 65, "", "Error:\nbad duration \"soon\" (use e.g. 250ms, 5s, 1.5s, 2m, 1h)\n")
	r := s.ctl("step", "zero")
	if r.code != 64 || !strings.Contains(r.stderr, `the number of steps must be a whole number from 1 to 1000, not "zero"`) {
		t.Errorf("step zero: %d %q", r.code, r.stderr)
	}
	r = s.ctl("clock", "fast")
	if r.code != 64 || !strings.Contains(r.stderr, `the clock's mode must be live, paused or manual, not "fast"`) {
		t.Errorf("clock fast: %d %q", r.code, r.stderr)
	}
	if r = s.ctl("advance"); r.code != 64 || !strings.Contains(r.stderr, "not enough arguments") {
		t.Errorf("advance without a duration: %d %q", r.code, r.stderr)
	}
	if r = s.ctl("help", "advance"); r.code != 0 || !strings.Contains(r.stdout, "warren ctl [--http <address> | --url <url>] [--username <user>] [--password <password>] [--quiet] advance [--session <id>] <duration>") {
		t.Errorf("help advance: %d %q", r.code, r.stdout)
	}
}
