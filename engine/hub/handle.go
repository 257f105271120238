package hub

import (
	"encoding/json"
	"strconv"
)

// maxMessageOverhead bounds an inbound message beyond its command line: its
// other fields are short.
const maxMessageOverhead = 1024

// DecodeInbound reads a participant's message, checking its size before
// reading it. A driver reads the first message of a page this way: a
// join, whose Name it passes to Join.
func (s *Session) DecodeInbound(data []byte) (Inbound, error) {
	var in Inbound
	if limit := s.cfg.MaxLineBytes + maxMessageOverhead; len(data) > limit {
		return in, NewError(KeyMessageSize, "max", strconv.Itoa(limit), "bytes", strconv.Itoa(len(data)))
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, NewError(KeyBadMessage, "detail", err.Error())
	}
	return in, nil
}

// Handle takes a message from a joined participant's page, as the
// protocol defines it, and does what it asks: Command, Clock or
// ReportHash. A message it cannot read or does not know gets an error
// message to the participant.
func (s *Session) Handle(nowMs int64, id ParticipantID, data []byte) {
	in, err := s.DecodeInbound(data)
	if err != nil {
		s.refuse(id, "", err)
		return
	}
	switch in.Type {
	case InCommand:
		s.Command(nowMs, id, in.Ref, in.Line)
	case InClock:
		s.Clock(nowMs, id, in.Ref, ClockRequest{Mode: ClockMode(in.Mode), AdvanceMs: in.AdvanceMs, Step: in.Step})
	case InHash:
		s.ReportHash(nowMs, id, in.Ref, in.Seq, in.Hash)
	case InPing:
		// Nothing to do: see InPing.
	case InJoin:
		s.refuse(id, in.Ref, NewError(KeyJoinedTwice))
	default:
		s.refuse(id, in.Ref, NewError(KeyUnknownType, "type", quote(in.Type)))
	}
}
