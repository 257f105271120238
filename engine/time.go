package engine

import "strconv"

// Time is virtual time in milliseconds. The engine never reads a clock: the
// caller passes time in with AdvanceTo, so the same inputs give the same
// outputs natively, in the browser and in tests.
type Time int64

// Never is a deadline that does not arrive.
const Never Time = 1<<63 - 1

// MaxTime is the latest the engine's clock reads: AdvanceTo, Settle and
// Step never move it further, whatever a driver asks. Why a bound: every
// deadline is the clock plus an offset (a TTL or x-expires of at most ten
// years, a delay of at most 2³² ms), and every timestamp that leaves the
// engine is Config.EpochMs plus the clock, so an unbounded clock wraps
// int64 and a 5 s TTL expires at once (issue 26). 2⁵² ms (about 142,000
// years) keeps the clock, its deadlines and EpochMs plus both inside the
// integers a JavaScript number holds exactly (2⁵³) and a JavaScript
// Date's range (8.64·10¹⁵ ms), where the playground shows them.
const MaxTime Time = 1 << 52

// MaxAdvanceMs bounds one move of the clock by hand: a hundred years of
// 365 days, far beyond any TTL (ten years at most) yet small enough that
// no single request leaps to MaxTime. Every surface that moves a clock by
// a number it was given checks it with AdvanceTarget.
const MaxAdvanceMs int64 = 100 * 365 * 24 * 3600 * 1000

// AdvanceTarget returns the time a move of ms from now reaches, and false
// when the move is refused: ms outside 0 to MaxAdvanceMs, or a target past
// MaxTime. Checking before moving, never wrapping, is why it exists: a
// driver must not compute now+ms itself.
func AdvanceTarget(now Time, ms int64) (Time, bool) {
	if ms < 0 || ms > MaxAdvanceMs || now < 0 || now > MaxTime || ms > int64(MaxTime-now) {
		return now, false
	}
	return now + Time(ms), true
}

// FormatDuration renders milliseconds the way the script language reads
// them: "0s", "250ms", "6s", "1.5s", "2m30s", "1h".
func FormatDuration(ms int64) string {
	if ms == 0 {
		return "0s"
	}
	neg := ms < 0
	if neg {
		ms = -ms
	}
	var s string
	switch {
	case ms < 1000:
		s = strconv.FormatInt(ms, 10) + "ms"
	default:
		h := ms / 3_600_000
		m := ms / 60_000 % 60
		secMs := ms % 60_000
		if h > 0 {
			s += strconv.FormatInt(h, 10) + "h"
		}
		if m > 0 {
			s += strconv.FormatInt(m, 10) + "m"
		}
		if secMs > 0 {
			sec := strconv.FormatInt(secMs/1000, 10)
			if frac := secMs % 1000; frac > 0 {
				f := strconv.FormatInt(frac+1000, 10)[1:]
				for f[len(f)-1] == '0' {
					f = f[:len(f)-1]
				}
				sec += "." + f
			}
			s += sec + "s"
		}
	}
	if neg {
		return "-" + s
	}
	return s
}
