package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"
)

// scaleSchedule is one point's load as its publishers and consumers see
// it, whichever client carries it: which message goes where, when each
// falls due, and the measured span.
type scaleSchedule struct {
	plan               scalePlan
	queues             []string // queue q's name
	total              int      // messages, numbered from 0
	rateMsgs           int      // offered messages a second
	start              time.Time
	spanStart, spanEnd time.Time // the measured span
}

// due is when message i falls due.
func (s scaleSchedule) due(i int) time.Time { return s.start.Add(dueAfter(i, s.rateMsgs)) }

// dueBy is how many of the messages i, i+publishers, i+2*publishers, ...
// (one publisher's, from i on, below the total) have fallen due by now:
// at least 1 (i itself) and at most batchMax.
func (s scaleSchedule) dueBy(i int, now time.Time, batchMax int) int {
	step := len(s.plan.pubConn)
	n := 1
	for n < batchMax && i+n*step < s.total && !s.due(i+n*step).After(now) {
		n++
	}
	return n
}

// publisherTally is what one publisher reports when it is done.
type publisherTally struct {
	lagMax time.Duration // latest it sent a message of the span after it fell due
	err    error
}

// publishOnSchedule sends publisher p's messages (i ≡ p mod publishers,
// below the total), each when it falls due. It waits until the next one
// is due, then hands send that one and those after it that are due by
// then too (dueBy, at most batchMax): n messages from first, every
// publishers-th, to go out at now. A publisher that is late thus sends
// what is due at once; how late it sent each message of the span is its
// lag. With batchMax 1 every message is sent on its own.
func (s scaleSchedule) publishOnSchedule(ctx context.Context, p, batchMax int, send func(first, n int, now time.Time) error) publisherTally {
	var t publisherTally
	step := len(s.plan.pubConn)
	for i := p; i < s.total; {
		if err := sleepUntil(ctx, s.due(i)); err != nil {
			t.err = fmt.Errorf("publisher %d at message %d: %w", p, i, err)
			return t
		}
		now := time.Now()
		n := s.dueBy(i, now, batchMax)
		for k := range n {
			if due := s.due(i + k*step); !due.Before(s.spanStart) && due.Before(s.spanEnd) {
				t.lagMax = max(t.lagMax, now.Sub(due))
			}
		}
		if err := send(i, n, now); err != nil {
			t.err = err
			return t
		}
		i += n * step
	}
	return t
}

// putScaleHead writes the first scaleBodyMin bytes of message i's body:
// its number, then the time it is sent (Unix nanoseconds), 8 bytes each.
// The number comes first, where the pipelining client's consumer reads a
// message id (consumeState).
func putScaleHead(body []byte, i int, sentNs int64) {
	binary.BigEndian.PutUint64(body, uint64(i))
	binary.BigEndian.PutUint64(body[8:], uint64(sentNs))
}

// scaleInbox is what one queue's consumer received: which of the queue's
// messages (a bit each, by their place in the queue's share) and the
// latencies of those sent within the span.
type scaleInbox struct {
	q         int
	ids       *idSet
	latencies []time.Duration
}

// newInbox returns queue q's empty inbox.
func (s scaleSchedule) newInbox(q int) *scaleInbox {
	return &scaleInbox{q: q, ids: newIDSet([]int{shareOf(q, len(s.plan.subConn), s.total)})}
}

// take records a delivery on in's queue whose body starts with head
// (putScaleHead), received at receivedNs (Unix nanoseconds). The message
// must be one of the schedule's and meant for this queue; a second
// arrival counts as a duplicate (idSet.check reports it), and the latency
// of a message sent within the span is kept.
func (s scaleSchedule) take(in *scaleInbox, head []byte, receivedNs int64) error {
	if len(head) < scaleBodyMin {
		return fmt.Errorf("queue %d: a body of %d bytes", in.q, len(head))
	}
	n, sent := binary.BigEndian.Uint64(head), int64(binary.BigEndian.Uint64(head[8:]))
	if n >= uint64(s.total) {
		return fmt.Errorf("queue %d received message %d, of %d sent", in.q, n, s.total)
	}
	i := int(n)
	if q := s.plan.queueOf(i); q != in.q {
		return fmt.Errorf("queue %d received message %d, meant for queue %d", in.q, i, q)
	}
	in.ids.mark(uint64(i / len(s.plan.subConn)))
	if sent >= s.spanStart.UnixNano() && sent < s.spanEnd.UnixNano() {
		in.latencies = append(in.latencies, time.Duration(receivedNs-sent))
	}
	return nil
}
