package main

import (
	"strings"
	"testing"
)

func TestIDSet(t *testing.T) {
	sent := []int{3, 70}
	a, b := newIDSet(sent), newIDSet(sent)
	for seq := range 3 {
		a.mark(msgID(0, seq))
	}
	for seq := range 70 {
		if seq%2 == 0 {
			a.mark(msgID(1, seq))
		} else {
			b.mark(msgID(1, seq))
		}
	}
	if err := a.check(); err == nil {
		t.Error("half of publisher 1's messages missing, yet check passed")
	}
	a.merge(b)
	if err := a.check(); err != nil {
		t.Errorf("two consumers together got everything once: %v", err)
	}
	c := newIDSet(sent)
	c.mark(msgID(1, 69))
	a.merge(c) // a second copy of one message, through another consumer
	a.mark(msgID(0, 0))
	a.mark(msgID(0, 3)) // publisher 0 sent 0..2
	a.mark(msgID(2, 0)) // there is no publisher 2
	err := a.check()
	if err == nil || !strings.Contains(err.Error(), "received 73 of 73 messages, 2 more than once, 2 unknown") {
		t.Errorf("check = %v", err)
	}
}

func TestConfirmTracker(t *testing.T) {
	var c confirmTracker
	step := func(tag uint64, multiple, nack bool, published uint64, wantNew int, wantConfirmed uint64) {
		t.Helper()
		n, err := c.confirm(tag, multiple, nack, published)
		if err != nil || n != wantNew || c.confirmed() != wantConfirmed {
			t.Fatalf("confirm(%d, multiple=%v) = %d, %v; confirmed %d; want %d new, %d confirmed",
				tag, multiple, n, err, c.confirmed(), wantNew, wantConfirmed)
		}
	}
	step(3, true, false, 10, 3, 3)  // 1..3
	step(5, false, false, 10, 1, 4) // 5 alone: 4 still open
	step(7, false, true, 10, 1, 5)  // 7 nacked alone
	step(4, false, false, 10, 1, 6) // 4 closes the gap: the watermark climbs to 5
	if c.upTo != 5 {
		t.Errorf("watermark %d, want 5", c.upTo)
	}
	step(8, true, false, 10, 2, 8) // 6 and 8; 7 was already counted
	step(8, true, false, 10, 0, 8) // a repeat of a multiple confirms nothing new
	step(10, true, true, 10, 2, 10)
	if c.nacked != 3 {
		t.Errorf("nacked %d, want 3 (7, 9, 10)", c.nacked)
	}
	for _, bad := range []struct {
		tag       uint64
		multiple  bool
		published uint64
	}{{0, false, 10}, {11, true, 10}, {9, false, 10}} {
		if _, err := c.confirm(bad.tag, bad.multiple, false, bad.published); err == nil {
			t.Errorf("confirm(%d, multiple=%v) with %d published: no error", bad.tag, bad.multiple, bad.published)
		}
	}
}
