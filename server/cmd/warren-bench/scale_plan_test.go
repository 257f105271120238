package main

import (
	"flag"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestQueuesPlanSpreadsEvenly: with any queue count, every queue gets the
// same share of the messages (to one), every publisher too, publishers
// and consumers are on separate connections, and the queues are spread
// evenly over the consuming connections.
func TestQueuesPlanSpreadsEvenly(t *testing.T) {
	const total = 40_000
	for _, n := range []int{1, 3, 10, 100, 1000} {
		p := queuesPlan(n, 4)
		g := min(n, 4)
		if p.conns != 2*g || len(p.pubConn) != g || len(p.subConn) != n {
			t.Fatalf("n=%d: %d connections, %d publishers, %d queues", n, p.conns, len(p.pubConn), len(p.subConn))
		}
		perQueue, perPub, perSubConn := make([]int, n), make([]int, g), make([]int, p.conns)
		for i := range total {
			perQueue[p.queueOf(i)]++
			perPub[p.publisherOf(i)]++
		}
		for q, c := range p.subConn {
			if c < g || c >= 2*g {
				t.Errorf("n=%d: queue %d consumed on connection %d, a publishing one", n, q, c)
			}
			perSubConn[c]++
		}
		for q, got := range perQueue {
			if got != shareOf(q, n, total) {
				t.Errorf("n=%d: queue %d got %d, shareOf says %d", n, q, got, shareOf(q, n, total))
			}
		}
		for pub, got := range perPub {
			if got != shareOf(pub, g, total) || p.pubConn[pub] >= g {
				t.Errorf("n=%d: publisher %d on connection %d sent %d, shareOf says %d", n, pub, p.pubConn[pub], got, shareOf(pub, g, total))
			}
		}
		subs := perSubConn[g:]
		if slices.Max(subs)-slices.Min(subs) > 1 {
			t.Errorf("n=%d: queues per consuming connection %v", n, subs)
		}
		if spread := slices.Max(perQueue) - slices.Min(perQueue); spread > 1 {
			t.Errorf("n=%d: queue shares differ by %d", n, spread)
		}
	}
}

// TestConnsPlanKeepsEachConnectionToItsQueue: each connection publishes
// into, and consumes from, a queue of its own.
func TestConnsPlanKeepsEachConnectionToItsQueue(t *testing.T) {
	for _, n := range []int{1, 10, 500} {
		p := connsPlan(n)
		if p.conns != n {
			t.Fatalf("n=%d: %d connections", n, p.conns)
		}
		for i := range 3 * n {
			if pub, q := p.publisherOf(i), p.queueOf(i); p.pubConn[pub] != p.subConn[q] || q != pub {
				t.Fatalf("n=%d: message %d published by %d on connection %d into queue %d consumed on %d",
					n, i, pub, p.pubConn[pub], q, p.subConn[q])
			}
		}
	}
}

func TestShareOfSumsToTotal(t *testing.T) {
	for _, c := range []struct{ n, total int }{{1, 0}, {1, 7}, {4, 7}, {10, 40_000}, {1000, 40_001}, {7, 3}} {
		sum := 0
		for k := range c.n {
			sum += shareOf(k, c.n, c.total)
		}
		if sum != c.total {
			t.Errorf("n=%d total=%d: shares sum to %d", c.n, c.total, sum)
		}
	}
}

// TestMessagesWithinMatchesTheSchedule: exactly the messages due before d
// are counted.
func TestMessagesWithinMatchesTheSchedule(t *testing.T) {
	if got := messagesWithin(4*time.Second, 10_000); got != 40_000 {
		t.Errorf("4 s at 10,000/s: %d", got)
	}
	if got := dueAfter(10_000, 10_000); got != time.Second {
		t.Errorf("message 10,000 at 10,000/s due after %s", got)
	}
	if got := messagesWithin(0, 10_000); got != 0 {
		t.Errorf("nothing due in no time, got %d", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		d := time.Duration(1 + r.Int64N(int64(10*time.Second)))
		rateMsgs := 1 + r.IntN(100_000)
		n := messagesWithin(d, rateMsgs)
		if n < 1 || dueAfter(n-1, rateMsgs) >= d || dueAfter(n, rateMsgs) < d {
			t.Fatalf("d=%s rate=%d: n=%d, due %s and %s", d, rateMsgs, n, dueAfter(n-1, rateMsgs), dueAfter(n, rateMsgs))
		}
	}
}

func TestScaleMetricNames(t *testing.T) {
	base, n, ok := parseScaleMetric(scaleMetric(metricBrokerCPU, 1000))
	if !ok || base != metricBrokerCPU || n != 1000 {
		t.Errorf("round trip: %q %d %v", base, n, ok)
	}
	for _, bad := range []string{"throughput", "latency p99 @", "x @0", "x @ten", "x@10"} {
		if _, _, ok := parseScaleMetric(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	names := []string{scaleMetric("throughput", 100), "other", scaleMetric("throughput", 1), scaleMetric("latency p99", 100), scaleMetric("throughput", 10)}
	if got := scalePoints(names); !slices.Equal(got, []int{1, 10, 100}) {
		t.Errorf("points %v", got)
	}
}

func TestMBPerThousand(t *testing.T) {
	for _, c := range []struct {
		before, after int64
		count         int
		want          float64
	}{
		{0, 70e6, 1000, 70},
		{10e6, 45e6, 500, 70},
		{5e6, 5e6, 1000, 0},
		{1, 2, 0, 0},
	} {
		if got := mbPerThousand(c.before, c.after, c.count); got != c.want {
			t.Errorf("%+v: %v", c, got)
		}
	}
}

func TestScaleFlags(t *testing.T) {
	var c scaleConfig
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	scaleFlags(fs, &c)
	if err := c.check(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if err := fs.Parse([]string{"--scale-queues", "1, 5,20", "--scale-span", "2s"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.queues, intList{1, 5, 20}) || c.queues.String() != "1,5,20" || c.span != 2*time.Second || !slices.Equal(c.conns, intList{1, 10, 100, 500}) {
		t.Errorf("parsed %+v", c)
	}
	for _, bad := range []string{"0", "a", "", "1,,2", "-3"} {
		var l intList
		if err := l.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, bad := range []func(*scaleConfig){
		func(c *scaleConfig) { c.queues = nil },
		func(c *scaleConfig) { c.conns = intList{scaleNMax + 1} },
		func(c *scaleConfig) { c.queues = make(intList, scalePointsMax+1) },
		func(c *scaleConfig) { c.span = time.Millisecond },
		func(c *scaleConfig) { c.warmup = -time.Second },
		func(c *scaleConfig) { c.groups = 0 },
		func(c *scaleConfig) { c.prefetch = 0 },
	} {
		c := defaultScaleConfig()
		bad(&c)
		if err := c.check(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
