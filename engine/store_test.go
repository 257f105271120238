package engine

import "testing"

// TestStoreTakeFrontKeepsDeliveryOrder: taking the first k entries of a
// priority store holding returned copies leaves the taken ones, then the
// kept ones, in the order popping the whole store gives, and the counts
// with them.
func TestStoreTakeFrontKeepsDeliveryOrder(t *testing.T) {
	fill := func() store {
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
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("take %d: entry %d is message %d, want %d", k, i, got[i], want[i])
			}
		}
	}
}
