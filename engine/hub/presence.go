package hub

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"warren/engine/script"
)

// MaxNameRunes bounds a participant's name.
const MaxNameRunes = 40

// maxRunSteps bounds the timers one "run" line steps through: each step
// is a record every page applies, so a session allows fewer than the
// offline playground.
const maxRunSteps = 10_000

// Join adds a participant with a name and a role (the driver knows the
// role from the link the page came by) and returns its id. The new
// participant gets a welcome message (the snapshot to replicate from,
// presence, the clock mode and the limits); everyone else a presence
// message. It fails with a hub *Error: the session is full or ended, or
// the name or role is bad.
func (s *Session) Join(nowMs int64, name string, role Role) (ParticipantID, error) {
	if s.ended != nil {
		return 0, NewError(KeyEnded)
	}
	if role != Editor && role != ReadOnly {
		return 0, NewError(KeyBadRole, "role", quote(string(role)))
	}
	if !validName(name) {
		return 0, NewError(KeyBadName, "max", strconv.Itoa(MaxNameRunes), "name", quote(name))
	}
	if len(s.parts) >= s.cfg.MaxParticipants {
		return 0, NewError(KeySessionFull, "max", strconv.Itoa(s.cfg.MaxParticipants))
	}
	s.catchUp(nowMs)
	s.activeMs = nowMs
	r := script.NewOn(s.b)
	r.MaxTraceBytes = s.cfg.MaxOutputBytes
	r.MaxSteps = maxRunSteps
	p := &participant{
		Participant: Participant{ID: s.nextID, Name: name, Role: role},
		runner:      r,
		bucket:      newBucket(s.cfg.ParticipantRate, s.cfg.ParticipantBurst, nowMs),
	}
	s.nextID++
	s.parts = append(s.parts, p)
	you := p.Participant
	lim := s.Limits()
	w := &Message{Type: OutWelcome, You: &you, Snapshot: s.snapshot(), Presence: s.presence(), Clock: s.clock.mode, Limits: &lim}
	if role == Editor {
		w.AMQP = s.cfg.AMQP
	}
	s.send(p.ID, w)
	s.presenceChanged(p.ID)
	return p.ID, nil
}

// validName reports whether a name is 1 to MaxNameRunes printable
// characters.
func validName(name string) bool {
	n := utf8.RuneCountInString(name)
	if n == 0 || n > MaxNameRunes || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Leave removes a participant (its socket closed). The connections its
// commands opened close, as a client's do when it goes (their unacked
// messages return to their queues): an entry of origin leave. Everyone
// left gets a presence message. An unknown id is ignored: a driver may
// call Leave for a page that never joined.
func (s *Session) Leave(nowMs int64, id ParticipantID) {
	p := s.find(id)
	if p == nil {
		return
	}
	for i, q := range s.parts {
		if q == p {
			s.parts = append(s.parts[:i], s.parts[i+1:]...)
			break
		}
	}
	if s.ended != nil {
		return
	}
	s.catchUp(nowMs)
	for _, c := range p.runner.Connections() {
		s.b.CloseConnection(c)
	}
	s.commit(Origin{Kind: OriginLeave, Participant: p.ID, Name: p.Name}, nil, false, nil, "")
	s.presenceChanged(0)
}

// ConnectionOpened registers a real AMQP client's connection for
// presence. The driver calls it once the connection is open (its
// connection.open applied through Apply).
func (s *Session) ConnectionOpened(c Connection) {
	if s.ended != nil {
		return
	}
	s.conns = append(s.conns, c)
	s.presenceChanged(0)
}

// ConnectionClosed removes an AMQP connection from presence.
func (s *Session) ConnectionClosed(id string) {
	for i, c := range s.conns {
		if c.ID == id {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			if s.ended == nil {
				s.presenceChanged(0)
			}
			return
		}
	}
}

// Presence returns who is in the session.
func (s *Session) Presence() Presence { return *s.presence() }

func (s *Session) presence() *Presence {
	p := &Presence{Participants: make([]Participant, len(s.parts)), Connections: append([]Connection{}, s.conns...)}
	for i, q := range s.parts {
		p.Participants[i] = q.Participant
	}
	return p
}

// presenceChanged tells every participant but except (the joiner, whose
// welcome says it) who is here.
func (s *Session) presenceChanged(except ParticipantID) {
	m := &Message{Type: OutPresence, Presence: s.presence()}
	for _, p := range s.parts {
		if p.ID != except {
			s.send(p.ID, m)
		}
	}
}

// End ends the session for the server (shutdown, or closed by its
// owner): every participant gets an "ended" message with the reason,
// KeyShutdown or KeyClosed, and every later input the KeyEnded error.
func (s *Session) End(reason string) {
	if reason != KeyShutdown && reason != KeyClosed {
		panic("hub: End with reason " + reason) // programmer error
	}
	if s.ended == nil {
		s.end(NewError(reason))
	}
}

func (s *Session) end(reason *Error) {
	s.ended = reason
	s.ready.Ended = reason
	s.broadcast(&Message{Type: OutEnded, Error: info(reason)})
}

// quote is how an error shows a value someone sent: in double quotes,
// escaped as Go does.
func quote(v string) string { return strconv.Quote(v) }
