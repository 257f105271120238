package netwatch

import (
	"testing"
	"time"
)

// TestWatchNudgesAfterEvery: a goroutine that keeps working nudges once
// every Every, counted from its last park or nudge, and several busy
// goroutines share one nudge per half of Every.
func TestWatchNudgesAfterEvery(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var a, b Watch
	steps := []struct {
		w    *Watch
		at   time.Duration
		park bool
		want bool
	}{
		{&a, 0, false, false},                        // first sight: its clock starts
		{&a, Every - time.Microsecond, false, false}, // not yet
		{&a, Every, false, true},                     // Every without parking
		{&b, 0, false, false},
		{&b, Every + Every/4, false, false}, // due, but a nudged a quarter of Every ago
		{&a, Every + Every/2, false, false}, // a's clock restarted at its nudge
		{&a, 3 * Every, true, false},        // a parked: its clock restarts
		{&a, 3*Every + Every/2, false, false},
		{&a, 4 * Every, false, true},
	}
	for i, s := range steps {
		now := t0.Add(s.at)
		if s.park {
			s.w.Parked(now)
			continue
		}
		if got := s.w.Working(now); got != s.want {
			t.Errorf("step %d (at %v): nudged %v, want %v", i, s.at, got, s.want)
		}
	}
}
