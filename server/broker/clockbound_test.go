package broker

import (
	"errors"
	"testing"
	"testing/synctest"

	"warren/engine"
)

// TestAdvanceBound: the server's clock (POST /api/clock, warren ctl
// advance) moves at most 100 years at a time and stops short of
// engine.MaxTime, refusing the move that would pass it with
// ErrClockRange, on a manual clock and a live one; nothing moves on a
// refusal (issue 26: engine time must never wrap).
func TestAdvanceBound(t *testing.T) {
	for _, mode := range []ClockMode{ClockManual, ClockLive} {
		synctest.Test(t, func(t *testing.T) {
			b := StartWith(engine.Config{}, Options{Clock: mode})
			defer b.Stop()
			for _, ms := range []int64{-1, engine.MaxAdvanceMs + 1, 9223372036854775000} {
				if _, err := b.Advance(ms); !errors.Is(err, ErrClockRange) {
					t.Fatalf("%s: Advance(%d): %v, want ErrClockRange", mode, ms, err)
				}
			}
			var st ClockState
			var err error
			moves := int64(engine.MaxTime) / engine.MaxAdvanceMs
			for range moves {
				if st, err = b.Advance(engine.MaxAdvanceMs); err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
			}
			if _, err := b.Advance(engine.MaxAdvanceMs); !errors.Is(err, ErrClockRange) {
				t.Fatalf("%s: the move past MaxTime: %v", mode, err)
			}
			after, err := b.Clock()
			if err != nil || after.Now != st.Now || after.Now < engine.Time(moves*engine.MaxAdvanceMs) || after.Now > engine.MaxTime {
				t.Fatalf("%s: the clock at %d after a refusal, was %d (%v)", mode, after.Now, st.Now, err)
			}
		})
	}
}
