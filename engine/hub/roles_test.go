package hub

import "testing"

// TestReadOnlyRefused: a read-only participant can neither command nor
// move the clock, in any mode, and nothing it sends reaches the log.
func TestReadOnlyRefused(t *testing.T) {
	h := newHarness(t, Config{})
	ed := h.join("Teacher", Editor)
	ro := h.join("Student", ReadOnly)
	h.cmd(ed, "declare queue q ttl=5s")
	h.cmd(ed, "publish q hi")
	for _, in := range []Inbound{
		{Type: InCommand, Line: "publish q more"},
		{Type: InCommand, Line: "show queues"},
		{Type: InCommand, Line: "advance 10s"},
		{Type: InClock, Step: true},
		{Type: InClock, AdvanceMs: 10_000},
		{Type: InClock, Mode: string(Live)},
		{Type: InClock, Mode: string(Paused)},
	} {
		h.refused(ro, in, KeyReadOnly)
	}
	if n := queueReady(t, h.s.b, "q"); n != 1 {
		t.Fatalf("q holds %d, want 1: the refused messages changed the broker", n)
	}
	if h.s.Mode() != Manual {
		t.Fatalf("a read-only participant switched the clock to %s", h.s.Mode())
	}
	// Watching still works: the read-only page follows every entry.
	h.cmd(ed, "step")
	h.inSync()
	if n := queueReady(t, ro.replica.B, "q"); n != 0 {
		t.Fatalf("the read-only replica's q holds %d after the step, want 0", n)
	}
}

// TestRolesAndNames: a join with an unknown role or a bad name is refused
// with its key.
func TestRolesAndNames(t *testing.T) {
	h := newHarness(t, Config{})
	for _, c := range []struct {
		name string
		role Role
		key  string
	}{
		{"Ada", "admin", KeyBadRole},
		{"", Editor, KeyBadName},
		{"tab\there", Editor, KeyBadName},
		{string(make([]rune, MaxNameRunes+1)), Editor, KeyBadName},
	} {
		_, err := h.s.Join(h.nowMs, c.name, c.role)
		if e, ok := err.(*Error); !ok || e.Key != c.key {
			t.Fatalf("join %q %q: %v, want %s", c.name, c.role, err, c.key)
		}
	}
	if _, err := h.s.Join(h.nowMs, "名前", Editor); err != nil {
		t.Fatalf("a name in Chinese: %v", err)
	}
}
