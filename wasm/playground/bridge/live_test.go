package bridge_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"warren/engine/hub"
	"warren/wasm/playground/bridge"
)

// liveHub is a shared session driven in memory, as the server drives it:
// every message for a participant is encoded to JSON and kept for it.
type liveHub struct {
	t     *testing.T
	s     *hub.Session
	nowMs int64
	inbox map[hub.ParticipantID][]map[string]json.RawMessage
}

func newLiveHub(t *testing.T) *liveHub {
	return &liveHub{t: t, s: hub.New(hub.Config{}, 0), inbox: map[hub.ParticipantID][]map[string]json.RawMessage{}}
}

func (h *liveHub) deliver() {
	h.t.Helper()
	for _, o := range h.s.Ready().Messages {
		b, err := json.Marshal(o.Msg)
		if err != nil {
			h.t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			h.t.Fatal(err)
		}
		h.inbox[o.To] = append(h.inbox[o.To], m)
	}
}

func (h *liveHub) join(name string, role hub.Role) hub.ParticipantID {
	h.t.Helper()
	id, err := h.s.Join(h.nowMs, name, role)
	if err != nil {
		h.t.Fatal(err)
	}
	h.deliver()
	return id
}

func (h *liveHub) command(id hub.ParticipantID, line string) {
	h.t.Helper()
	h.nowMs += 10
	h.s.Command(h.nowMs, id, "r", line)
	h.deliver()
}

// take returns and forgets id's messages.
func (h *liveHub) take(id hub.ParticipantID) []map[string]json.RawMessage {
	ms := h.inbox[id]
	h.inbox[id] = nil
	return ms
}

func msgType(m map[string]json.RawMessage) string {
	var s string
	json.Unmarshal(m["type"], &s)
	return s
}

// page is a participant's page: a bridge session that replicates the hub
// through Call with the messages' JSON text, as the page's JavaScript does.
type page struct {
	t *testing.T
	s *bridge.Session
}

func (p *page) receive(ms []map[string]json.RawMessage) []bridge.LiveResult {
	p.t.Helper()
	var out []bridge.LiveResult
	for _, m := range ms {
		var raw string
		switch msgType(m) {
		case "welcome":
			var mode string
			json.Unmarshal(m["clock"], &mode)
			raw = p.s.Call("liveStart", []any{string(m["snapshot"]), mode})
		case "entry":
			raw = p.s.Call("liveApply", []any{string(m["entry"])})
		default:
			continue
		}
		var r bridge.LiveResult
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			p.t.Fatal(err)
		}
		if r.Error != "" {
			p.t.Fatalf("%s: %s", msgType(m), r.Error)
		}
		out = append(out, r)
	}
	return out
}

func (p *page) hash() bridge.LiveHash {
	p.t.Helper()
	var h bridge.LiveHash
	if err := json.Unmarshal([]byte(p.s.Call("liveHash", nil)), &h); err != nil || h.Hash == "" {
		p.t.Fatalf("liveHash: %v %+v", err, h)
	}
	return h
}

func TestLiveReplica(t *testing.T) {
	h := newLiveHub(t)
	ada := h.join("Ada", hub.Editor)
	pa := &page{t, bridge.New()}
	start := pa.receive(h.take(ada))
	if len(start) != 1 || start[0].Seq != 0 || start[0].Clock != "manual" || start[0].Hash != hub.FormatHash(hub.HashState(h.s.Broker())) {
		t.Fatalf("liveStart: %+v", start)
	}
	bo := h.join("Bo", hub.Editor)
	pb := &page{t, bridge.New()}
	pb.receive(h.take(bo))
	h.take(ada) // presence

	h.command(ada, "declare exchange orders topic")
	h.command(ada, "declare queue jobs ttl=5s dlx=dead")
	h.command(ada, "declare queue dead")
	h.command(ada, "declare exchange dead fanout")
	h.command(ada, "bind dead dead")
	h.command(ada, "bind jobs orders eu.#")
	h.command(ada, "publish orders eu.paris hello")
	adaMsgs := h.take(ada)
	var results []hub.Result
	for _, m := range adaMsgs {
		if msgType(m) == "result" {
			var r hub.Result
			json.Unmarshal(m["result"], &r)
			results = append(results, r)
		}
	}
	got := pa.receive(adaMsgs)
	pb.receive(h.take(bo))
	if len(got) != 7 || len(results) != 7 {
		t.Fatalf("Ada's page applied %d entries and got %d results", len(got), len(results))
	}
	for i, r := range got {
		// The page renders another participant's entry as the sender's
		// runner traced it.
		if r.Output != results[i].Output {
			t.Errorf("entry %d: output\n%s\nwant the sender's\n%s", r.Seq, r.Output, results[i].Output)
		}
		if r.Logged || r.Line == "" {
			t.Errorf("entry %d: logged %v, line %q", r.Seq, r.Logged, r.Line)
		}
	}
	pub := got[6]
	if pub.Line != "publish orders eu.paris hello" || len(pub.Events) != 2 || pub.Events[0].Kind != "published" || pub.Events[0].Channel != "app" ||
		pub.Events[1].Kind != "enqueued" || pub.Events[1].Queue != "jobs" || pub.Events[1].Via == nil || pub.Events[1].ExpiresAt == nil || *pub.Events[1].ExpiresAt != 5000 {
		t.Fatalf("publish: %+v", pub)
	}
	if !strings.Contains(pub.Events[0].Trace, "ch=app") {
		t.Errorf("the trace names the channel by its script name: %s", pub.Events[0].Trace)
	}

	// Bo steps: the TTL fires in both replicas.
	h.command(bo, "step")
	stepA := pa.receive(h.take(ada))
	pb.receive(h.take(bo))
	if len(stepA) != 1 || stepA[0].Now != 5000 || len(stepA[0].Events) == 0 || stepA[0].Events[len(stepA[0].Events)-1].Queue != "dead" {
		t.Fatalf("step on Ada's page: %+v", stepA)
	}
	want := hub.FormatHash(hub.HashState(h.s.Broker()))
	if ha, hb := pa.hash(), pb.hash(); ha.Hash != want || hb.Hash != want || ha.Seq != h.s.Seq() || hb.Seq != h.s.Seq() {
		t.Fatalf("hashes: Ada %+v, Bo %+v, the session's %s at %d", ha, hb, want, h.s.Seq())
	}
	if !reflect.DeepEqual(pa.s.Snapshot(), pb.s.Snapshot()) {
		t.Fatal("the two pages draw different snapshots")
	}

	// A channel error shows as the entry's AMQP error on every page.
	h.command(bo, "declare queue jobs ttl=9s")
	errB := pb.receive(h.take(bo))
	pa.receive(h.take(ada))
	if len(errB) != 1 || errB[0].AMQPError == nil || errB[0].AMQPError.Code != 406 || errB[0].AMQPError.Closed != "channel" {
		t.Fatalf("a failed declare: %+v", errB)
	}

	// A late joiner starts from the snapshot and the entries after it,
	// and draws what the others draw.
	cy := h.join("Cy", hub.ReadOnly)
	pc := &page{t, bridge.New()}
	late := pc.receive(h.take(cy))
	if len(late) != 1 || late[0].Seq != h.s.Seq() || late[0].Hash != want && late[0].Hash != hub.FormatHash(hub.HashState(h.s.Broker())) {
		t.Fatalf("late join: %+v", late)
	}
	if !reflect.DeepEqual(pc.s.Snapshot(), pa.s.Snapshot()) {
		t.Fatal("the late joiner draws another state")
	}
	if pc.s.Next() == nil && pa.s.Next() != nil {
		t.Fatal("the late joiner has lost a timer")
	}
}

func TestLiveHashEntries(t *testing.T) {
	h := newLiveHub(t)
	ada := h.join("Ada", hub.Editor)
	p := &page{t, bridge.New()}
	p.receive(h.take(ada))
	hashed := 0
	for i := 0; i < hub.DefaultHashEvery; i++ {
		h.command(ada, "publish amq.fanout x m")
		for _, r := range p.receive(h.take(ada)) {
			if r.Hash != "" {
				hashed++
				if r.Diverged || r.Seq != hub.DefaultHashEvery {
					t.Errorf("entry %d: hash %s, diverged %v", r.Seq, r.Hash, r.Diverged)
				}
			}
		}
	}
	if hashed != 1 {
		t.Fatalf("%d entries carried a hash, want 1", hashed)
	}
}

func TestLiveRefusals(t *testing.T) {
	h := newLiveHub(t)
	ada := h.join("Ada", hub.Editor)
	p := &page{t, bridge.New()}
	p.receive(h.take(ada))
	for _, r := range []bridge.Result{p.s.Exec("declare queue q"), p.s.AdvanceBy(1000), p.s.AdvanceTo(1000), p.s.Step()} {
		if !strings.Contains(r.Error, "shared session") || r.Logged {
			t.Errorf("a local line in a live session: %+v", r)
		}
	}
	if r := p.s.Replay([]string{"declare queue q"}, -1); !strings.Contains(r.Error, "shared session") {
		t.Errorf("replay in a live session: %+v", r)
	}
	if _, err := p.s.Check([]string{"expect queue q"}); err == nil {
		t.Error("check in a live session ran")
	}
	// An entry out of order loses the replica: the page rejoins.
	bad := p.s.LiveApply(`{"seq":5,"origin":{"kind":"clock"},"nowMs":0}`)
	if !strings.Contains(bad.Error, "gap") || bad.Seq != 0 {
		t.Errorf("an entry after a gap: %+v", bad)
	}
	if r := p.s.LiveApply(`{"seq":`); !strings.Contains(r.Error, "does not decode") {
		t.Errorf("a broken entry: %+v", r)
	}
	if r := p.s.LiveStart(`{"seq":0,"state":"AAAA"}`, "manual"); !strings.Contains(r.Error, "does not load") || !p.s.Live() {
		t.Errorf("a broken snapshot: %+v (live %v)", r, p.s.Live())
	}
	// Reset leaves the session.
	p.s.Reset()
	if p.s.Live() || p.s.Exec("declare queue q").Error != "" {
		t.Fatal("reset did not leave the shared session")
	}
	if r := p.s.LiveApply(`{"seq":1,"origin":{"kind":"clock"},"nowMs":0}`); !strings.Contains(r.Error, "liveStart first") {
		t.Errorf("liveApply outside a session: %+v", r)
	}
	if out := p.s.Call("liveHash", nil); !strings.Contains(out, "liveStart first") {
		t.Errorf("liveHash outside a session: %s", out)
	}
	if out := p.s.Call("liveStart", []any{"{}"}); !strings.Contains(out, "takes 2 arguments") {
		t.Errorf("liveStart with one argument: %s", out)
	}
}
