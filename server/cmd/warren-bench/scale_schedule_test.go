package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestQueuesOfIsWhereAPublisherSends: the queues queuesOf lists for a
// publisher are exactly those its messages go to.
func TestQueuesOfIsWhereAPublisherSends(t *testing.T) {
	for _, c := range []struct{ publishers, queues int }{{1, 1}, {1, 7}, {4, 1}, {4, 10}, {4, 1000}, {3, 7}, {6, 9}, {500, 500}} {
		p := scalePlan{pubConn: make([]int, c.publishers), subConn: make([]int, c.queues)}
		for pub := range c.publishers {
			var want []int
			for i := pub; i < pub+c.publishers*c.queues; i += c.publishers {
				if q := p.queueOf(i); !slices.Contains(want, q) {
					want = append(want, q)
				}
			}
			slices.Sort(want)
			if got := p.queuesOf(pub); !slices.Equal(got, want) {
				t.Fatalf("%d publishers, %d queues: publisher %d: queuesOf %v, sends to %v", c.publishers, c.queues, pub, got, want)
			}
		}
	}
}

// testSchedule is a schedule of total messages at rateMsgs a second from
// publishers over queues, which started at start.
func testSchedule(publishers, queues, total, rateMsgs int, start time.Time) scaleSchedule {
	return scaleSchedule{plan: scalePlan{pubConn: make([]int, publishers), subConn: make([]int, queues)},
		total: total, rateMsgs: rateMsgs, start: start, spanStart: start, spanEnd: start.Add(time.Hour)}
}

func TestDueByCountsWhatHasFallenDue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := testSchedule(4, 1, 100, 1000, t0) // a message a millisecond, each publisher's 4 ms apart
	for _, c := range []struct {
		i        int
		now      time.Time
		batchMax int
		want     int
	}{
		{1, t0, 10, 1},                              // message 1 is not due yet: it is sent alone
		{1, s.due(1), 10, 1},                        // due, the next of the publisher's (5) not
		{1, s.due(5), 10, 2},                        // 1 and 5
		{1, s.due(13).Add(time.Microsecond), 10, 4}, // 1, 5, 9, 13
		{1, s.due(13), 2, 2},                        // at most batchMax
		{97, t0.Add(time.Hour), 10, 1},              // 97 is the publisher's last below 100
		{95, t0.Add(time.Hour), 10, 2},              // 95, 99
	} {
		if got := s.dueBy(c.i, c.now, c.batchMax); got != c.want {
			t.Errorf("dueBy(%d, +%s, %d) = %d, want %d", c.i, c.now.Sub(t0), c.batchMax, got, c.want)
		}
	}
}

// TestPublishOnScheduleSendsEachMessageOnce runs a publisher whose every
// message is already due: it hands them all over once, in order, in
// batches of batchMax, and its lag is how late the earliest of the span
// went out.
func TestPublishOnScheduleSendsEachMessageOnce(t *testing.T) {
	start := time.Now().Add(-time.Minute)
	s := testSchedule(3, 2, 100, 1000, start)
	s.spanStart, s.spanEnd = s.due(30), s.due(60)
	for _, batchMax := range []int{1, 7, 1000} {
		var sent []int
		var sizes []int
		tally := s.publishOnSchedule(context.Background(), 1, batchMax, func(first, n int, now time.Time) error {
			for k := range n {
				sent = append(sent, first+k*3)
			}
			sizes = append(sizes, n)
			return nil
		})
		if tally.err != nil {
			t.Fatal(tally.err)
		}
		var want []int
		for i := 1; i < 100; i += 3 {
			want = append(want, i)
		}
		if !slices.Equal(sent, want) {
			t.Fatalf("batchMax %d: sent %v", batchMax, sent)
		}
		for k, n := range sizes {
			if n > batchMax || (k < len(sizes)-1 && n != batchMax) {
				t.Fatalf("batchMax %d: batches %v", batchMax, sizes)
			}
		}
		// Message 31 is the publisher's first in the span, due 29 s before
		// the last of its batch (at most) went out.
		if late := time.Since(s.due(31)); tally.lagMax < late-time.Second || tally.lagMax > late {
			t.Errorf("batchMax %d: lag %s, message 31 fell due %s ago", batchMax, tally.lagMax, late)
		}
	}

	boom := errors.New("boom")
	calls := 0
	tally := s.publishOnSchedule(context.Background(), 0, 5, func(int, int, time.Time) error { calls++; return boom })
	if !errors.Is(tally.err, boom) || calls != 1 {
		t.Errorf("a failed send: %d calls, %v", calls, tally.err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	later := testSchedule(1, 1, 10, 1000, time.Now().Add(time.Hour))
	tally = later.publishOnSchedule(ctx, 0, 5, func(int, int, time.Time) error { t.Error("sent before it fell due"); return nil })
	if !errors.Is(tally.err, context.Canceled) || !strings.Contains(tally.err.Error(), "publisher 0 at message 0") {
		t.Errorf("a cancelled wait: %v", tally.err)
	}
}

// TestTakeChecksEveryMessage: an inbox takes its queue's messages, keeps
// the latency of those sent in the span, refuses a message meant for
// another queue, one never scheduled and a short body, and its id set
// reports a duplicate and a message missing.
func TestTakeChecksEveryMessage(t *testing.T) {
	start := time.Unix(1000, 0)
	s := testSchedule(2, 3, 30, 1000, start)
	s.spanStart, s.spanEnd = start.Add(time.Second), start.Add(2*time.Second)
	head := func(i int, sent time.Time) []byte {
		b := body(scaleBodyMin + 4)
		putScaleHead(b, i, sent.UnixNano())
		return b
	}
	in := s.newInbox(1) // messages 1, 4, ..., 28: 10 of them
	received := start.Add(5 * time.Second)
	for i := 1; i < 30; i += 3 {
		sent := start.Add(500 * time.Millisecond) // before the span
		if i == 4 || i == 7 {
			sent = s.spanStart.Add(time.Duration(i) * time.Millisecond)
		}
		if err := s.take(in, head(i, sent), received.UnixNano()); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.ids.check(); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{received.Sub(s.spanStart.Add(4 * time.Millisecond)), received.Sub(s.spanStart.Add(7 * time.Millisecond))}
	if !slices.Equal(in.latencies, want) {
		t.Errorf("latencies %v, want %v", in.latencies, want)
	}
	for _, c := range []struct {
		head []byte
		want string
	}{
		{head(2, start), "meant for queue 2"},
		{head(31, start), "message 31, of 30 sent"},
		{head(1, start)[:scaleBodyMin-1], "a body of 15 bytes"},
	} {
		if err := s.take(in, c.head, received.UnixNano()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error with %q", err, c.want)
		}
	}
	if err := s.take(in, head(4, start), received.UnixNano()); err != nil {
		t.Fatal(err)
	}
	if err := in.ids.check(); err == nil || !strings.Contains(err.Error(), "1 more than once") {
		t.Errorf("a duplicate: %v", err)
	}
	short := s.newInbox(0)
	if err := s.take(short, head(0, start), received.UnixNano()); err != nil {
		t.Fatal(err)
	}
	if err := short.ids.check(); err == nil || !strings.Contains(err.Error(), "received 1 of 10") {
		t.Errorf("messages missing: %v", err)
	}
}
