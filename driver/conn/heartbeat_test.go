package conn

import (
	"testing"
	"time"

	"warren/engine/amqp"
	"warren/server/broker"
)

// readInBackground reads the server's frames on a goroutine of its own (a
// pipe blocks the server's writer until the client reads), recording when
// each heartbeat arrived and passing other commands on. The channel closes
// when the server closes the socket.
func (c *client) readInBackground() (cmds <-chan amqp.Command, heartbeats func() []time.Time) {
	out := make(chan amqp.Command, 16)
	got := make(chan []time.Time, 1)
	got <- nil
	go func() {
		defer close(out)
		for {
			cmd, ok := c.recv()
			if !ok {
				return
			}
			if cmd.Method == nil {
				got <- append(<-got, time.Now())
				continue
			}
			out <- cmd
		}
	}()
	return out, func() []time.Time {
		hb := <-got
		got <- hb
		return hb
	}
}

// TestClientHeartbeatsKeepIdleConnection: a client that sends nothing but
// heartbeats, one per interval as amqp091-go does, stays connected: every
// frame it sends, heartbeats included, counts as a sign of life.
func TestClientHeartbeatsKeepIdleConnection(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(1)
		cmds, _ := c.readInBackground()
		for i := 0; i < 10; i++ {
			time.Sleep(time.Second)
			c.send(amqp.AppendFrame(nil, amqp.FrameHeartbeat, 0, nil))
		}
		c.method(1, &amqp.ChannelOpen{})
		if cmd, ok := <-cmds; !ok {
			t.Fatal("server closed an idle connection whose client sent heartbeats")
		} else if _, isOk := cmd.Method.(*amqp.ChannelOpenOk); !isOk {
			t.Fatalf("got %v, want channel.open-ok", cmd.Method)
		}
	})
}

// TestHeartbeatsSentDespiteTraffic: the server sends a heartbeat every
// half interval whatever else it sends, so a client never waits longer
// than that for one.
func TestHeartbeatsSentDespiteTraffic(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(2)
		start := time.Now()
		cmds, heartbeats := c.readInBackground()
		c.method(1, &amqp.ChannelOpen{})
		<-cmds
		for i := 0; i < 10; i++ {
			time.Sleep(500 * time.Millisecond)
			c.method(1, &amqp.QueueDeclare{Queue: "busy"})
			<-cmds
		}
		last := start
		for _, at := range heartbeats() {
			if at.Sub(last) > time.Second {
				break
			}
			last = at
		}
		if time.Since(last) > time.Second {
			t.Fatalf("heartbeats at %v after open over %v of traffic, want one at least every 1 s", offsets(start, heartbeats()), time.Since(start))
		}
	})
}

func offsets(start time.Time, ts []time.Time) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Sub(start)
	}
	return out
}
