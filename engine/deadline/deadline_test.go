package deadline

import (
	"math/rand"
	"sort"
	"testing"
)

// TestOrder checks that timers pop in (deadline, arming order) order after a
// random mix of arms, re-arms and removals, against a sorted reference.
func TestOrder(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var h Heap[int]
		timers := make([]*Timer[int], 200)
		for i := range timers {
			timers[i] = &Timer[int]{Value: i}
		}
		for step := 0; step < 2000; step++ {
			tm := timers[rng.Intn(len(timers))]
			if rng.Intn(4) == 0 {
				h.Remove(tm)
			} else {
				h.Reset(tm, int64(rng.Intn(50)))
			}
		}
		var want []*Timer[int]
		for _, tm := range timers {
			if tm.Armed() {
				want = append(want, tm)
			}
		}
		sort.Slice(want, func(i, j int) bool {
			if want[i].At != want[j].At {
				return want[i].At < want[j].At
			}
			return want[i].seq < want[j].seq
		})
		if h.Len() != len(want) {
			t.Fatalf("seed %d: len %d, want %d", seed, h.Len(), len(want))
		}
		for i, w := range want {
			got := h.Pop()
			if got != w {
				t.Fatalf("seed %d: pop %d got timer %d@%d, want %d@%d", seed, i, got.Value, got.At, w.Value, w.At)
			}
			if got.Armed() {
				t.Fatalf("popped timer still armed")
			}
		}
		if h.Pop() != nil {
			t.Fatal("heap not empty")
		}
	}
}

// BenchmarkResetPop shows the O(log n) cost of the heap at 10^3..10^6 timers.
func BenchmarkResetPop(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		b.Run(itoa(n), func(b *testing.B) {
			var h Heap[int]
			ts := make([]Timer[int], n)
			rng := rand.New(rand.NewSource(1))
			for i := range ts {
				h.Reset(&ts[i], rng.Int63n(1<<40))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := h.Pop()
				h.Reset(t, t.At+rng.Int63n(1<<30))
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return "n=" + s
}
