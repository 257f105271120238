package hub

import (
	"strconv"

	"warren/engine"
	"warren/engine/script"
)

// Command runs a participant's script line on the session's broker,
// through the participant's own runner (their channel names, current
// channel and "ack last"). A line that changed the broker is an entry
// everyone gets, with the line as its origin; the participant gets a
// result (Ref is theirs, to match it), or an error when the hub refused
// the line: read-only participant, rate limit, line too long, a time
// verb (advance, step, run, restart DOWNTIME) on a clock that is not
// manual, a publish past the session's bytes. A read-only participant's
// lines are all refused, show and expect included: its page runs those on
// its own replica.
func (s *Session) Command(nowMs int64, id ParticipantID, ref, line string) {
	p, err := s.editor(nowMs, id)
	if err == nil && len(line) > s.cfg.MaxLineBytes {
		err = NewError(KeyLineTooLong, "max", strconv.Itoa(s.cfg.MaxLineBytes), "bytes", strconv.Itoa(len(line)))
	}
	if err != nil {
		s.refuse(id, ref, err)
		return
	}
	s.run(nowMs, p, ref, line)
}

// run runs a line for an editor who passed editor's checks.
func (s *Session) run(nowMs int64, p *participant, ref, line string) {
	c, err := script.Parse(line)
	if err != nil || c == nil {
		res := &Result{}
		if err != nil {
			res.Error = info(err)
		}
		s.send(p.ID, &Message{Type: OutResult, Ref: ref, Result: res})
		return
	}
	if movesTime(c) && s.clock.mode != Manual {
		s.refuse(p.ID, ref, NewError(KeyClockNotManual, "mode", string(s.clock.mode)))
		return
	}
	if c.Verb == "publish" {
		if err := s.AllowPublish(); err != nil {
			s.refuse(p.ID, ref, err)
			return
		}
	}
	s.catchUp(nowMs)
	out, runErr := p.runner.ExecCommand(c)
	seq := s.commit(Origin{Kind: OriginParticipant, Participant: p.ID, Name: p.Name, Line: line}, p.runner.LineEvents(), true, p, "")
	res := &Result{Seq: seq, Output: out, Truncated: p.runner.TraceCut()}
	if runErr != nil {
		res.Error = info(runErr)
	}
	s.send(p.ID, &Message{Type: OutResult, Ref: ref, Result: res})
}

// movesTime reports whether a parsed line moves the broker's clock.
func movesTime(c *script.Command) bool {
	switch c.Verb {
	case "advance", "step", "run":
		return true
	case "restart":
		return len(c.Args) > 0
	}
	return false
}

// ClockRequest is a participant's clock message: exactly one of Mode
// (switch the mode), AdvanceMs (move a manual clock on by that much) and
// Step (move a manual clock to the next timer and fire what is due).
type ClockRequest struct {
	Mode      ClockMode
	AdvanceMs int64
	Step      bool
}

// Clock handles a participant's clock message. Moves are the script
// lines "advance 30s" and "step", run as Command runs them; a mode switch
// is an entry with Clock set and the line "clock MODE". Read-only
// participants are refused, as for commands.
func (s *Session) Clock(nowMs int64, id ParticipantID, ref string, req ClockRequest) {
	set := 0
	for _, b := range []bool{req.Mode != "", req.AdvanceMs != 0, req.Step} {
		if b {
			set++
		}
	}
	p, err := s.editor(nowMs, id)
	switch {
	case err != nil:
	case set != 1 || req.AdvanceMs < 0:
		err = NewError(KeyBadClockRequest)
	case req.Mode != "" && !validMode(req.Mode):
		err = NewError(KeyBadClockMode, "mode", quote(string(req.Mode)))
	case req.AdvanceMs > 0:
		_, err = s.advanceTarget(req.AdvanceMs)
	}
	if err != nil {
		s.refuse(id, ref, err)
		return
	}
	switch {
	case req.AdvanceMs > 0:
		s.run(nowMs, p, ref, "advance "+engine.FormatDuration(req.AdvanceMs))
	case req.Step:
		s.run(nowMs, p, ref, "step")
	default:
		line := "clock " + string(req.Mode)
		seq := s.switchMode(nowMs, req.Mode, Origin{Kind: OriginParticipant, Participant: p.ID, Name: p.Name, Line: line})
		s.send(p.ID, &Message{Type: OutResult, Ref: ref, Result: &Result{Seq: seq}})
	}
}

// editor returns the participant id if it may run a command now: the
// session runs, it is an editor, and both its and the session's rate
// limits have a token. It counts as activity for the idle expiry.
func (s *Session) editor(nowMs int64, id ParticipantID) (*participant, error) {
	if s.ended != nil {
		return nil, NewError(KeyEnded)
	}
	p := s.find(id)
	if p == nil {
		return nil, NewError(KeyNotJoined, "id", strconv.FormatUint(uint64(id), 10))
	}
	if p.Role != Editor {
		return nil, NewError(KeyReadOnly, "name", p.Name)
	}
	if !p.bucket.take(nowMs) {
		return nil, NewError(KeyRateLimited, "rate", strconv.Itoa(s.cfg.ParticipantRate), "burst", strconv.Itoa(s.cfg.ParticipantBurst))
	}
	if !s.bucket.take(nowMs) {
		p.bucket.give()
		return nil, NewError(KeySessionRateLimited, "rate", strconv.Itoa(s.cfg.SessionRate), "burst", strconv.Itoa(s.cfg.SessionBurst))
	}
	s.activeMs = nowMs
	return p, nil
}

// refuse tells participant id that the hub refused its message ref.
func (s *Session) refuse(id ParticipantID, ref string, err error) {
	s.send(id, &Message{Type: OutError, Ref: ref, Error: info(err)})
}

// AllowPublish reports whether the session takes another publish: nil,
// or the KeySessionBytes error while its queues hold Config.MaxBytes of
// messages or more. A driver checks it before applying an AMQP client's
// basic.publish, and refuses the publish as its policy says (RabbitMQ
// would block the publisher, or close the channel with 406).
func (s *Session) AllowPublish() error {
	if n := s.b.MessageTotals().All().Bytes; n >= s.cfg.MaxBytes {
		return NewError(KeySessionBytes, "bytes", strconv.FormatInt(n, 10), "max", strconv.FormatInt(s.cfg.MaxBytes, 10))
	}
	return nil
}

// Apply applies what a real AMQP client did, as commands: the driver's
// connection.open, basic.publish, basic.ack ... in order, stopping after
// the first whose result has an error (the commands after it were made
// for a channel it has closed), and appends each applied command's result
// to res. Whatever the broker recorded becomes one entry of origin,
// usually {Kind: OriginAMQP, Connection: id}; the events are in
// Ready.Events for the driver to hand to its connections. Apply counts as
// activity for the idle expiry; it is not rate limited (the driver applies
// AMQP flow control). On an ended session nothing is applied and Apply
// returns the KeyEnded error.
func (s *Session) Apply(nowMs int64, origin Origin, cmds []engine.Command, res []engine.Result) ([]engine.Result, error) {
	if s.ended != nil {
		return res, NewError(KeyEnded)
	}
	s.catchUp(nowMs)
	s.activeMs = nowMs
	for _, c := range cmds {
		r := s.b.Apply(c)
		res = append(res, r)
		if r.Err != nil {
			break
		}
	}
	s.commit(origin, nil, false, nil, "")
	return res, nil
}

// ReportHash takes a participant's state hash after entry seq. A hash
// that differs from the session's gets the KeyDivergence error, and the
// participant's first such report is in Ready.Divergences for the driver
// to log as that participant's claim (see Divergence). A seq the hub no
// longer has a hash for gets KeyStaleHash. An honest report gets no
// reply.
func (s *Session) ReportHash(nowMs int64, id ParticipantID, ref string, seq uint64, hash string) {
	p := s.find(id)
	switch {
	case s.ended != nil:
		s.refuse(id, ref, NewError(KeyEnded))
		return
	case p == nil:
		return
	}
	got, ok := parseHash(hash)
	if !ok {
		s.refuse(id, ref, NewError(KeyBadHash, "hash", quote(hash)))
		return
	}
	if seq == s.seq {
		s.hashNow()
	}
	want, ok := s.hashAt(seq)
	if !ok {
		from, to := s.hashes[0].seq, s.hashes[len(s.hashes)-1].seq
		s.refuse(id, ref, NewError(KeyStaleHash, "seq", strconv.FormatUint(seq, 10), "from", strconv.FormatUint(from, 10), "to", strconv.FormatUint(to, 10)))
		return
	}
	if got != want {
		if !p.differed {
			p.differed = true
			s.ready.Divergences = append(s.ready.Divergences, Divergence{Participant: p.Participant, Seq: seq, Got: got, Want: want})
		}
		s.refuse(id, ref, NewError(KeyDivergence, "seq", strconv.FormatUint(seq, 10), "got", formatHash(got), "want", formatHash(want)))
	}
}
