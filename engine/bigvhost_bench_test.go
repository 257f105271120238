package engine

import (
	"runtime"
	"strconv"
	"testing"
)

// bigVhost declares n queues in vhost "/", for benchmarks of what must not
// cost time per queue.
func bigVhost(tb testing.TB, n int) (*Broker, ChannelID) {
	br, ch := benchBroker(tb, Config{Seed: 1})
	for i := 0; i < n; i++ {
		_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "q" + strconv.Itoa(i)})
		must(tb, err)
		if i%1024 == 0 {
			br.DrainEvents(nil)
		}
	}
	br.DrainEvents(nil)
	return br, ch
}

// BenchmarkConnectionCycle opens a connection and a channel and closes
// them again in a vhost with 100,000 queues, as every management request
// that changes something does under the server's broker lock. Closing
// used to look through every queue for the connection's exclusive ones.
func BenchmarkConnectionCycle(b *testing.B) {
	br, _ := bigVhost(b, 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id, err := br.OpenConnection(ConnectionOpen{Vhost: "/", User: "guest"})
		must(b, err)
		_, err = br.OpenChannel(id, 1)
		must(b, err)
		br.CloseConnection(id)
		br.DrainEvents(nil)
	}
}

// BenchmarkManagementReads measures, with 100,000 queues of which one holds
// 400,000 messages, the engine calls one management request makes under the
// server's broker lock: VhostTotals for /api/overview; QueueNames, the
// index a queue list copies; QueueSummaries of one page (100) and of one
// batch (500, what a request may build per turn). SnapshotLimit(1) is what
// every request cost before.
func BenchmarkManagementReads(b *testing.B) {
	const queues, messages = 100_000, 400_000
	br, ch := bigVhost(b, queues)
	body := []byte("0123456789abcdef")
	for i := 0; i < messages; i++ {
		must(b, br.BasicPublish(ch, BasicPublish{RoutingKey: "q0", Body: body}))
		if i%1024 == 0 {
			br.DrainEvents(nil)
		}
	}
	br.DrainEvents(nil)
	page := make([]string, 500)
	for i := range page {
		page[i] = "q" + strconv.Itoa(i*199)
	}
	for _, tc := range []struct {
		name string
		read func()
	}{
		{"VhostTotals", func() { br.VhostTotals("/") }},
		{"QueueNames", func() { br.QueueNames("/") }},
		{"QueueSummaries/100", func() { br.QueueSummaries("/", page[:100]) }},
		{"QueueSummaries/500", func() { br.QueueSummaries("/", page) }},
		{"SnapshotLimit(1)", func() { br.SnapshotLimit(1) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tc.read()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/read")
		})
	}
}

// BenchmarkQueueWalk measures the longest single engine call of the
// operations that visit every queue of a vhost of 100,000 (queuewalk.go):
// a policy set on all of them, that policy cleared, and the vhost's
// deletion. Calls are timed as in BenchmarkBacklog: the command, then
// AdvanceTo(Now()) while a continuation is due.
func BenchmarkQueueWalk(b *testing.B) {
	const n = 100_000
	all := Policy{Vhost: "/", Name: "p", Pattern: ".*", ApplyTo: "queues", Definition: Table{"max-length": int64(10)}}
	for _, op := range []string{"set-policy", "clear-policy", "delete-vhost"} {
		b.Run(op+"/queues="+strconv.Itoa(n), func(b *testing.B) {
			var clock callClock
			for i := -1; i < b.N; i++ { // -1: a warm-up, as in BenchmarkBacklog
				if i == 0 {
					clock = callClock{}
				}
				br, _ := bigVhost(b, n)
				if op == "clear-policy" {
					must(b, br.SetPolicy(all))
					br.Settle(br.Now())
					br.DrainEventsTo(func([]Event) {})
				}
				runtime.GC()
				visited := 0
				seen := func(evs []Event) {
					for i := range evs {
						if evs[i].Kind == EvQueuePolicyChanged || evs[i].Kind == EvQueueDeleted {
							visited++
						}
					}
				}
				switch op {
				case "set-policy":
					clock.time(br, func() { must(b, br.SetPolicy(all)) }, seen)
				case "clear-policy":
					clock.time(br, func() { must(b, br.ClearPolicy("/", "p")) }, seen)
				case "delete-vhost":
					clock.time(br, func() { must(b, br.DeleteVhost("/")) }, seen)
				}
				clock.workOff(br, seen)
				if visited != n {
					b.Fatalf("%d queues changed or deleted, want %d", visited, n)
				}
			}
			clock.report(b)
		})
	}
}
