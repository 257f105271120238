package hub

import (
	"fmt"
	"testing"

	"warren/engine"
)

// TestDivergenceDetected: an honest replica's reports match, at the
// entries that carry the hub's hash and at the latest; a tampered one is
// caught, told so, and handed to the driver.
func TestDivergenceDetected(t *testing.T) {
	h := newHarness(t, Config{HashEvery: 2})
	a := h.join("A", Editor)
	liar := h.join("Mallory", ReadOnly)
	h.cmd(a, "declare queue q")
	h.cmd(a, "publish q one")
	e := a.entries[1]
	if e.Hash == "" || e.Hash != FormatHash(a.replica.Hash()) {
		t.Fatalf("entry 2 carries hash %q, the replica has %s", e.Hash, FormatHash(a.replica.Hash()))
	}
	for _, p := range []*page{a, liar} {
		h.send(p, Inbound{Type: InHash, Seq: 2, Hash: FormatHash(p.replica.Hash())})
		if r := h.last; len(r.Divergences) != 0 || len(r.Messages) != 0 {
			t.Fatalf("%s's honest report: %+v", p.name, r)
		}
	}
	// Mallory's page publishes on its own replica: it has diverged.
	conn, _ := liar.replica.B.OpenConnection(engine.ConnectionOpen{Vhost: "/", Name: "x", User: "guest"})
	ch, _ := liar.replica.B.OpenChannel(conn, 1)
	liar.replica.B.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Body: []byte("forged")})
	liar.replica.B.DrainEvents(nil)
	liar.replica.B.DrainCommands(func([]byte) {})
	h.cmd(a, "publish q two") // entry 3: no hash on it; the latest still checks
	got := liar.replica.Hash()
	h.s.ReportHash(h.nowMs, liar.id, "", 3, FormatHash(got))
	r := h.pump()
	if len(r.Divergences) != 1 {
		t.Fatalf("divergences %+v", r.Divergences)
	}
	d := r.Divergences[0]
	if d.Participant.ID != liar.id || d.Seq != 3 || d.Got != got || d.Want != h.s.hashNow() {
		t.Fatalf("divergence %+v", d)
	}
	last := liar.messages[len(liar.messages)-1]
	if last.Type != OutError || last.Error.Key != KeyDivergence || last.Error.Args["got"] != FormatHash(got) {
		t.Fatalf("Mallory was told %+v", last)
	}
	// A second report is refused as the first was, and not reported
	// again: one page cannot flood the driver's log.
	h.s.ReportHash(h.nowMs, liar.id, "", 3, FormatHash(got))
	if r := h.pump(); len(r.Divergences) != 0 || liar.messages[len(liar.messages)-1].Error.Key != KeyDivergence {
		t.Fatalf("the second report: %+v", r.Divergences)
	}
	// A was not.
	for _, m := range a.messages {
		if m.Type == OutError {
			t.Fatalf("A got %+v", m.Error)
		}
	}
}

// TestStaleAndBadHashes: a report for an entry the hub keeps no hash of,
// or a hash that is not one, gets its error.
func TestStaleAndBadHashes(t *testing.T) {
	h := newHarness(t, Config{HashEvery: 1000})
	a := h.join("A", Editor)
	for i := 0; i < 3; i++ {
		h.cmd(a, "declare queue q"+string(rune('0'+i)))
	}
	h.refused(a, Inbound{Type: InHash, Seq: 2, Hash: FormatHash(1)}, KeyStaleHash)
	h.refused(a, Inbound{Type: InHash, Seq: 3, Hash: "xyz"}, KeyBadHash)
	h.send(a, Inbound{Type: InHash, Seq: 3, Hash: FormatHash(a.replica.Hash())})
	if len(h.last.Messages) != 0 {
		t.Fatalf("an honest report of the latest entry: %+v", h.last.Messages)
	}
}

// TestHashKeepsUp: the hub keeps a bounded number of hashes.
func TestHashKeepsUp(t *testing.T) {
	h := newHarness(t, Config{HashEvery: 1})
	a := h.join("A", Editor)
	for i := 0; i < 3*keptHashes; i++ {
		h.nowMs += 1000
		h.cmd(a, fmt.Sprintf("declare queue q%d", i))
		if len(h.s.hashes) > keptHashes {
			t.Fatalf("%d hashes kept", len(h.s.hashes))
		}
	}
	h.send(a, Inbound{Type: InHash, Seq: h.s.Seq() - 1, Hash: FormatHash(h.s.hashNow())})
	if m := h.last.Messages; len(m) != 1 || m[0].Msg.Error.Key != KeyDivergence {
		t.Fatalf("the latest hash reported for the entry before: %+v", m)
	}
	h.refused(a, Inbound{Type: InHash, Seq: 1, Hash: FormatHash(1)}, KeyStaleHash)
}
