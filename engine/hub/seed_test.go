package hub

import (
	"strings"
	"testing"
)

// TestSeedStartsWhereThePageWas: a session seeded with a page's log has
// the page's queues, bindings and messages; the message a consumer held
// unacked is back in its queue, since the seed's channels close; a
// joiner's replica equals the session.
func TestSeedStartsWhereThePageWas(t *testing.T) {
	lines := []string{
		"declare exchange orders topic",
		"declare queue eu ttl=1m",
		"bind eu orders eu.*",
		"publish orders eu.paris one",
		"publish orders eu.rome two",
		"@w consume eu prefetch=1",
		"advance 10s",
		"expect queue eu ready=5", // fails, as it did in the page
	}
	h := newHarness(t, Config{})
	if err := h.s.Seed(h.nowMs, lines); err != nil {
		t.Fatal(err)
	}
	h.pump()
	if n := queueReady(t, h.s.b, "eu"); n != 2 {
		t.Fatalf("eu holds %d ready, want both messages (the seed's consumer gone)", n)
	}
	if got := h.s.b.Now(); got != 10_000 {
		t.Fatalf("the session's clock is at %d, want the page's 10s", got)
	}
	ada := h.join("Ada", Editor)
	h.inSync()
	if n := queueReady(t, ada.replica.B, "eu"); n != 2 {
		t.Fatalf("Ada's replica: eu holds %d", n)
	}
}

// TestSeedRefusals: a seed is checked whole before any line runs.
func TestSeedRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		lines []string
		want  string
	}{
		{Config{}, make([]string, MaxSeedLines+1), "a session starts from 2000 lines at most, the page's log has 2001"},
		{Config{}, []string{"declare queue q", "frobnicate"}, `line 2 of the page's log cannot start a session: unknown command "frobnicate"`},
		{Config{MaxLineBytes: 20}, []string{"declare queue " + strings.Repeat("q", 20)}, "line 1 of the page's log cannot start a session: a command line may be 20 bytes at most, this one has 34"},
		{Config{Clock: Live}, []string{"declare queue q", "advance 5s"}, "line 2 of the page's log cannot start a session: the clock is live"},
	} {
		h := newHarness(t, c.cfg)
		err := h.s.Seed(h.nowMs, c.lines)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("seed %.40q: %v, want %q", c.lines, err, c.want)
		}
		if h.s.Seq() != 0 {
			t.Errorf("a refused seed left %d entries", h.s.Seq())
		}
	}
}
