package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReturnHeapMatchesSorting runs random pushes, pops and sorted splits
// (store.takeFront's use) across many chunks, against a sorted slice: the
// heap always pops the lowest key, and after sort its array is in key
// order.
func TestReturnHeapMatchesSorting(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := rand.New(rand.NewPCG(seed, 0))
		var h returnHeap
		var want []uint64
		for step := 0; step < 300; step++ {
			switch op := r.IntN(10); {
			case op < 5:
				for k := r.IntN(3 * chunkLen); k > 0; k-- {
					key := r.Uint64N(1 << 20)
					h.push(returned{key: key, e: entry{seq: key}})
					want = append(want, key)
				}
				slices.Sort(want)
			case op < 9:
				for k := r.IntN(2 * chunkLen); k > 0 && len(want) > 0; k-- {
					e, _ := h.pop()
					if e.seq != want[0] {
						t.Fatalf("seed %d step %d: popped %d, want %d", seed, step, e.seq, want[0])
					}
					want = want[1:]
				}
			default:
				h.sort()
				for i, key := range want {
					if h.at(i).key != key {
						t.Fatalf("seed %d step %d: sorted heap has %d at %d, want %d", seed, step, h.at(i).key, i, key)
					}
				}
				m := r.IntN(len(want) + 1)
				front := returnHeap{h.c.takeFront(m)}
				for i, key := range want[:m] {
					if front.at(i).key != key {
						t.Fatalf("seed %d step %d: taken front has %d at %d, want %d", seed, step, front.at(i).key, i, key)
					}
				}
				want = want[m:]
			}
			if h.len() != len(want) {
				t.Fatalf("seed %d step %d: heap holds %d, want %d", seed, step, h.len(), len(want))
			}
		}
	}
}
