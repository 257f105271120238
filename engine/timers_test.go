package engine_test

import (
	"fmt"
	"reflect"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// TestTimersUntilIsAPrefixOfTimers: the first n timers and the count that
// TimersUntil gives (without sorting them all) are those of the full,
// sorted list, ties included, for every n and cut-off time.
func TestTimersUntilIsAPrefixOfTimers(t *testing.T) {
	r := script.New(engine.Config{Seed: 1})
	lines := []string{"declare exchange later x-delayed-message delayed-type=fanout", "declare queue q", "bind q later"}
	for i := 0; i < 500; i++ {
		// Delays repeat (i%37), so many timers share a deadline.
		lines = append(lines, fmt.Sprintf("publish later k m%d delay=%d", i, 1000*(i%37)+1000))
	}
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("declare queue t%d ttl=%ds", i, i%5+1), fmt.Sprintf("publish t%d x", i))
	}
	for _, line := range lines {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	all := r.B.Timers()
	if len(all) != 520 {
		t.Fatalf("%d timers, want 520", len(all))
	}
	for _, at := range []engine.Time{0, 1000, 5000, 20000, engine.Never} {
		var due []engine.PendingTimer
		for _, p := range all {
			if p.At <= at {
				due = append(due, p)
			}
		}
		for _, n := range []int{0, 1, 2, 7, 100, 519, 520, 1000} {
			got, count := r.B.TimersUntil(at, n)
			want := due
			if n > 0 && len(want) > n {
				want = want[:n]
			}
			if count != len(due) || !reflect.DeepEqual(got, want) && len(want) > 0 {
				t.Errorf("TimersUntil(%d, %d): %d timers of %d, want the first %d of %d", at, n, len(got), count, len(want), len(due))
			}
		}
	}
}

// BenchmarkNextTimer: "what happens next" with 100,000 delayed messages
// held, which the playground asks every frame while time plays: the first
// timer by TimersUntil, against the full sorted list it used to take.
func BenchmarkNextTimer(b *testing.B) {
	r := script.New(engine.Config{Seed: 1})
	for _, line := range []string{"declare exchange later x-delayed-message delayed-type=fanout", "declare queue q", "bind q later", "publish later k m delay=60000 count=100000"} {
		if _, err := r.Exec(line); err != nil {
			b.Fatalf("%s: %v", line, err)
		}
	}
	b.Run("TimersUntil-1", func(b *testing.B) {
		for b.Loop() {
			if ts, n := r.B.TimersUntil(engine.Never, 1); len(ts) != 1 || n != 100000 {
				b.Fatalf("%d timers of %d", len(ts), n)
			}
		}
	})
	b.Run("Timers", func(b *testing.B) {
		for b.Loop() {
			if ts := r.B.Timers(); len(ts) != 100000 {
				b.Fatalf("%d timers", len(ts))
			}
		}
	})
}
