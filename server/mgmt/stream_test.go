package mgmt

import (
	"testing"
	"time"
)

// TestPacerRestsAsLongAsItWorked drives a pacer on a clock of its own:
// pieces of 0.3 ms of work, and a rest of the work's length once a
// millisecond has gone by since the last rest, so a stream's encoder
// takes at most about half of a CPU however long its reply.
func TestPacerRestsAsLongAsItWorked(t *testing.T) {
	clock := time.Unix(0, 0)
	var rests []time.Duration
	p := pacer{
		now:   func() time.Time { return clock },
		sleep: func(d time.Duration) { rests = append(rests, d); clock = clock.Add(d) },
		since: clock,
	}
	const piece = 300 * time.Microsecond
	var worked time.Duration
	for range 100 {
		clock = clock.Add(piece)
		worked += piece
		if got := p.piece(); !got.Equal(clock) {
			t.Fatalf("piece returned %v, the clock is at %v", got, clock)
		}
	}
	var rested time.Duration
	for i, d := range rests {
		if d != 4*piece {
			t.Errorf("rest %d: %v, want %v (the four pieces worked since the last)", i, d, 4*piece)
		}
		rested += d
	}
	if len(rests) != 25 || worked-rested >= paceWork {
		t.Errorf("%d rests, %v in all, for %v of work: want 25, within %v of it", len(rests), rested, worked, paceWork)
	}
}
