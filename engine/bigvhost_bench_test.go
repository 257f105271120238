package engine

import (
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
// that changes something does on the broker goroutine. Closing used to
// look through every queue for the connection's exclusive ones.
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
