package hub

import (
	"fmt"
	"slices"

	"warren/engine"
	"warren/engine/script"
)

// A driver whose memory can go while its session lives on (a Durable
// Object evicted or woken by an alarm) keeps the session in storage and
// restores it before it handles anything: the log (a snapshot and the
// entries after it, as Ready hands them out), and the little State the
// log does not say. There is no second mechanism: Restore loads the
// snapshot with engine.Load and applies the entries' own records, as a
// page's Replica does.

// State is what a driver keeps besides the log to restore a session: the
// clock's mode and, for a live clock, where the broker's time stood
// against the wall clock when it went live; and the next participant's
// id, so that ids are never reused across a restore (the history names
// participants by them). It changes only with an entry that switches the
// clock, and with joins: a driver stores it when it differs from the one
// it stored.
type State struct {
	Clock           ClockMode     `json:"clock"`
	LiveWallMs      int64         `json:"liveWallMs,omitempty"`
	LiveEngineMs    int64         `json:"liveEngineMs,omitempty"`
	NextParticipant ParticipantID `json:"nextParticipant"`
	// Participants are who is in the session and their script contexts,
	// for a driver whose sockets outlive its memory (a Durable Object's
	// hibernating WebSockets): Restore brings them back, and the driver
	// lets go (Leave) of those whose sockets did not survive.
	Participants []ParticipantState `json:"participants,omitempty"`
}

// ParticipantState is one participant of a State.
type ParticipantState struct {
	Participant
	Runner script.Context `json:"runner"`
}

// State returns the session's State, to store beside its log. It changes
// with the clock's mode, with joins and leaves, and with a participant's
// script context (a line that opens a channel, a delivery "ack last"
// would ack): a driver compares it with the one it stored.
func (s *Session) State() State {
	st := State{Clock: s.clock.mode, NextParticipant: s.nextID}
	if s.clock.mode == Live {
		st.LiveWallMs, st.LiveEngineMs = s.clock.liveWallMs, int64(s.clock.liveEngineMs)
	}
	for _, p := range s.parts {
		st.Participants = append(st.Participants, ParticipantState{Participant: p.Participant, Runner: p.runner.Context()})
	}
	return st
}

// SnapshotSeq returns the entry the hub's latest snapshot is of: when it
// changes, a driver that stores the log stores the new snapshot.
func (s *Session) SnapshotSeq() uint64 { return s.snap.Seq }

// Snapshot returns what a restore (or a joiner) starts from: the hub's
// latest snapshot and the entries after it. A driver that stores it may
// drop the entries it stored before it.
func (s *Session) Snapshot() *Snapshot { return s.snapshot() }

// Restore rebuilds a session from what its driver stored: snap (the
// state after entry snap.Seq, and the entries after it, in order) and st,
// at wall time nowMs. The session continues the log where it stopped.
//
// The participants st names are back, with their script contexts, for a
// driver whose pages' sockets outlived its memory (hibernation): it calls
// Leave for each whose socket did not. AMQP connections lived in the
// memory that went, and so did the participants of an st without them:
// the broker connections nobody is back for are closed, as if each had
// left (consumers cancelled, unacknowledged messages back in their
// queues), in one entry of origin server. A live clock then
// catches up with the wall clock: a TTL that ran out while nobody was
// there fires now, as it would have then. An error means the stored log
// does not restore (a snapshot that does not load, an entry out of
// order or that does not decode): a bug or damaged storage, for the
// driver to report rather than serve a session that is not the one its
// pages saw.
func Restore(cfg Config, snap *Snapshot, st State, nowMs int64) (*Session, error) {
	cfg.setDefaults()
	if !validMode(st.Clock) {
		return nil, fmt.Errorf("hub: restore: unknown clock mode %q", st.Clock)
	}
	rep, _, err := NewReplica(snap, st.Clock)
	if err != nil {
		return nil, fmt.Errorf("hub: restore: %w", err)
	}
	s := &Session{cfg: cfg, b: rep.B, seq: rep.Seq, nextID: max(st.NextParticipant, 1), activeMs: nowMs}
	s.snap = Snapshot{Seq: snap.Seq, State: snap.State}
	s.tail = append([]Entry(nil), snap.Entries...)
	s.keepHash(snap.Seq, hashBytes(snap.State))
	s.bucket = newBucket(cfg.SessionRate, cfg.SessionBurst, nowMs)
	s.clock = clockState{mode: st.Clock, liveWallMs: st.LiveWallMs, liveEngineMs: engine.Time(st.LiveEngineMs)}
	// The replica gave back the session's RecordCommands (the snapshot
	// keeps its configuration) and drained what it applied.
	kept := map[engine.ConnID]bool{}
	for _, ps := range st.Participants {
		p := &participant{Participant: ps.Participant, runner: script.NewOnContext(s.b, ps.Runner), bucket: newBucket(cfg.ParticipantRate, cfg.ParticipantBurst, nowMs)}
		p.runner.MaxTraceBytes = cfg.MaxOutputBytes
		p.runner.MaxSteps = maxRunSteps
		s.parts = append(s.parts, p)
		for _, c := range p.runner.Connections() {
			kept[c] = true
		}
	}
	var open []engine.ConnID
	for _, chunk := range s.b.ConnectionRefs() {
		for _, c := range chunk {
			if !kept[c.ID] {
				open = append(open, c.ID)
			}
		}
	}
	slices.Sort(open)
	for _, id := range open {
		s.b.CloseConnection(id)
	}
	s.commit(Origin{Kind: OriginServer, Line: "restore"}, nil, false, nil, "")
	s.catchUp(nowMs)
	return s, nil
}
