package hub

import (
	"strings"
	"testing"

	"warren/engine"
)

// TestManualClock: on a manual clock, wall time passing (Tick) fires
// nothing; a TTL runs only when an editor steps or advances, and the
// move is an entry everyone replicates.
func TestManualClock(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("A", Editor)
	b := h.join("B", ReadOnly)
	h.cmd(a, "declare queue q ttl=30m")
	h.cmd(a, "publish q hi")
	seq := h.s.Seq()
	h.nowMs += 2 * 60 * 60 * 1000 / 4 // half an hour of wall time
	h.s.Tick(h.nowMs)
	h.pump()
	if h.s.Seq() != seq || queueReady(t, h.s.b, "q") != 1 || h.s.b.Now() != 0 {
		t.Fatalf("a manual clock moved with the wall: seq %d, now %d", h.s.Seq(), h.s.b.Now())
	}
	if _, ok := h.s.NextWakeMs(); !ok {
		t.Fatal("no wake for the idle expiry")
	}
	m := h.send(a, Inbound{Type: InClock, Step: true})
	if m.Type != OutResult || !strings.Contains(m.Result.Output, "expired") {
		t.Fatalf("step: %+v", m.Result)
	}
	last := b.entries[len(b.entries)-1]
	if last.Origin.Line != "step" || last.Origin.Name != "A" || last.NowMs != 30*60*1000 {
		t.Fatalf("the step's entry: %+v", last)
	}
	m = h.send(a, Inbound{Type: InClock, AdvanceMs: 90_000})
	if last := b.entries[len(b.entries)-1]; m.Type != OutResult || last.Origin.Line != "advance 1m30s" || h.s.b.Now() != 31*60*1000+30_000 {
		t.Fatalf("advance: %+v, entry %+v, now %d", m, last, h.s.b.Now())
	}
	h.inSync()
}

// TestPausedClock: a paused clock refuses every move, by message or by
// script line, and wall time does not move it.
func TestPausedClock(t *testing.T) {
	h := newHarness(t, Config{Clock: Paused})
	a := h.join("A", Editor)
	h.cmd(a, "restart") // no downtime: the clock stays
	h.cmd(a, "declare queue q ttl=1s")
	h.cmd(a, "publish q hi")
	for _, in := range []Inbound{
		{Type: InClock, Step: true},
		{Type: InClock, AdvanceMs: 5000},
		{Type: InCommand, Line: "advance 5s"},
		{Type: InCommand, Line: "step"},
		{Type: InCommand, Line: "run"},
		{Type: InCommand, Line: "restart 1m"},
	} {
		h.refused(a, in, KeyClockNotManual)
	}
	h.nowMs += 10_000
	h.s.Tick(h.nowMs)
	h.pump()
	if queueReady(t, h.s.b, "q") != 1 || h.s.b.Now() != 0 {
		t.Fatalf("a paused clock moved to %d", h.s.b.Now())
	}
	if err := h.s.Advance(h.nowMs, 1000); err == nil || err.(*Error).Key != KeyClockNotManual {
		t.Fatalf("the server's advance on a paused clock: %v", err)
	}
	h.inSync()
}

// TestLiveClock: a live clock follows the wall time the driver passes
// in; each tick that moves it is an entry of origin clock, and the next
// wake is the broker's next timer.
func TestLiveClock(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("A", Editor)
	b := h.join("B", Editor)
	h.cmd(a, "declare queue q ttl=5s")
	h.cmd(a, "publish q hi")
	h.nowMs += 60_000 // a minute passes on the manual clock: nothing
	m := h.send(a, Inbound{Type: InClock, Mode: string(Live)})
	if m.Type != OutResult || m.Result.Seq != h.s.Seq() {
		t.Fatalf("switch to live: %+v", m)
	}
	if e := b.entries[len(b.entries)-1]; e.Clock != Live || e.Origin.Line != "clock live" || len(e.Records) != 0 {
		t.Fatalf("the switch's entry: %+v", e)
	}
	wake, ok := h.s.NextWakeMs()
	if !ok || wake != h.nowMs+5000 {
		t.Fatalf("next wake %d (%v), want %d: the TTL", wake, ok, h.nowMs+5000)
	}
	h.refused(a, Inbound{Type: InClock, Step: true}, KeyClockNotManual)
	h.nowMs += 4999
	h.s.Tick(h.nowMs)
	h.pump()
	if queueReady(t, h.s.b, "q") != 1 {
		t.Fatal("expired early")
	}
	h.nowMs = wake
	h.s.Tick(h.nowMs)
	h.pump()
	e := b.entries[len(b.entries)-1]
	if e.Origin.Kind != OriginClock || e.NowMs != 5000 || queueReady(t, h.s.b, "q") != 0 {
		t.Fatalf("the tick's entry %+v, q holds %d", e, queueReady(t, h.s.b, "q"))
	}
	expired := false
	for _, ev := range h.last.Events {
		expired = expired || ev.Kind == engine.EvExpired
	}
	if !expired {
		t.Fatalf("the driver got no expiry event: %v", h.last.Events)
	}
	// Pausing catches up with the wall first, then holds.
	h.nowMs += 2500
	h.send(a, Inbound{Type: InClock, Mode: string(Paused)})
	if h.s.b.Now() != 7500 || h.s.Mode() != Paused {
		t.Fatalf("paused at %d in %s, want 7500", h.s.b.Now(), h.s.Mode())
	}
	h.nowMs += 10_000
	h.s.Tick(h.nowMs)
	if h.s.b.Now() != 7500 {
		t.Fatalf("a paused clock moved to %d", h.s.b.Now())
	}
	// The server switches modes too (its API), as an entry of origin
	// server; a switch to the mode in force is no entry.
	if err := h.s.SetClock(h.nowMs, Manual); err != nil {
		t.Fatal(err)
	}
	seq := h.s.Seq()
	h.s.SetClock(h.nowMs, Manual)
	if h.s.Seq() != seq {
		t.Fatal("a switch to the same mode made an entry")
	}
	if err := h.s.Advance(h.nowMs, 0); err != nil {
		t.Fatal(err)
	}
	if err := h.s.SetClock(h.nowMs, "fast"); err == nil || err.(*Error).Key != KeyBadClockMode {
		t.Fatalf("mode fast: %v", err)
	}
	h.pump()
	if e := b.entries[len(b.entries)-1]; e.Origin.Kind != OriginServer || e.Clock != Manual {
		t.Fatalf("the server's switch: %+v", e)
	}
	h.inSync()
}

func TestBadClockRequests(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("A", Editor)
	h.refused(a, Inbound{Type: InClock}, KeyBadClockRequest)
	h.refused(a, Inbound{Type: InClock, Step: true, AdvanceMs: 5}, KeyBadClockRequest)
	h.refused(a, Inbound{Type: InClock, AdvanceMs: -5}, KeyBadClockRequest)
	h.refused(a, Inbound{Type: InClock, Mode: "fast"}, KeyBadClockMode)
}

// TestIdleExpiry: a session with no command or join for IdleMs ends;
// everyone is told, and every later input is refused.
func TestIdleExpiry(t *testing.T) {
	h := newHarness(t, Config{IdleMs: 60_000})
	a := h.join("A", Editor)
	b := h.join("B", ReadOnly)
	h.nowMs += 50_000
	h.cmd(a, "declare queue q") // activity: the expiry moves
	if wake, _ := h.s.NextWakeMs(); wake != h.nowMs+60_000 {
		t.Fatalf("next wake %d, want %d", wake, h.nowMs+60_000)
	}
	h.nowMs += 59_999
	h.s.Tick(h.nowMs)
	if r := h.pump(); r.Ended != nil {
		t.Fatal("ended early")
	}
	h.nowMs++
	h.s.Tick(h.nowMs)
	r := h.pump()
	if r.Ended == nil || r.Ended.Key != KeyIdle {
		t.Fatalf("Ready.Ended = %v", r.Ended)
	}
	for _, p := range []*page{a, b} {
		if p.ended == nil || p.ended.Key != KeyIdle || p.ended.Text != "the session ended: no one ran a command for 1m" {
			t.Fatalf("%s: ended %+v", p.name, p.ended)
		}
	}
	h.refused(a, Inbound{Type: InCommand, Line: "declare queue q"}, KeyEnded)
	if _, err := h.s.Join(h.nowMs, "C", Editor); err == nil || err.(*Error).Key != KeyEnded {
		t.Fatalf("join after the end: %v", err)
	}
	if _, err := h.s.Apply(h.nowMs, Origin{Kind: OriginAMQP}, []engine.Command{engine.CmdStep{}}, nil); err == nil {
		t.Fatal("Apply on an ended session")
	}
	if _, ok := h.s.NextWakeMs(); ok {
		t.Fatal("an ended session wants a wake")
	}
	h.s.Tick(h.nowMs + 1)
	if r := h.pump(); len(r.Messages) != 0 || r.Ended != nil {
		t.Fatalf("an ended session still speaks: %+v", r)
	}
}

// TestShutdown: End tells everyone why.
func TestShutdown(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("A", Editor)
	h.s.End(KeyShutdown)
	if r := h.pump(); r.Ended == nil || r.Ended.Key != KeyShutdown || a.ended.Key != KeyShutdown {
		t.Fatalf("shutdown: %+v %+v", r.Ended, a.ended)
	}
}
