package hub

import (
	"strconv"

	"warren/engine/script"
)

// MaxSeedLines bounds the lines a new session may start from.
const MaxSeedLines = 2000

// Seed runs lines on a new session's broker before anyone joins: the
// playground's Share live carries the page's log this way, so that the
// session starts where the page was. Each line that changes the broker is
// an entry of origin server with the line, as if typed; a line's script
// error or AMQP exception is part of the replay, as in the page. The
// seed's channels close at the end: the session starts with the page's
// exchanges, queues, bindings, policies and messages (unacked ones back
// in their queues), not with consumers that no one in it owns.
//
// Seed checks every line first and runs none if one is refused: more than
// MaxSeedLines, a line longer than Config.MaxLineBytes or that does not
// parse (KeySeedLine, with its number and the reason), or a time verb on
// a clock that is not manual.
func (s *Session) Seed(nowMs int64, lines []string) error {
	if s.ended != nil {
		return NewError(KeyEnded)
	}
	if len(lines) > MaxSeedLines {
		return NewError(KeySeedTooLong, "lines", strconv.Itoa(len(lines)), "max", strconv.Itoa(MaxSeedLines))
	}
	for i, line := range lines {
		n := strconv.Itoa(i + 1)
		if len(line) > s.cfg.MaxLineBytes {
			return NewError(KeySeedLine, "n", n, "reason", NewError(KeyLineTooLong, "max", strconv.Itoa(s.cfg.MaxLineBytes), "bytes", strconv.Itoa(len(line))).Error())
		}
		c, err := script.Parse(line)
		if err != nil {
			return NewError(KeySeedLine, "n", n, "reason", err.Error())
		}
		if err := script.RefusedOnShared(c); err != nil {
			return NewError(KeySeedLine, "n", n, "reason", err.Error())
		}
		if c != nil && movesTime(c) && s.clock.mode != Manual {
			return NewError(KeySeedLine, "n", n, "reason", NewError(KeyClockNotManual, "mode", string(s.clock.mode)).Error())
		}
	}
	r := script.NewOn(s.b)
	r.MaxTraceBytes = s.cfg.MaxOutputBytes
	r.MaxSteps = maxRunSteps
	s.activeMs = nowMs
	for _, line := range lines {
		c, _ := script.Parse(line)
		if c == nil {
			continue
		}
		s.catchUp(nowMs)
		r.ExecCommand(c)
		s.commit(Origin{Kind: OriginServer, Line: line}, r.LineEvents(), true, nil, "")
	}
	for _, c := range r.Connections() {
		s.b.CloseConnection(c)
	}
	s.commit(Origin{Kind: OriginServer}, nil, false, nil, "")
	return nil
}
