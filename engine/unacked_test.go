package engine

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUnackedListMatchesASlice runs random pushes, settles, trims and
// roll-back inserts, across many chunks, against a plain slice.
func TestUnackedListMatchesASlice(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := rand.New(rand.NewPCG(seed, 0))
		var l unackedList
		var want []delivery // the listed deliveries, settled ones included
		var rolledBack []delivery
		tag := uint64(0)
		inserts, takes := 0, 0
		for step := 0; step < 400; step++ {
			switch op := r.IntN(10); {
			case op < 5:
				for k := r.IntN(3 * chunkLen); k > 0; k-- {
					tag++
					d := delivery{tag: tag}
					l.push(d)
					want = append(want, d)
				}
			case op < 8 && len(want) > 0:
				// Settle the oldest few (ack multiple), or one anywhere.
				at, n := 0, r.IntN(len(want))+1
				if r.IntN(2) == 0 {
					at, n = r.IntN(len(want)), 1
				}
				for i := at; i < at+n; i++ {
					if !want[i].done {
						if r.IntN(4) == 0 {
							rolledBack = append(rolledBack, want[i])
						}
						want[i].done = true
						l.at(i).done = true
					}
				}
				l.trim()
				for len(want) > 0 && want[0].done {
					want = want[1:]
				}
			case op == 8:
				// Roll back a settled delivery that trim has dropped.
				for k, d := range rolledBack {
					i, listed := slices.BinarySearchFunc(want, d.tag, func(x delivery, tag uint64) int { return cmp.Compare(x.tag, tag) })
					if !listed {
						rolledBack = slices.Delete(rolledBack, k, k+1)
						want = slices.Insert(want, i, d)
						l.insert(d)
						inserts++
						break
					}
				}
			case op == 9 && len(want) > 0 && r.IntN(2) == 0:
				// Take the oldest few away (ack multiple, bulkack.go).
				n := r.IntN(len(want)) + 1
				took := unackedList{l.takeFront(n)}
				checkTaken(t, took, want[:n])
				want = want[n:]
				takes++
			default:
				if len(want) > 0 {
					i := r.IntN(len(want))
					if got := l.find(want[i].tag); got != i {
						t.Fatalf("seed %d step %d: find(%d) = %d, want %d", seed, step, want[i].tag, got, i)
					}
				}
			}
			if l.len() != len(want) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, l.len(), len(want))
			}
			for i := range want {
				if got := *l.at(i); got.tag != want[i].tag || got.done != want[i].done {
					t.Fatalf("seed %d step %d: at(%d) = tag %d done %t, want tag %d done %t", seed, step, i, got.tag, got.done, want[i].tag, want[i].done)
				}
			}
		}
		if inserts == 0 || takes == 0 {
			t.Fatalf("seed %d: %d roll-backs inserted, %d fronts taken, want some of each", seed, inserts, takes)
		}
	}
}

// checkTaken fails unless took holds want's deliveries, in order, and
// works on as a FIFO of its own: values pushed onto it come after them.
func checkTaken(t *testing.T, took unackedList, want []delivery) {
	t.Helper()
	if took.len() != len(want) {
		t.Fatalf("took %d, want %d", took.len(), len(want))
	}
	want = slices.Clone(want)
	for k := range chunkLen + 3 {
		d := delivery{tag: uint64(1e9 + k)}
		took.push(d)
		want = append(want, d)
	}
	for i := range want {
		if got := *took.at(0); got.tag != want[i].tag || got.done != want[i].done {
			t.Fatalf("taken value %d is tag %d done %t, want tag %d done %t", i, got.tag, got.done, want[i].tag, want[i].done)
		}
		took.dropFront()
	}
}

// TestUnackedListNeverMovesFullChunks: growing the list to 400,000
// deliveries never moves one that is already in a full chunk, so the list
// is never copied whole (a slice grown by append was, again and again,
// tens of megabytes at a time in one batch of deliveries); nor does
// taking the oldest 300,000 away (ack multiple, bulkack.go).
func TestUnackedListNeverMovesFullChunks(t *testing.T) {
	var l unackedList
	var first []*delivery // the first delivery of each full chunk
	for tag := uint64(1); tag <= 400_000; tag++ {
		l.push(delivery{tag: tag})
		if l.len()%chunkLen == 0 {
			first = append(first, l.at(l.len()-chunkLen))
		}
	}
	for k, p := range first {
		if p != l.at(k*chunkLen) || p.tag != uint64(k*chunkLen+1) {
			t.Fatalf("the delivery with tag %d moved", k*chunkLen+1)
		}
	}
	took := l.takeFront(300_000)
	for k, p := range first {
		if i := k * chunkLen; i < 300_000-chunkLen && p != took.at(i) {
			t.Fatalf("taking the front moved the delivery with tag %d", i+1)
		}
	}
}

// TestUnackedListAcksInBatchesAllocateNoChunk: a channel whose consumer
// acks with multiple=true every few dozen deliveries (warren-bench's
// pipelining client, every 25 to 40) hands each batch on (takeFront),
// settles it (dropFront, as stepSettled does) and takes its chunk back
// (adoptSpare): once warm, a cycle allocates one thing, the taken FIFO's
// list of its one chunk (24 bytes), and no chunk. Growing each batch's
// chunk from 4 made four arrays of deliveries for every ack.
func TestUnackedListAcksInBatchesAllocateNoChunk(t *testing.T) {
	var l unackedList
	tag := uint64(0)
	batch := 25
	cycle := func() {
		for range batch {
			tag++
			l.push(delivery{tag: tag})
		}
		took := unackedList{l.takeFront(l.len())}
		for took.len() > 0 {
			took.dropFront()
		}
		l.adoptSpare(&took.chunked)
		batch = 25 + (batch-24)%16 // 25 to 40
	}
	for range 40 {
		cycle()
	}
	if a := testing.AllocsPerRun(200, cycle); a > 1 {
		t.Errorf("an ack cycle allocates %v times", a)
	}
	// The list still works as a FIFO after all that lending.
	want := make([]delivery, 0, 3*chunkLen)
	for range 3 * chunkLen {
		tag++
		d := delivery{tag: tag}
		l.push(d)
		want = append(want, d)
	}
	checkTaken(t, unackedList{l.takeFront(len(want))}, want)
}
