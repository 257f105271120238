package conn

import (
	"testing"
	gosynctest "testing/synctest"
	"time"

	"warren/engine/amqp"
	"warren/server/broker"
)

// TestBlockedConnectionThatDiesLeaves: a publisher blocked by the memory
// alarm (its publish waiting, its socket no longer read) whose peer goes
// away is noticed when the server's heartbeat to it fails, and leaves the
// broker's connection list and the alarm's, rather than waiting for the
// alarm to clear.
func TestBlockedConnectionThatDiesLeaves(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		cfg := Config{Alarm: &Alarm{HighWatermark: 1000, PerMessageBytes: 1}}
		cfg.Defaults()
		b.WatchTotals(cfg.Alarm.Totals)
		c := startPipe(t, b, cfg)
		c.handshake(1)
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		c.method(1, &amqp.QueueDeclare{Queue: "q"})
		c.expect(&amqp.QueueDeclareOk{})
		pub, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: "q"})
		pub, _ = amqp.AppendContent(pub, 1, amqp.ClassBasic, amqp.Properties{}, make([]byte, 2000), 131072)
		c.send(pub) // past the watermark
		c.send(pub) // waits
		gosynctest.Wait()
		if n := openConnections(b); n != 1 {
			t.Fatalf("%d connections before the client died, want 1", n)
		}
		c.nc.Close()
		time.Sleep(3 * time.Second) // virtual: a few heartbeat intervals
		gosynctest.Wait()
		if n := openConnections(b); n != 0 {
			t.Fatalf("%d connections after the blocked client died, want 0", n)
		}
		cfg.Alarm.connsMu.Lock()
		watched := len(cfg.Alarm.conns)
		cfg.Alarm.connsMu.Unlock()
		if watched != 0 {
			t.Fatalf("the alarm still watches %d connections", watched)
		}
	})
}

// openConnections counts the broker's connections, as the management API
// lists them.
func openConnections(b *broker.Broker) int {
	n := 0
	for _, refs := range b.Reader(nil).ConnectionRefs() {
		n += len(refs)
	}
	return n
}
