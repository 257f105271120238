package mgmt

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"warren/engine"
)

// stableSortedBindings is vhostBindings as it was written first: every
// binding, implicit and declared, in one stable sort.
func stableSortedBindings(queues []string, declared []engine.BindingView) []engine.BindingView {
	out := make([]engine.BindingView, 0, len(queues)+len(declared))
	for _, q := range queues {
		out = append(out, engine.BindingView{Destination: q, RoutingKey: q})
	}
	out = append(out, declared...)
	slices.SortStableFunc(out, compareBindings)
	return out
}

// TestBindingOrderIsOneStableSort checks that merging the implicit
// bindings with the sorted declared ones gives the order one stable sort
// of all of them gives, ties included (bindings that differ only in their
// arguments keep the engine's order), over seeded random lists.
func TestBindingOrderIsOneStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 4))
	pick := func(n int) string { return "n" + strconv.Itoa(rng.IntN(n)) }
	for round := range 300 {
		var queues []string
		for i := range rng.IntN(20) {
			queues = append(queues, "n"+strconv.Itoa(i*2))
		}
		slices.Sort(queues) // as the callers sort them
		var declared []engine.BindingView
		for i := range rng.IntN(30) {
			src := pick(4)
			if rng.IntN(10) == 0 {
				src = "" // not declarable, but the order must not depend on it
			}
			dst := pick(40)
			declared = append(declared, engine.BindingView{Source: src, Destination: dst, DestinationIsExchange: rng.IntN(3) == 0,
				RoutingKey: []string{dst, "", "k"}[rng.IntN(3)], Args: engine.Table{"i": int64(i)}})
		}
		if round%3 == 0 {
			slices.SortStableFunc(declared, compareBindings) // in order already
		}
		orig := slices.Clone(declared)
		want := stableSortedBindings(queues, declared)
		// In the engine's chunks, as walkBindings returns them.
		var chunks [][]engine.BindingView
		for rest := declared; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(7))
			chunks, rest = append(chunks, rest[:n]), rest[n:]
		}
		if got := vhostBindings(queues, chunks); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: queues %v declared %v:\n got %v\nwant %v", round, queues, orig, got, want)
		}
		if !reflect.DeepEqual(declared, orig) {
			t.Fatalf("round %d: vhostBindings changed its argument", round)
		}
	}
}
