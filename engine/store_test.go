package engine

import "testing"

// fillStore returns a priority store of 3 chunks' worth of entries of 0
// to 2 bytes, every fifth a returned copy.
func fillStore() store {
	s := newStore(2, nil, nil)
	for i := range 3 * chunkLen {
		e := entry{msg: &Message{ID: uint64(i), Body: make([]byte, i%3)}, seq: uint64(i), priority: uint8(i % 3)}
		if i%5 == 0 {
			s.returnBySeq(e)
		} else {
			s.push(e)
		}
	}
	return s
}

// TestStoreTakeFrontKeepsDeliveryOrder: taking the first k entries of a
// priority store holding returned copies leaves the taken ones, then the
// kept ones, in the order popping the whole store gives, and the counts
// with them.
func TestStoreTakeFrontKeepsDeliveryOrder(t *testing.T) {
	fill := fillStore
	all := fill()
	var want []uint64
	for all.len() > 0 {
		want = append(want, all.pop().msg.ID)
	}
	for _, k := range []int{1, chunkLen, len(want) / 2, len(want) - 1, len(want)} {
		s := fill()
		bytes := s.bytes
		took := s.takeFront(k)
		if took.len()+s.len() != len(want) || took.bytes+s.bytes != bytes || took.len() != k {
			t.Fatalf("take %d: took %d (%d bytes), kept %d (%d bytes), of %d (%d bytes)", k, took.len(), took.bytes, s.len(), s.bytes, len(want), bytes)
		}
		var got []uint64
		for took.len() > 0 {
			got = append(got, took.pop().msg.ID)
		}
		for s.len() > 0 {
			got = append(got, s.pop().msg.ID)
		}
		if took.bytes != 0 || s.bytes != 0 {
			t.Fatalf("take %d: popping every entry left %d and %d bytes counted", k, took.bytes, s.bytes)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("take %d: entry %d is message %d, want %d", k, i, got[i], want[i])
			}
		}
	}
}

// TestStoreFrontOver: how many entries must leave from the head for a
// store to fit a length and a byte limit is what popping the head until
// it fits counts, whether the walk goes from the head or the tail.
func TestStoreFrontOver(t *testing.T) {
	total := fillStore()
	for _, lim := range []struct{ maxLen, maxBytes int64 }{
		{-1, -1}, {0, -1}, {10, -1}, {-1, 0}, {-1, 1}, {-1, 7}, {-1, total.bytes / 3},
		{-1, total.bytes/2 - 1}, {-1, total.bytes / 2}, {-1, total.bytes - 1}, {-1, total.bytes},
		{100, total.bytes / 3}, {600, 50},
	} {
		s := fillStore()
		got := s.frontOver(lim.maxLen, lim.maxBytes)
		want := 0
		for s.len() > 0 && ((lim.maxLen >= 0 && int64(s.len()) > lim.maxLen) || (lim.maxBytes >= 0 && s.bytes > lim.maxBytes)) {
			s.pop()
			want++
		}
		if got != want {
			t.Errorf("max-length %d, max-length-bytes %d: frontOver says %d leave, popping took %d", lim.maxLen, lim.maxBytes, got, want)
		}
	}
}
