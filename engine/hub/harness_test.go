package hub

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"warren/engine"
)

// harness drives a session with in-memory pages on virtual wall time:
// every message the session sends goes through JSON, as over a socket,
// and each page keeps a Replica from its welcome and entries.
type harness struct {
	t     *testing.T
	s     *Session
	nowMs int64
	pages map[ParticipantID]*page
	refs  int
	// last is what the last pump took, for tests that look at the events
	// or divergences.
	last Ready
	// history, when a test sets it, keeps every pump's entries, as a
	// driver does.
	history *History
}

// page is one participant's browser.
type page struct {
	id       ParticipantID
	name     string
	replica  *Replica
	entries  []Entry
	messages []Message
	presence *Presence
	ended    *ErrorInfo
}

const startMs = 1_700_000_000_000

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, nowMs: startMs, pages: map[ParticipantID]*page{}}
	h.s = New(cfg, h.nowMs)
	h.pump()
	return h
}

// pump takes the session's Ready and delivers each message to its page.
func (h *harness) pump() Ready {
	h.t.Helper()
	r := h.s.Ready()
	for _, o := range r.Messages {
		p := h.pages[o.To]
		if p == nil {
			h.t.Fatalf("message %s to participant %d, who has no page", o.Msg.Type, o.To)
		}
		data, err := json.Marshal(o.Msg)
		if err != nil {
			h.t.Fatal(err)
		}
		var m Message
		if err := json.Unmarshal(data, &m); err != nil {
			h.t.Fatal(err)
		}
		p.messages = append(p.messages, m)
		switch m.Type {
		case OutWelcome:
			rep, _, err := NewReplica(m.Snapshot, m.Clock)
			if err != nil {
				h.t.Fatalf("%s: replica from the welcome: %v", p.name, err)
			}
			p.replica, p.presence = rep, m.Presence
		case OutEntry:
			if _, err := p.replica.Apply(m.Entry); err != nil {
				h.t.Fatalf("%s: %v", p.name, err)
			}
			p.entries = append(p.entries, *m.Entry)
		case OutPresence:
			p.presence = m.Presence
		case OutEnded:
			p.ended = m.Error
		}
	}
	h.last = r
	if h.history != nil {
		h.history.Add(h.s, r.Entries)
	}
	return r
}

// join joins a page and pumps.
func (h *harness) join(name string, role Role) *page {
	h.t.Helper()
	id, err := h.s.Join(h.nowMs, name, role)
	if err != nil {
		h.t.Fatalf("join %s: %v", name, err)
	}
	p := &page{id: id, name: name}
	h.pages[id] = p
	h.pump()
	if p.replica == nil {
		h.t.Fatalf("%s got no welcome", name)
	}
	return p
}

// send sends an inbound message as its page would, as JSON, and returns
// the reply that carries its ref (a result or an error).
func (h *harness) send(p *page, in Inbound) Message {
	h.t.Helper()
	h.refs++
	in.Ref = "r" + strconv.Itoa(h.refs)
	data, err := json.Marshal(in)
	if err != nil {
		h.t.Fatal(err)
	}
	before := len(p.messages)
	h.s.Handle(h.nowMs, p.id, data)
	h.pump()
	for _, m := range p.messages[before:] {
		if m.Ref == in.Ref {
			return m
		}
	}
	if in.Type == InHash {
		return Message{} // an honest report has no reply
	}
	h.t.Fatalf("%s: no reply to %+v", p.name, in)
	return Message{}
}

// cmd runs a line for p and fails the test unless it ran.
func (h *harness) cmd(p *page, line string) *Result {
	h.t.Helper()
	m := h.send(p, Inbound{Type: InCommand, Line: line})
	if m.Type != OutResult {
		h.t.Fatalf("%s: %q: %s %+v", p.name, line, m.Type, m.Error)
	}
	if m.Result.Error != nil {
		h.t.Fatalf("%s: %q: %s", p.name, line, m.Result.Error.Text)
	}
	return m.Result
}

// refused sends in for p and checks that the hub refused it with key.
func (h *harness) refused(p *page, in Inbound, key string) {
	h.t.Helper()
	seq := h.s.Seq()
	m := h.send(p, in)
	if m.Type != OutError || m.Error.Key != key {
		h.t.Fatalf("%s: %+v: got %s %+v, want error %s", p.name, in, m.Type, m.Error, key)
	}
	if m.Error.Text == "" || m.Error.Text != (&Error{Key: m.Error.Key, Args: m.Error.Args}).Error() {
		h.t.Fatalf("error text %q does not render its key", m.Error.Text)
	}
	if h.s.Seq() != seq {
		h.t.Fatalf("a refused message made entry %d", h.s.Seq())
	}
}

// inSync checks that every page's replica is at the session's last entry
// with the same state, byte for byte.
func (h *harness) inSync() {
	h.t.Helper()
	want := h.s.b.Save()
	for _, p := range h.pages {
		if p.ended != nil || p.replica == nil {
			continue
		}
		if p.replica.Seq != h.s.Seq() {
			h.t.Fatalf("%s is at entry %d, the session at %d", p.name, p.replica.Seq, h.s.Seq())
		}
		if got := p.replica.B.Save(); !bytes.Equal(got, want) {
			h.t.Fatalf("%s's replica differs from the session's broker (%d bytes vs %d)", p.name, len(got), len(want))
		}
		if p.replica.Mode != h.s.Mode() {
			h.t.Fatalf("%s's clock is %s, the session's %s", p.name, p.replica.Mode, h.s.Mode())
		}
	}
}

// queueReady returns how many messages queue name holds ready on a broker.
func queueReady(t *testing.T, b *engine.Broker, name string) int {
	t.Helper()
	qs := b.QueueSummaries("/", []string{name})
	if len(qs) != 1 || qs[0].Name != name {
		t.Fatalf("no queue %s", name)
	}
	return qs[0].ReadyCount
}
