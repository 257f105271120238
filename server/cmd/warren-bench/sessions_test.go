package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	if s := summarize(nil); s != (latencyStats{}) {
		t.Errorf("summarize(nil) = %+v, want zero", s)
	}
	var lat []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	s := summarize(lat)
	want := latencyStats{n: 100, p50: 50 * time.Millisecond, p99: 99 * time.Millisecond, max: 100 * time.Millisecond}
	if s != want {
		t.Errorf("summarize(1..100 ms) = %+v, want %+v", s, want)
	}
	if lat[0] != time.Millisecond {
		t.Errorf("summarize did not sort in place: first %v", lat[0])
	}
}

func TestPerSession(t *testing.T) {
	for _, c := range []struct {
		before, after int64
		n             int
		want          float64
	}{
		{10 << 20, 110 << 20, 100, 1 << 20},
		{10 << 20, 10 << 20, 100, 0},
		{10 << 20, 9 << 20, 1, -(1 << 20)}, // RSS can shrink: reported as is
		{1, 2, 0, 0},
	} {
		if got := perSession(c.before, c.after, c.n); got != c.want {
			t.Errorf("perSession(%d, %d, %d) = %g, want %g", c.before, c.after, c.n, got, c.want)
		}
	}
	if got := mib(1.5 * (1 << 20)); got != "1.50 MiB" {
		t.Errorf("mib = %q", got)
	}
}

func TestSessionsFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in stderr; "" for a usage error with any message
	}{
		{nil, "exactly one of --warren-bin and --url"},
		{[]string{"--warren-bin", "w", "--url", "http://x"}, "exactly one of"},
		{[]string{"--url", "amqp://x"}, "want http://HOST:PORT"},
		{[]string{"--url", "http://x", "--participants", "1"}, "--participants 1"},
		{[]string{"--url", "http://x", "--rate", "21"}, "per-participant limit"},
		{[]string{"--url", "http://x", "--sessions", "0"}, "--sessions 0"},
		{[]string{"--url", "http://x", "--commands", "0"}, "--commands 0"},
		{[]string{"--url", "http://x", "extra"}, "unexpected argument"},
		{[]string{"--nope"}, "flag provided but not defined"},
		{[]string{"--url", "http://x", "--amqp-messages", "0"}, "--amqp-messages 0"},
		{[]string{"--url", "http://x", "--amqp-rate", "0"}, "--amqp-rate 0"},
		{[]string{"--url", "http://x", "--amqp-rate", "1001"}, "at most 1000"},
	} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"sessions"}, c.args...), &out, &errOut); code != 2 {
			t.Errorf("sessions %v: exit %d, want 2 (stderr %q)", c.args, code, errOut.String())
		}
		if !strings.Contains(errOut.String(), c.want) {
			t.Errorf("sessions %v: stderr %q, want %q in it", c.args, errOut.String(), c.want)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"sessions", "-h"}, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "one AMQP client") {
		t.Errorf("sessions -h: exit %d, help %q", code, errOut.String())
	}
}

func TestSessionRate(t *testing.T) {
	c := sessionsConfig{participants: 5, rate: 5}
	if got := c.sessionRate(); got != 100 {
		t.Errorf("5 pages at 5/s: session rate %d, want the default 100", got)
	}
	c = sessionsConfig{participants: 50, rate: 10}
	if got := c.sessionRate(); got != 1001 {
		t.Errorf("50 pages at 10/s: session rate %d, want 1001", got)
	}
}

func TestParseBusyTicks(t *testing.T) {
	got, err := parseBusyTicks("cpu  100 2 30 1000 50 4 5 6 7 0\ncpu0 1 2 3 4 5 6 7 8 9 0\n")
	if err != nil || got != 100+2+30+4+5+6 {
		t.Errorf("parseBusyTicks = %d, %v; want %d", got, err, 100+2+30+4+5+6)
	}
	for _, bad := range []string{"", "cpu 1 2 3", "intr 1 2 3 4 5 6 7 8 9", "cpu 1 2 x 4 5 6 7 8"} {
		if _, err := parseBusyTicks(bad); err == nil {
			t.Errorf("parseBusyTicks(%q): no error", bad)
		}
	}
	if _, err := machineBusyTicks(); err != nil {
		t.Logf("no /proc/stat here: %v", err)
	}
}
