package hub

import (
	"strings"
	"testing"

	"warren/engine"
)

func TestParticipantLimit(t *testing.T) {
	h := newHarness(t, Config{MaxParticipants: 2})
	h.join("A", Editor)
	b := h.join("B", ReadOnly)
	_, err := h.s.Join(h.nowMs, "C", Editor)
	if e, ok := err.(*Error); !ok || e.Key != KeySessionFull || e.Error() != "the session is full: it has its limit of 2 participants" {
		t.Fatalf("third join: %v", err)
	}
	if m := ErrorMessage(err); m.Type != OutError || m.Error.Key != KeySessionFull {
		t.Fatalf("ErrorMessage: %+v", m)
	}
	// A seat freed by a leave can be taken.
	h.s.Leave(h.nowMs, b.id)
	h.pump()
	h.join("C", Editor)
}

// TestParticipantRate: each participant has a token bucket on the wall
// time passed in; an empty one refuses, and refills with time.
func TestParticipantRate(t *testing.T) {
	h := newHarness(t, Config{ParticipantRate: 2, ParticipantBurst: 3})
	a := h.join("A", Editor)
	b := h.join("B", Editor)
	for i := 0; i < 3; i++ {
		h.cmd(a, "declare queue q")
	}
	h.refused(a, Inbound{Type: InCommand, Line: "declare queue q"}, KeyRateLimited)
	h.refused(a, Inbound{Type: InClock, Step: true}, KeyRateLimited)
	// Another participant's bucket is its own.
	h.cmd(b, "declare queue q")
	// Half a second gives one token back (2 a second).
	h.nowMs += 499
	h.refused(a, Inbound{Type: InCommand, Line: "declare queue q"}, KeyRateLimited)
	h.nowMs++
	h.cmd(a, "declare queue q")
	h.refused(a, Inbound{Type: InCommand, Line: "declare queue q"}, KeyRateLimited)
	// However long the wait, the bucket holds its burst only.
	h.nowMs += 60_000
	for i := 0; i < 3; i++ {
		h.cmd(a, "declare queue q")
	}
	h.refused(a, Inbound{Type: InCommand, Line: "declare queue q"}, KeyRateLimited)
}

// TestSessionRate: the session's bucket bounds all participants
// together, and a refusal by it costs the participant nothing.
func TestSessionRate(t *testing.T) {
	h := newHarness(t, Config{SessionRate: 1, SessionBurst: 2, ParticipantBurst: 2})
	a := h.join("A", Editor)
	b := h.join("B", Editor)
	h.cmd(a, "declare queue q")
	h.cmd(b, "declare queue q")
	h.refused(a, Inbound{Type: InCommand, Line: "declare queue q"}, KeySessionRateLimited)
	h.nowMs += 1000
	h.cmd(a, "declare queue q") // A's own bucket still had its token
}

func TestLineTooLong(t *testing.T) {
	h := newHarness(t, Config{MaxLineBytes: 64})
	a := h.join("A", Editor)
	h.refused(a, Inbound{Type: InCommand, Line: "publish q " + strings.Repeat("x", 60)}, KeyLineTooLong)
	// A message far beyond the line limit is refused before it is read.
	big := []byte(`{"type":"command","line":"` + strings.Repeat("x", 64+maxMessageOverhead) + `"}`)
	h.s.Handle(h.nowMs, a.id, big)
	h.pump()
	if m := a.messages[len(a.messages)-1]; m.Type != OutError || m.Error.Key != KeyMessageSize {
		t.Fatalf("oversized message: %+v", m)
	}
}

// TestQueueAndMessageLimits: the session's queue and message limits are
// the engine's, a 406 like RabbitMQ's vhost limits, and replicas agree.
func TestQueueAndMessageLimits(t *testing.T) {
	h := newHarness(t, Config{Engine: engine.Config{MaxQueuesPerVhost: 2, MaxMessagesPerVhost: 3}})
	a := h.join("A", Editor)
	h.cmd(a, "declare queue q1")
	h.cmd(a, "declare queue q2")
	if res := h.cmd(a, "declare queue q3"); !strings.Contains(res.Output, "error: 406") {
		t.Fatalf("third queue:\n%s", res.Output)
	}
	h.cmd(a, "publish q1 x count=3")
	if res := h.cmd(a, "publish q1 y"); !strings.Contains(res.Output, "error: 406 PRECONDITION_FAILED - message limit") {
		t.Fatalf("fourth message:\n%s", res.Output)
	}
	if n := queueReady(t, h.s.b, "q1"); n != 3 {
		t.Fatalf("q1 holds %d, want 3", n)
	}
	if l := a.messages[0].Limits; l.MaxQueues != 2 || l.MaxMessages != 3 {
		t.Fatalf("welcome limits %+v", l)
	}
	h.inSync()
}

// TestBytesLimit: past the session's bytes, publishing is refused (for
// participants by the hub, for AMQP clients through AllowPublish) until
// messages go.
func TestBytesLimit(t *testing.T) {
	h := newHarness(t, Config{MaxBytes: 10})
	a := h.join("A", Editor)
	h.cmd(a, "declare queue q")
	h.cmd(a, "publish q 123456")
	h.cmd(a, "publish q 123456") // 6 bytes held: below the limit, taken whole
	h.refused(a, Inbound{Type: InCommand, Line: "publish q 1"}, KeySessionBytes)
	if err := h.s.AllowPublish(); err == nil || err.(*Error).Args["bytes"] != "12" {
		t.Fatalf("AllowPublish: %v", err)
	}
	h.cmd(a, "purge q")
	h.cmd(a, "publish q 1")
}
