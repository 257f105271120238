package hub

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"warren/engine"
)

// TestEntryJSON pins the wire shape of an entry: records are base64
// strings, the hash 16 hex digits, and a page decoding them applies
// exactly the session's commands.
func TestEntryJSON(t *testing.T) {
	h := newHarness(t, Config{HashEvery: 1})
	a := h.join("A", Editor)
	h.cmd(a, "declare queue q")
	r := h.s.Ready() // nothing pending: pump took it
	if len(r.Messages) != 0 {
		t.Fatal("Ready kept messages after a pump")
	}
	h.send(a, Inbound{Type: InCommand, Line: "publish q hi"})
	var entry *Message
	for _, m := range h.last.Messages {
		if m.Msg.Type == OutEntry {
			entry = m.Msg
		}
	}
	data, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Type  string `json:"type"`
		Entry struct {
			Seq     uint64
			Origin  map[string]any
			Records []string
			NowMs   int64
			Hash    string
		}
	}
	if err := json.Unmarshal(data, &wire); err != nil {
		t.Fatal(err)
	}
	if wire.Type != "entry" || wire.Entry.Seq != 2 || wire.Entry.Origin["kind"] != "participant" || wire.Entry.Origin["line"] != "publish q hi" || len(wire.Entry.Hash) != 16 {
		t.Fatalf("wire entry %s", data)
	}
	rec, err := base64.StdEncoding.DecodeString(wire.Entry.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.DecodeCommand(rec)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := c.(engine.CmdBasicPublish); !ok || string(p.Publish.Body) != "hi" {
		t.Fatalf("record decodes to %#v", c)
	}
}

// TestProtocolErrors: what a page may get wrong.
func TestProtocolErrors(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("A", Editor)
	h.refused(a, Inbound{Type: "dance"}, KeyUnknownType)
	h.refused(a, Inbound{Type: InJoin, Name: "A"}, KeyJoinedTwice)
	// A ping is no mistake: it gets nothing back, and changes nothing.
	before := len(a.messages)
	h.s.Handle(h.nowMs, a.id, []byte(`{"type":"ping"}`))
	h.pump()
	if len(a.messages) != before {
		t.Fatalf("a ping got %+v", a.messages[before:])
	}
	h.s.Handle(h.nowMs, a.id, []byte(`{"type":`))
	h.pump()
	if m := a.messages[len(a.messages)-1]; m.Type != OutError || m.Error.Key != KeyBadMessage || !strings.HasPrefix(m.Error.Text, "cannot read the message: ") {
		t.Fatalf("bad JSON: %+v", m.Error)
	}
	// A driver that calls for a participant who left gets the error back
	// addressed to that id, which it drops.
	h.s.Command(h.nowMs, 42, "r", "declare queue q")
	r := h.s.Ready()
	if len(r.Messages) != 1 || r.Messages[0].To != 42 || r.Messages[0].Msg.Error.Key != KeyNotJoined {
		t.Fatalf("a command from no one: %+v", r.Messages)
	}
	in, err := h.s.DecodeInbound([]byte(`{"type":"join","name":"Zoë"}`))
	if err != nil || in.Type != InJoin || in.Name != "Zoë" {
		t.Fatalf("DecodeInbound: %+v %v", in, err)
	}
}

// TestWelcome: the welcome carries everything a page needs to start.
func TestWelcome(t *testing.T) {
	h := newHarness(t, Config{Clock: Live})
	a := h.join("A", Editor)
	w := a.messages[0]
	if w.Type != OutWelcome || w.You.Name != "A" || w.Clock != Live || w.Snapshot == nil || w.Presence == nil || w.Limits.IdleMs != DefaultIdleMs {
		t.Fatalf("welcome %+v", w)
	}
}
