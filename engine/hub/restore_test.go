package hub

import (
	"encoding/json"
	"fmt"
	"testing"

	"warren/engine"
)

// stored is what a driver keeps of a session (a Durable Object's
// storage): the snapshot and entries as JSON, as they would be written,
// and the State.
type stored struct {
	snap  []byte
	state State
}

func store(t *testing.T, s *Session) stored {
	t.Helper()
	data, err := json.Marshal(s.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	return stored{data, s.State()}
}

func (st stored) restore(t *testing.T, cfg Config, nowMs int64) *Session {
	t.Helper()
	var snap Snapshot
	if err := json.Unmarshal(st.snap, &snap); err != nil {
		t.Fatal(err)
	}
	s, err := Restore(cfg, &snap, st.state, nowMs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRestoreContinuesTheSession: a session stored (snapshot, entries,
// state) and restored is the same broker with the same participants (and
// their script contexts), less its AMQP clients' connections; a
// participant the driver lets go leaves as usual (the message her
// consumer held is back in its queue); the log goes on from the next
// number, and a page that joins the restored session replicates it.
// Participant ids are not reused.
func TestRestoreContinuesTheSession(t *testing.T) {
	cfg := Config{SnapshotEvery: 8, HashEvery: 4}
	h := newHarness(t, cfg)
	ada := h.join("Ada", Editor)
	h.cmd(ada, "declare queue jobs")
	for i := range 10 { // past SnapshotEvery: a snapshot and a tail
		h.cmd(ada, fmt.Sprintf("publish jobs job-%d", i))
	}
	h.cmd(ada, "consume jobs prefetch=1")
	c := h.amqp("amqp-1", engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "session-x", Name: "pika"}})[0].Conn
	h.amqp("amqp-1", engine.CmdOpenChannel{Conn: c, Num: 1},
		engine.CmdQueueDeclare{Channel: engine.ChannelID{Conn: c, Num: 1}, Declare: engine.QueueDeclare{Queue: "from-amqp"}})
	if n := queueReady(t, h.s.b, "jobs"); n != 9 {
		t.Fatalf("jobs holds %d ready before the restore", n)
	}
	seq := h.s.Seq()
	st := store(t, h.s)

	r := st.restore(t, cfg, h.nowMs+1000)
	if r.Seq() != seq+1 {
		t.Fatalf("the restored log is at %d, want %d (one entry closing the AMQP client's connection)", r.Seq(), seq+1)
	}
	// Ada is back with her script context, her consumer still holding a
	// message, until the driver finds her socket gone and lets her go.
	if pr := r.Presence(); len(pr.Participants) != 1 || pr.Participants[0].Name != "Ada" || len(pr.Connections) != 0 {
		t.Fatalf("presence after the restore: %+v", pr)
	}
	if n := queueReady(t, r.b, "jobs"); n != 9 {
		t.Fatalf("after the restore jobs holds %d ready, want 9: Ada's consumer holds one", n)
	}
	r.Leave(h.nowMs+1000, ada.id)
	if n := queueReady(t, r.b, "jobs"); n != 10 {
		t.Fatalf("after Ada left jobs holds %d ready, want all 10: her unacked one is back", n)
	}
	if qs := r.b.QueueSummaries("/", []string{"from-amqp"}); len(qs) != 1 {
		t.Fatal("the AMQP client's queue is gone")
	}
	if refs := r.b.ConnectionRefs(); len(refs) != 0 && len(refs[0]) != 0 {
		t.Fatalf("connections survived the restore: %v", refs)
	}
	entry := r.Ready().Entries
	if len(entry) != 2 || entry[0].Origin.Kind != OriginServer || entry[0].Origin.Line != "restore" || entry[1].Origin.Kind != OriginLeave {
		t.Fatalf("the restore's and the leave's entries: %+v", entry)
	}

	// The session goes on: a page joins the restored session, Bo runs a
	// line, and the page's replica equals the session.
	h2 := &harness{t: t, nowMs: h.nowMs + 1000, pages: map[ParticipantID]*page{}, s: r}
	bo := h2.join("Bo", Editor)
	if bo.id <= ada.id {
		t.Fatalf("Bo got id %d after Ada's %d: ids are reused across a restore", bo.id, ada.id)
	}
	h2.cmd(bo, "publish jobs after")
	h2.inSync()
	if n := queueReady(t, bo.replica.B, "jobs"); n != 11 {
		t.Fatalf("Bo's replica holds %d in jobs", n)
	}
}

// TestRestoreLiveClockCatchesUp: a live session stored with a message
// whose TTL runs out while nobody is there (the Durable Object asleep)
// finds it expired and dead-lettered when restored later: its clock is
// the wall clock, and the time that passed is the broker's too.
func TestRestoreLiveClockCatchesUp(t *testing.T) {
	cfg := Config{Clock: Live}
	h := newHarness(t, cfg)
	ada := h.join("Ada", Editor)
	h.cmd(ada, "declare queue dead")
	h.cmd(ada, "declare queue jobs ttl=5s dlx= dlrk=dead")
	h.nowMs += 2000
	h.cmd(ada, "publish jobs hello")
	st := store(t, h.s)
	if st.state.Clock != Live || st.state.LiveWallMs != startMs {
		t.Fatalf("the stored state %+v", st.state)
	}
	wake, ok := h.s.NextWakeMs()
	if !ok || wake != h.nowMs+5000 {
		t.Fatalf("the alarm would be at %d, want the TTL's %d", wake, h.nowMs+5000)
	}

	r := st.restore(t, cfg, wake)
	if n := queueReady(t, r.b, "dead"); n != 1 {
		t.Fatalf("restored at the TTL's time, dead holds %d", n)
	}
	if got := r.b.Now(); got != 7000 {
		t.Fatalf("the broker's clock after the restore: %d, want 7000 (2s + the 5s TTL)", got)
	}
	// Restored earlier, the message still waits.
	if r := st.restore(t, cfg, wake-1); queueReady(t, r.b, "jobs") != 1 {
		t.Fatal("restored before the TTL ran out, the message is gone")
	}
}

// TestRestoreRefusesDamage: a stored log that does not restore is an
// error, not a different session.
func TestRestoreRefusesDamage(t *testing.T) {
	h := newHarness(t, Config{SnapshotEvery: 100})
	ada := h.join("Ada", Editor)
	h.cmd(ada, "declare queue q")
	h.cmd(ada, "publish q x")
	snap := h.s.Snapshot()
	gap := *snap
	gap.Entries = gap.Entries[1:]
	if _, err := Restore(Config{}, &gap, h.s.State(), h.nowMs); err == nil {
		t.Error("a log with a gap restored")
	}
	bad := *snap
	bad.State = []byte("not a snapshot")
	if _, err := Restore(Config{}, &bad, h.s.State(), h.nowMs); err == nil {
		t.Error("a damaged snapshot restored")
	}
	if _, err := Restore(Config{}, snap, State{Clock: "fast"}, h.nowMs); err == nil {
		t.Error("an unknown clock mode restored")
	}
}
