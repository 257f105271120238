package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// scalePlan says how one point of a scale workload spreads its load:
// which connection each publisher publishes on and which connection each
// queue's consumer consumes on. Message i (0, 1, 2, ... in the order the
// schedule makes them due) goes to queue i mod queues from publisher
// i mod publishers, so every queue gets the same share of the offered
// rate, whatever the two counts.
type scalePlan struct {
	conns   int   // connections to open
	pubConn []int // publisher p publishes on connection pubConn[p]
	subConn []int // queue q's consumer consumes on connection subConn[q]
}

// queuesPlan is scale-queues' plan for n queues: up to groups publishing
// connections and as many consuming ones (fewer when there are fewer
// queues), one publishing channel per publishing connection, and one
// channel with one consumer per queue, queue q on consuming connection
// q mod groups.
func queuesPlan(n, groups int) scalePlan {
	g := min(n, groups)
	p := scalePlan{conns: 2 * g, pubConn: make([]int, g), subConn: make([]int, n)}
	for i := range p.pubConn {
		p.pubConn[i] = i
	}
	for q := range p.subConn {
		p.subConn[q] = g + q%g
	}
	return p
}

// connsPlan is scale-conns' plan for n connections: each publishes its
// share of the rate on one channel into a queue of its own and consumes
// it on another channel of the same connection.
func connsPlan(n int) scalePlan {
	p := scalePlan{conns: n, pubConn: make([]int, n), subConn: make([]int, n)}
	for c := 0; c < n; c++ {
		p.pubConn[c], p.subConn[c] = c, c
	}
	return p
}

// queueOf is the queue message i goes to.
func (p scalePlan) queueOf(i int) int { return i % len(p.subConn) }

// publisherOf is the publisher that sends message i.
func (p scalePlan) publisherOf(i int) int { return i % len(p.pubConn) }

// shareOf returns how many of messages 0..total-1 fall to index k of n
// when message i falls to i mod n: a publisher's or a queue's share.
func shareOf(k, n, total int) int {
	if k >= total%n {
		return total / n
	}
	return total/n + 1
}

// dueAfter is when message i is due, counted from the schedule's start,
// at rateMsgs messages a second spread evenly.
func dueAfter(i, rateMsgs int) time.Duration {
	return time.Duration(int64(i) * int64(time.Second) / int64(rateMsgs))
}

// messagesWithin is how many messages fall due in the first d at
// rateMsgs a second: those with dueAfter(i) < d.
func messagesWithin(d time.Duration, rateMsgs int) int {
	if d <= 0 {
		return 0
	}
	// dueAfter(i) < d holds exactly when i*1e9 < d*rateMsgs (d is whole
	// nanoseconds), so the count is the ceiling of d*rateMsgs/1e9.
	return int((int64(d)*int64(rateMsgs) + int64(time.Second) - 1) / int64(time.Second))
}

// scaleMetric names a metric measured at one point of a scale workload:
// "broker CPU @100" is the broker's CPU per message with 100 queues (or
// connections).
func scaleMetric(base string, n int) string { return base + " @" + strconv.Itoa(n) }

// parseScaleMetric splits a name made by scaleMetric; ok is false for any
// other name.
func parseScaleMetric(name string) (base string, n int, ok bool) {
	i := strings.LastIndex(name, " @")
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[i+2:])
	if err != nil || n < 1 {
		return "", 0, false
	}
	return name[:i], n, true
}

// mbPerThousand is the growth from before to after, in bytes, as MB
// (10^6 bytes) per 1,000 of the count objects that caused it.
func mbPerThousand(before, after int64, count int) float64 {
	if count <= 0 {
		return 0
	}
	return float64(after-before) / 1e6 * 1000 / float64(count)
}

// intList is a flag holding comma-separated positive integers.
type intList []int

func (l *intList) String() string {
	parts := make([]string, len(*l))
	for i, n := range *l {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func (l *intList) Set(s string) error {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		out = append(out, n)
	}
	*l = out
	return nil
}

// queuesOf lists, ascending, the queues publisher pub sends to: it sends
// messages i ≡ pub (mod publishers) and message i goes to queue i mod
// queues, so it reaches exactly the queues q ≡ pub (mod g), g the
// greatest common divisor of the two counts (given messages enough).
func (p scalePlan) queuesOf(pub int) []int {
	a, b := len(p.pubConn), len(p.subConn)
	for b != 0 {
		a, b = b, a%b
	}
	var qs []int
	for q := pub % a; q < len(p.subConn); q += a {
		qs = append(qs, q)
	}
	return qs
}
