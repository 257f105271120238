package bridge

import (
	"encoding/json"
	"fmt"
	"strings"

	"warren/engine"
	"warren/engine/hub"
	"warren/engine/script"
)

// A page in a shared session (issue 11) is a replica: its broker is the
// session's, rebuilt from the welcome message's snapshot and then kept in
// step by applying every entry of the session's log (hub.Replica). Lines
// typed in the page run on the session's hub, not here; so while a
// session is live, Exec, the time moves, Replay and Check are refused,
// and Snapshot and Next show the replica. Reset leaves the session and
// starts over on a fresh broker.

// live is a session's replica and what naming its events needs.
type live struct {
	rep *hub.Replica
	// names are the script names of the replica's connections, from the
	// snapshot and then from each connection.opened event: the replica
	// runs no script, so no runner knows them. A closed connection keeps
	// its name, since its last events still name it.
	names connNames
	// printedAt is the time of the last "@TIME" line an entry's output
	// printed, as the runner's trace prints one when the time moved.
	printedAt engine.Time
}

// LiveResult is what LiveStart and LiveApply did: the entry's (or the
// snapshot's entries') events and output in a Result, as Exec's, so that
// the page renders them unchanged, and the replica's place in the log.
// Line is the entry's origin line (a participant's line, "advance 30s",
// "clock manual"), Logged is false: the page's own log is not the
// session's. AMQPError is the AMQP exception an entry's events show (a
// channel or connection closed with an error code), as Exec reports it
// for a line.
//
// Seq is the last entry applied and Clock the clock mode. Hash is the
// replica's state hash (16 hexadecimal digits, hub.FormatHash) when the
// entry carried the session's hash (every 32nd entry, by default) or on
// LiveStart, and Diverged says that the entry's hash differs from it: a
// bug, which the page shows and reports with the hash message. Error,
// with Seq unchanged, is an entry that could not be applied (a gap in
// the log, a record that does not decode): the replica is lost, and the
// page joins again.
type LiveResult struct {
	Result
	Seq      uint64 `json:"seq"`
	Clock    string `json:"clock"`
	Hash     string `json:"hash,omitempty"`
	Diverged bool   `json:"diverged,omitempty"`
}

// LiveHash is the replica's state hash after entry Seq.
type LiveHash struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// Live reports whether the session replicates a shared session.
func (s *Session) Live() bool { return s.live != nil }

// errLive refuses what only the session's hub may do while the page
// replicates it; it is a bug in the page, so it is said in English.
func (s *Session) errLive(what string) Result {
	return s.refused(what + ": the page replicates a shared session, whose lines run on the session's hub (reset leaves it)")
}

// LiveStart replaces the session with a replica of a shared session:
// snapshotJSON is the welcome message's snapshot (hub.Snapshot as JSON:
// state and records in base64) and mode its clock mode. The log starts
// empty. The result's events are those of the entries that came with the
// snapshot, within the same bounds as one Exec's.
func (s *Session) LiveStart(snapshotJSON, mode string) LiveResult {
	var snap hub.Snapshot
	if err := json.Unmarshal([]byte(snapshotJSON), &snap); err != nil {
		return LiveResult{Result: s.refused("liveStart: the snapshot does not decode: " + err.Error()), Seq: s.liveSeq()}
	}
	b, err := engine.Load(snap.State)
	if err != nil {
		return LiveResult{Result: s.refused("liveStart: the snapshot's state does not load: " + err.Error()), Seq: s.liveSeq()}
	}
	// Load keeps the session's RecordCommands: a replica logs nothing.
	b.DrainCommands(func([]byte) {})
	l := &live{rep: &hub.Replica{B: b, Seq: snap.Seq, Mode: hub.ClockMode(mode)}, names: namesOf(b.SnapshotLimit(1)), printedAt: b.Now()}
	res := LiveResult{Result: Result{Events: []Event{}}}
	bud := resultBudget()
	var out strings.Builder
	for i := range snap.Entries {
		evs, err := l.rep.Apply(&snap.Entries[i])
		if err != nil {
			return LiveResult{Result: s.refused("liveStart: " + err.Error()), Seq: s.liveSeq()}
		}
		l.render(&res.Result, &out, evs, bud)
	}
	s.r, s.log, s.live = script.NewOn(b), nil, l
	res.Output, res.OutputTruncated = bud.output(out.String())
	res.Now, res.Seq, res.Clock, res.Hash = s.Now(), l.rep.Seq, string(l.rep.Mode), hub.FormatHash(l.rep.Hash())
	return res
}

// LiveApply applies the next entry of the session's log (hub.Entry as
// JSON: records in base64).
func (s *Session) LiveApply(entryJSON string) LiveResult {
	if s.live == nil {
		return LiveResult{Result: s.refused("liveApply: the page replicates no shared session (liveStart first)")}
	}
	var e hub.Entry
	if err := json.Unmarshal([]byte(entryJSON), &e); err != nil {
		return LiveResult{Result: s.refused("liveApply: the entry does not decode: " + err.Error()), Seq: s.liveSeq(), Clock: string(s.live.rep.Mode)}
	}
	l := s.live
	evs, err := l.rep.Apply(&e)
	if err != nil {
		return LiveResult{Result: s.refused("liveApply: " + err.Error()), Seq: s.liveSeq(), Clock: string(l.rep.Mode)}
	}
	res := LiveResult{Result: Result{Line: e.Origin.Line, Events: []Event{}}, Seq: l.rep.Seq, Clock: string(l.rep.Mode)}
	bud := resultBudget()
	var out strings.Builder
	l.render(&res.Result, &out, evs, bud)
	res.Output, res.OutputTruncated = bud.output(out.String())
	res.Now = s.Now()
	if e.Hash != "" {
		res.Hash = hub.FormatHash(l.rep.Hash())
		res.Diverged = res.Hash != e.Hash
	}
	return res
}

// LiveHashNow returns the replica's state hash after its last entry.
func (s *Session) LiveHashNow() (LiveHash, error) {
	if s.live == nil {
		return LiveHash{}, fmt.Errorf("liveHash: the page replicates no shared session (liveStart first)")
	}
	return LiveHash{Seq: s.live.rep.Seq, Hash: hub.FormatHash(s.live.rep.Hash())}, nil
}

func (s *Session) liveSeq() uint64 {
	if s.live == nil {
		return 0
	}
	return s.live.rep.Seq
}

// render adds an entry's events to res and its trace lines to out, as
// the runner's trace prints them (an "@TIME" line when the time moved,
// channels by their script names), within the budget; it names new
// connections and notes the AMQP error that closed a channel or
// connection. The opening of connections and channels is left out, as
// the trace leaves it out.
func (l *live) render(res *Result, out *strings.Builder, evs []engine.Event, b *budget) {
	for _, e := range evs {
		if e.Kind == engine.EvConnectionOpened {
			l.names[e.Channel.Conn] = e.Name
		}
		if e.Code != 0 && e.Code != engine.ReplySuccess && (e.Kind == engine.EvChannelClosed || e.Kind == engine.EvConnectionClosed) {
			closed := "channel"
			if e.Kind == engine.EvConnectionClosed {
				closed = "connection"
			}
			if res.AMQPError == nil || closed == "connection" {
				res.AMQPError = &AMQPError{Code: e.Code, Text: e.Text, Closed: closed}
			}
		}
		if e.Kind == engine.EvConnectionOpened || e.Kind == engine.EvChannelOpened {
			continue
		}
		if !b.event() {
			res.EventsTruncated = true
			continue
		}
		ev := l.event(e)
		if e.Time != l.printedAt {
			fmt.Fprintf(out, "@%s\n", engine.FormatDuration(int64(e.Time)))
			l.printedAt = e.Time
		}
		out.WriteString(ev.Trace)
		out.WriteByte('\n')
		res.Events = append(res.Events, ev)
	}
}

// event converts an event as toEvent does for a runner's, naming its
// channel from the replica's connection names.
func (l *live) event(e engine.Event) Event {
	trace, channel := e.String(), ""
	if e.Channel.Conn != 0 {
		channel = l.names.channel(e.Channel)
		trace = strings.Replace(trace, " ch="+e.Channel.String(), " ch="+channel, 1)
	}
	return eventOf(e, trace, channel)
}
