package store

import (
	"testing"
	"time"
)

// TestRawBetStopsAfterASlowSync: raw write+syncs are taken until one
// lasts longer than rawSlow; then none for rawPause after it ended.
func TestRawBetStopsAfterASlowSync(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var b rawBet
	steps := []struct {
		at   time.Duration // the sync's start, from t0
		took time.Duration // how long it lasted, when taken
		want bool          // taken raw
	}{
		{0, 100 * time.Microsecond, true},
		{time.Millisecond, rawSlow, true}, // as slow as allowed
		{3 * time.Millisecond, 5 * time.Millisecond, true},
		{8 * time.Millisecond, 0, false},                            // just after the slow one ended
		{8*time.Millisecond + rawPause - time.Nanosecond, 0, false}, // still off
		{8*time.Millisecond + rawPause, 50 * time.Microsecond, true},
		{9*time.Millisecond + rawPause, 50 * time.Microsecond, true},
	}
	for i, s := range steps {
		start := t0.Add(s.at)
		got := b.take(start)
		if got != s.want {
			t.Fatalf("step %d at %v: take = %v, want %v", i, s.at, got, s.want)
		}
		if got {
			b.took(start, s.took)
		}
	}
}
