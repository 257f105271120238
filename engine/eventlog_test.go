package engine

import "testing"

// TestEventLogDrain checks that draining hands every event over once, in
// order, whatever slice the caller passes, and that the log keeps no
// drained message alive beyond the slice it is about to fill.
func TestEventLogDrain(t *testing.T) {
	var l eventLog
	next := uint64(0)
	emit := func(n int) {
		for range n {
			next++
			l.add(Event{Kind: EvEnqueued, MsgID: next, Msg: &Message{ID: next}})
		}
	}
	seen := uint64(0)
	check := func(out []Event, from int) {
		t.Helper()
		for _, e := range out[from:] {
			seen++
			if e.MsgID != seen || e.Msg == nil || e.Msg.ID != seen {
				t.Fatalf("got event for message %d (msg %v), want %d", e.MsgID, e.Msg, seen)
			}
		}
		if seen != next {
			t.Fatalf("drained up to message %d, emitted %d", seen, next)
		}
		if l.len() != 0 {
			t.Fatalf("%d events left after a drain", l.len())
		}
		// The log's slice must be clear beyond its length (it is empty
		// now), so that it keeps no drained message alive.
		live := l.cur[:cap(l.cur)]
		for i := len(l.cur); i < len(live); i++ {
			if live[i].Msg != nil {
				t.Fatalf("slot %d of the log's slice still holds message %d", i, live[i].Msg.ID)
			}
		}
	}

	var events []Event
	for round, n := range []int{3, 3, 1, 10, 0, 2, 3*eventChunk + 5, 4, 4, 1, 0, 7} {
		emit(n)
		events = l.drain(events[:0])
		check(events, 0)
		if len(events) != n {
			t.Fatalf("round %d: drained %d events, want %d", round, len(events), n)
		}
	}

	// A caller that keeps what it has and appends gets a copy.
	emit(5)
	kept := append([]Event(nil), Event{Kind: EvNone})
	kept = l.drain(kept)
	check(kept, 1)

	// A caller passing nil, or an older slice the log owns again, still
	// gets every event once.
	emit(3)
	old := l.drain(nil)
	check(old, 0)
	emit(2)
	newer := l.drain(old[:0])
	check(newer, 0)
	emit(4)
	again := l.drain(old[:0]) // old's array is the log's own now
	check(again, 0)
	emit(1)
	check(l.drain(nil), 0)
}

// TestEmptyDrainKeepsWhatIsKnown: after a large burst, draining with
// nothing pending must not make the next drain clear the whole big buffer
// (which cost a memclr of tens of MB per command in the server).
func TestEmptyDrainKeepsWhatIsKnown(t *testing.T) {
	var l eventLog
	for i := 0; i < 10000; i++ {
		l.add(Event{Kind: EvEnqueued})
	}
	buf := l.drain(nil)
	big := cap(buf)
	buf = l.drain(buf[:0]) // nothing pending
	if l.handed != &buf[:1][0] || l.handedLen != 10000 {
		t.Fatalf("an empty drain forgot the handed slice (handedLen %d)", l.handedLen)
	}
	l.add(Event{Kind: EvAcked})
	out := l.drain(buf[:0])
	if len(out) != 1 || out[0].Kind != EvAcked {
		t.Fatalf("drain after an empty drain: %v", out)
	}
	if l.handedLen != 1 || big < 10000 {
		t.Fatalf("handedLen %d after one event (buffer cap %d)", l.handedLen, big)
	}
}

// TestEventLogDrainTo checks that drainTo hands every event over once, in
// order, across chunks, without keeping drained messages alive; that events
// emitted while fn runs wait for the next drain; and that a steady stream
// of small drains allocates nothing.
func TestEventLogDrainTo(t *testing.T) {
	var l eventLog
	next, seen := uint64(0), uint64(0)
	emit := func(n int) {
		for range n {
			next++
			l.add(Event{Kind: EvEnqueued, MsgID: next, Msg: &Message{ID: next}})
		}
	}
	var batches int
	visit := func(evs []Event) {
		batches++
		for _, e := range evs {
			seen++
			if e.MsgID != seen {
				t.Fatalf("got message %d, want %d", e.MsgID, seen)
			}
		}
	}
	for _, n := range []int{0, 1, 7, eventChunk, 3*eventChunk + 5, 2, 0, 100} {
		batches = 0
		emit(n)
		l.drainTo(visit)
		if seen != next || l.len() != 0 {
			t.Fatalf("after %d: drained to %d of %d, %d left", n, seen, next, l.len())
		}
		if n == 0 && batches != 0 {
			t.Fatalf("an empty log called fn %d times", batches)
		}
		// The log is empty: no slice it keeps may hold a message.
		kept := [][]Event{l.cur[:cap(l.cur)], l.spare[:cap(l.spare)]}
		for _, c := range l.free {
			kept = append(kept, c[:cap(c)])
		}
		for _, s := range kept {
			for i := range s {
				if s[i].Msg != nil {
					t.Fatalf("after %d: a kept slice still holds message %d", n, s[i].Msg.ID)
				}
			}
		}
	}

	// Events emitted during fn are not lost and not seen twice.
	emit(3)
	l.drainTo(func(evs []Event) {
		visit(evs)
		emit(2)
	})
	if seen != next-2 || l.len() != 2 {
		t.Fatalf("during fn: seen %d of %d, %d pending, want 2", seen, next, l.len())
	}
	l.drainTo(visit)
	if seen != next {
		t.Fatalf("seen %d of %d", seen, next)
	}

	ev := Event{Kind: EvAcked}
	if a := testing.AllocsPerRun(100, func() {
		for range 10 {
			l.add(ev)
		}
		l.drainTo(func([]Event) {})
	}); a != 0 {
		t.Errorf("small drains allocate %v times each", a)
	}

	// A burst of a few chunks, turn after turn (a fanout, a batch of
	// publishes), fills the chunks the last one left.
	if a := testing.AllocsPerRun(20, func() {
		for range 2*eventChunk + 10 {
			l.add(ev)
		}
		l.drainTo(func([]Event) {})
	}); a != 0 {
		t.Errorf("repeated bursts of two chunks allocate %v times each", a)
	}
	if len(l.free) > maxFreeChunks {
		t.Errorf("the log keeps %d free chunks, at most %d", len(l.free), maxFreeChunks)
	}
}
