package broker

import (
	"errors"
	"fmt"
	"time"

	"warren/engine"
)

// ClockMode says what moves the engine's clock (issue 11, "a clock a test
// controls").
//
//	mode    engine time                         advance / step
//	live    wall clock + offset (the default)   jump ahead, then keep running
//	paused  stands still                        refused (ErrClockPaused)
//	manual  stands still                        move it, firing what falls due
//
// In live mode engine time is the milliseconds of wall clock since the
// engine's epoch plus an offset. The offset starts at 0 (or at what keeps
// a restored broker's clock from going back), grows by every advance made
// in live mode, and is set when the clock goes live again so that engine
// time continues from where paused or manual mode left it: time never
// moves backwards, and never jumps over the time the clock stood still.
//
// The mode is not stored in the data directory: the --clock flag decides
// at every start. A broker restored in paused or manual mode keeps the
// engine time it had (it does not jump over the downtime); in live mode
// it does, as before.
type ClockMode uint8

// The clock modes.
const (
	ClockLive ClockMode = iota
	ClockPaused
	ClockManual
)

func (m ClockMode) String() string {
	switch m {
	case ClockPaused:
		return "paused"
	case ClockManual:
		return "manual"
	}
	return "live"
}

// ParseClockMode reads "live", "paused" or "manual".
func ParseClockMode(s string) (ClockMode, error) {
	switch s {
	case "live":
		return ClockLive, nil
	case "paused":
		return ClockPaused, nil
	case "manual":
		return ClockManual, nil
	}
	return 0, fmt.Errorf("unknown clock mode %q (use live, paused or manual)", s)
}

// ErrClockPaused refuses to move a paused clock.
var ErrClockPaused = errors.New("the clock is paused: set the mode to manual to move it by hand, or to live to resume it")

// MaxAdvanceMs bounds one advance: engine.MaxAdvanceMs (a hundred years),
// the bound every surface that moves a clock shares.
const MaxAdvanceMs = engine.MaxAdvanceMs

// ErrClockRange refuses a move of more than MaxAdvanceMs, or past
// engine.MaxTime: engine time never wraps (issue 26).
var ErrClockRange = errors.New("the clock moves forward by 0 to " + engine.FormatDuration(MaxAdvanceMs) + " at a time, and never past " + engine.FormatDuration(int64(engine.MaxTime)))

// ClockState is what GET /api/clock reports.
type ClockState struct {
	Mode    ClockMode
	Now     engine.Time // engine time, milliseconds since EpochMs
	EpochMs int64       // the engine's epoch, Unix milliseconds
	// Next is when the next timer fires, when HasNext.
	Next    engine.Time
	HasNext bool
	// PendingTimers counts the armed timers (message TTLs, leases,
	// delayed messages, consumer timeouts, backlog continuations).
	PendingTimers int
}

// clock is the broker's clock state, owned by whoever holds the broker's lock.
type clock struct {
	mode ClockMode
	// offsetMs is added to wall time in live mode.
	offsetMs int64
	// target is where the clock is moving in paused and manual mode;
	// Now once it is there.
	target engine.Time
	// waiters are the clock requests to answer once the clock has
	// reached their target and nothing is due.
	waiters []clockWaiter
}

type clockWaiter struct {
	target engine.Time
	done   chan ClockState
}

// wallMs is the wall clock in milliseconds since the engine's epoch.
func (b *Broker) wallMs() int64 { return int64(b.now().Sub(b.start) / time.Millisecond) }

// startClock sets the mode a broker starts in. A restored broker whose
// engine time is ahead of the wall clock (it was advanced by hand) keeps
// its time in live mode too.
func (b *Broker) startClock(mode ClockMode) {
	b.clk.mode = mode
	b.clk.offsetMs = max(0, int64(b.eng.Now())-b.wallMs())
	b.clk.target = b.eng.Now()
}

// clockTarget is the time the loop advances the engine to next: the wall
// clock in live mode; in paused and manual mode the next deadline on the
// way to the target, so that a long advance over many timers fires them
// one deadline per turn and serves other requests in between.
func (b *Broker) clockTarget() engine.Time {
	if b.clk.mode == ClockLive {
		return b.engineNow()
	}
	t := max(b.clk.target, b.eng.Now())
	if at, ok := b.eng.NextDeadline(); ok && at < t {
		t = max(at, b.eng.Now())
	}
	return t
}

// clockBehind reports whether a paused or manual clock has not yet reached
// its target.
func (b *Broker) clockBehind() bool {
	return b.clk.mode != ClockLive && b.eng.Now() < b.clk.target
}

// releaseClock answers the clock requests whose target the clock has
// reached; the loop calls it when nothing is due.
func (b *Broker) releaseClock() {
	if len(b.clk.waiters) == 0 {
		return
	}
	st := b.clockState()
	n := 0
	for _, w := range b.clk.waiters {
		if w.target <= b.eng.Now() {
			w.done <- st
			continue
		}
		b.clk.waiters[n] = w
		n++
	}
	clear(b.clk.waiters[n:])
	b.clk.waiters = b.clk.waiters[:n]
}

func (b *Broker) clockState() ClockState {
	st := ClockState{Mode: b.clk.mode, Now: b.eng.Now(), EpochMs: b.eng.Config().EpochMs}
	st.Next, st.HasNext = b.eng.NextDeadline()
	_, st.PendingTimers = b.eng.TimersUntil(engine.Never, 1)
	return st
}

// Clock reports the clock's state.
func (b *Broker) Clock() (ClockState, error) {
	var st ClockState
	err := b.own(func() { st = b.clockState() })
	return st, err
}

// clockRequest runs f under the broker's lock to move the clock or switch
// its mode; f returns the engine time to wait for. The request returns
// once the clock has reached it and the engine has fired everything due
// by then and dispatched its events, the loop serving other requests
// meanwhile.
func (b *Broker) clockRequest(f func() (engine.Time, error)) (ClockState, error) {
	done := make(chan ClockState, 1)
	var ferr error
	err := b.own(func() {
		var target engine.Time
		if target, ferr = f(); ferr == nil {
			b.clk.waiters = append(b.clk.waiters, clockWaiter{target: target, done: done})
		}
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return ClockState{}, err
	}
	select {
	case st := <-done:
		return st, nil
	case <-b.done:
		return ClockState{}, ErrStopped
	}
}

// advanceBy moves the clock's target ms forward, under the broker's lock,
// and returns it.
func (b *Broker) advanceBy(ms int64) (engine.Time, error) {
	switch b.clk.mode {
	case ClockPaused:
		return 0, ErrClockPaused
	case ClockLive:
		if _, ok := engine.AdvanceTarget(b.engineNow(), ms); !ok {
			return 0, fmt.Errorf("%w, not %s from %s", ErrClockRange, engine.FormatDuration(ms), engine.FormatDuration(int64(b.engineNow())))
		}
		b.clk.offsetMs += ms
		return b.engineNow(), nil
	}
	from := max(b.clk.target, b.eng.Now())
	to, ok := engine.AdvanceTarget(from, ms)
	if !ok {
		return 0, fmt.Errorf("%w, not %s from %s", ErrClockRange, engine.FormatDuration(ms), engine.FormatDuration(int64(from)))
	}
	b.clk.target = to
	return b.clk.target, nil
}

// Advance moves the clock forward by ms milliseconds and returns once
// every timer due by then has fired and its events are dispatched. In live
// mode the clock then keeps running from there; a paused clock refuses.
func (b *Broker) Advance(ms int64) (ClockState, error) {
	if ms < 0 || ms > MaxAdvanceMs {
		return ClockState{}, fmt.Errorf("%w, not %s", ErrClockRange, engine.FormatDuration(ms))
	}
	return b.clockRequest(func() (engine.Time, error) { return b.advanceBy(ms) })
}

// StepClock moves the clock to the next timer's deadline, as Advance does,
// and reports whether there was one (a clock with no timer stays put).
func (b *Broker) StepClock() (st ClockState, stepped bool, err error) {
	st, err = b.clockRequest(func() (engine.Time, error) {
		if b.clk.mode == ClockPaused {
			return 0, ErrClockPaused
		}
		from := b.engineNow()
		at, ok := b.eng.NextDeadline()
		if !ok {
			return from, nil
		}
		stepped = true
		return b.advanceBy(max(0, int64(at-from)))
	})
	return st, stepped, err
}

// SetClockMode switches the clock's mode and returns once nothing is due.
// Going live keeps engine time where it is (or where an advance under way
// is taking it) and lets it run with the wall clock from there; leaving
// live mode stops it at the current wall-clock time. An advance under way
// finishes whatever the new mode.
func (b *Broker) SetClockMode(mode ClockMode) (ClockState, error) {
	return b.clockRequest(func() (engine.Time, error) {
		switch {
		case mode == b.clk.mode:
		case mode == ClockLive:
			b.clk.offsetMs = int64(max(b.clk.target, b.eng.Now())) - b.wallMs()
		case b.clk.mode == ClockLive:
			b.clk.target = b.engineNow()
		}
		b.clk.mode = mode
		return b.engineNow(), nil
	})
}
