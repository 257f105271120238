package engine

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"testing"
)

// TestListingBorrowIsStable checks listing's copy on write: whatever the
// engine adds and removes after a borrow, the borrowed chunks still read
// as the list did, and the listing itself stays right, across chunk
// boundaries. A borrow costs one slice header per chunk.
func TestListingBorrowIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var l listing[string]
	index := map[string]int{} // name → its index, as a queue keeps it
	var live []string         // in no particular order
	next := 0
	type loan struct {
		chunks [][]string
		want   []string
	}
	var loans []loan
	for step := 0; step < 20_000; step++ {
		switch {
		case r.IntN(100) < 55 || len(live) == 0:
			name := "n" + strconv.Itoa(next)
			next++
			index[name] = l.add(name)
			live = append(live, name)
		case r.IntN(100) < 97:
			k := r.IntN(len(live))
			victim := live[k]
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
			if moved, ok := l.remove(index[victim]); ok {
				index[moved] = index[victim]
			}
			delete(index, victim)
		default:
			chunks := l.borrow()
			if len(chunks) != (l.n+listingChunk-1)/listingChunk {
				t.Fatalf("step %d: %d chunks for %d items", step, len(chunks), l.n)
			}
			loans = append(loans, loan{chunks, flat(chunks)})
		}
	}
	for i, ln := range loans {
		if got := flat(ln.chunks); !reflect.DeepEqual(got, ln.want) {
			t.Fatalf("loan %d changed after it was made", i)
		}
	}
	got := flat(l.borrow())
	want := append([]string(nil), live...)
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("listing holds %d names, want %d", len(got), len(want))
	}
	for name, i := range index {
		if l.chunks[i/listingChunk][i%listingChunk] != name {
			t.Fatalf("%s is not at its index %d", name, i)
		}
	}
}

func flat(chunks [][]string) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

// TestListingChurnAtEmptyCostsLittle opens and closes one item at a time
// in an empty listing, as a connection that opens a channel per operation
// does to the channels listing: each add used to make a whole first chunk
// (listingChunk items, 56 KB of ChannelRef), which the import of a big
// definitions document did 10,000 times over.
func TestListingChurnAtEmptyCostsLittle(t *testing.T) {
	var l listing[ChannelRef]
	ref := ChannelRef{ID: ChannelID{Conn: 1, Num: 1}, Connection: "c", User: "guest", Vhost: "/"}
	const cycles = 1000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range cycles {
		l.remove(l.add(ref))
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / cycles; per > 1024 {
		t.Errorf("an add and a remove at empty allocated %d bytes, want at most 1 KB", per)
	}
}
