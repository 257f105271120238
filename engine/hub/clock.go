package hub

import (
	"strconv"

	"warren/engine"
)

// ClockMode is how a session's clock moves.
type ClockMode string

// The clock modes.
const (
	// Live follows the wall clock: the driver calls Tick, and each tick
	// that moves the broker's time is an entry.
	Live ClockMode = "live"
	// Paused holds the clock: TTLs, delays, leases and consumer timeouts
	// wait.
	Paused ClockMode = "paused"
	// Manual moves the clock only when an editor steps or advances it.
	Manual ClockMode = "manual"
)

func validMode(m ClockMode) bool { return m == Live || m == Paused || m == Manual }

// clockState is the mode and, in live mode, where the broker's time
// stood against the wall clock when it went live.
type clockState struct {
	mode         ClockMode
	liveWallMs   int64
	liveEngineMs engine.Time
}

func (c *clockState) set(m ClockMode, nowMs int64, engineNow engine.Time) {
	c.mode, c.liveWallMs, c.liveEngineMs = m, nowMs, engineNow
}

// Mode returns the clock mode.
func (s *Session) Mode() ClockMode { return s.clock.mode }

// catchUp moves a live clock to the wall time nowMs: an entry of origin
// clock when anything was due or time moved.
func (s *Session) catchUp(nowMs int64) {
	if s.clock.mode != Live {
		return
	}
	target := s.clock.liveEngineMs + engine.Time(nowMs-s.clock.liveWallMs)
	if target < s.b.Now() {
		// The wall clock went back (a driver's clock is not monotonic
		// across restarts): the broker's never does.
		target = s.b.Now()
	}
	s.b.Settle(target)
	s.commit(Origin{Kind: OriginClock}, nil, false, nil, "")
}

// Tick is the driver's timer: it moves a live clock to nowMs, and ends a
// session idle for Config.IdleMs. Call it at NextWakeMs, or more often;
// an early call does no harm.
func (s *Session) Tick(nowMs int64) {
	if s.ended != nil {
		return
	}
	if nowMs-s.activeMs >= s.cfg.IdleMs {
		s.end(NewError(KeyIdle, "idle", engine.FormatDuration(s.cfg.IdleMs)))
		return
	}
	s.catchUp(nowMs)
}

// NextWakeMs returns the wall time at which the driver must call Tick
// next: the idle expiry, or, on a live clock, the broker's next timer if
// sooner. It reports false for an ended session.
func (s *Session) NextWakeMs() (int64, bool) {
	if s.ended != nil {
		return 0, false
	}
	wake := s.activeMs + s.cfg.IdleMs
	if s.clock.mode == Live {
		if t, ok := s.b.NextDeadline(); ok {
			at := s.clock.liveWallMs + int64(t-s.clock.liveEngineMs)
			wake = min(wake, at)
		}
	}
	return wake, true
}

// SetClock switches the clock mode for the server itself (its API, a
// test's control): an entry everyone sees, of origin server. It does
// nothing for the mode in force.
func (s *Session) SetClock(nowMs int64, mode ClockMode) error {
	if s.ended != nil {
		return NewError(KeyEnded)
	}
	if !validMode(mode) {
		return NewError(KeyBadClockMode, "mode", quote(string(mode)))
	}
	s.switchMode(nowMs, mode, Origin{Kind: OriginServer, Line: "clock " + string(mode)})
	return nil
}

// switchMode makes mode the clock's; leaving live, the broker's time
// first catches up with the wall clock.
func (s *Session) switchMode(nowMs int64, mode ClockMode, origin Origin) uint64 {
	if mode == s.clock.mode {
		return 0
	}
	s.catchUp(nowMs)
	s.clock.set(mode, nowMs, s.b.Now())
	return s.commit(origin, nil, false, nil, mode)
}

// Advance moves a manual clock for the server itself (warren ctl advance,
// POST /api/clock): by ms, or to the next timer when ms is 0. It is an
// entry of origin server.
func (s *Session) Advance(nowMs int64, ms int64) error {
	if s.ended != nil {
		return NewError(KeyEnded)
	}
	if s.clock.mode != Manual {
		return NewError(KeyClockNotManual, "mode", string(s.clock.mode))
	}
	line := "step"
	if ms > 0 {
		to, err := s.advanceTarget(ms)
		if err != nil {
			return err
		}
		line = "advance " + engine.FormatDuration(ms)
		s.b.Settle(to)
	} else if t, ok := s.b.Step(); ok {
		s.b.Settle(t)
	}
	s.commit(Origin{Kind: OriginServer, Line: line}, nil, false, nil, "")
	return nil
}

// advanceTarget is where a move of ms takes the broker's clock, or the
// KeyClockRange error for a move of more than engine.MaxAdvanceMs or past
// engine.MaxTime (or a negative one): every move a participant or the
// server asks for is checked here, before anything moves, so that engine
// time never wraps (issue 26).
func (s *Session) advanceTarget(ms int64) (engine.Time, error) {
	now := s.b.Now()
	to, ok := engine.AdvanceTarget(now, ms)
	if !ok {
		return now, NewError(KeyClockRange, "max", engine.FormatDuration(engine.MaxAdvanceMs), "end", engine.FormatDuration(int64(engine.MaxTime)),
			"advance", strconv.FormatInt(ms, 10)+"ms", "now", engine.FormatDuration(int64(now)))
	}
	return to, nil
}
