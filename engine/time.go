package engine

import "strconv"

// Time is virtual time in milliseconds. The engine never reads a clock: the
// caller passes time in with AdvanceTo, so the same inputs give the same
// outputs natively, in the browser and in tests.
type Time int64

// Never is a deadline that does not arrive.
const Never Time = 1<<63 - 1

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
