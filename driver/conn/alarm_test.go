package conn

import (
	"errors"
	"testing"
	gosynctest "testing/synctest"
	"time"

	"warren/engine"
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
		cfg.Alarm.mu.Lock()
		watched := len(cfg.Alarm.conns)
		cfg.Alarm.mu.Unlock()
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

// handshakeBlocked is handshake announcing the connection.blocked
// capability, as RabbitMQ's own clients do.
func (c *client) handshakeBlocked() {
	c.send(amqp.ProtocolHeader[:])
	c.expect(&amqp.ConnectionStart{})
	caps := amqp.Table{"capabilities": amqp.Table{"connection.blocked": true}}
	c.method(0, &amqp.ConnectionStartOk{ClientProperties: caps, Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})
	tune := c.expect(&amqp.ConnectionTune{}).Method.(*amqp.ConnectionTune)
	c.method(0, &amqp.ConnectionTuneOk{ChannelMax: tune.ChannelMax, FrameMax: tune.FrameMax})
	c.method(0, &amqp.ConnectionOpen{VirtualHost: "/"})
	c.expect(&amqp.ConnectionOpenOk{})
}

// TestBlockedReasons: connection.blocked comes when a connection
// publishes while an alarm is set, with RabbitMQ 3.10.8's reason for the
// alarms set at that moment (rabbit_reader's blocked_by_message: "low on "
// and the resources of its set, which lists disk before memory, joined by
// " & "); once, whatever changes after, until every alarm has cleared;
// then connection.unblocked. A connection that does not publish is told
// neither.
func TestBlockedReasons(t *testing.T) {
	for _, tc := range []struct {
		name         string
		memory, disk bool
		want         string
	}{
		{"memory", true, false, "low on memory"},
		{"disk", false, true, "low on disk"},
		{"both", true, true, "low on disk & memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest(t, func(t *testing.T, b *broker.Broker) {
				cfg := Config{Alarm: &Alarm{}}
				cfg.Defaults()
				a := cfg.Alarm
				idle := startPipe(t, b, cfg)
				idle.handshakeBlocked()
				c := startPipe(t, b, cfg)
				c.handshakeBlocked()
				c.method(1, &amqp.ChannelOpen{})
				c.expect(&amqp.ChannelOpenOk{})
				a.SetMemory(tc.memory)
				if tc.disk {
					a.DiskFailed(errors.New("low"))
				}
				pub, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: "nowhere"})
				pub, _ = amqp.AppendContent(pub, 1, amqp.ClassBasic, amqp.Properties{}, []byte("x"), 131072)
				c.send(pub)
				got := c.expect(&amqp.ConnectionBlocked{}).Method.(*amqp.ConnectionBlocked)
				if got.Reason != tc.want {
					t.Fatalf("connection.blocked reason %q, want %q", got.Reason, tc.want)
				}
				// The other reason coming or going tells nothing more.
				a.DiskFailed(errors.New("low"))
				a.SetMemory(true)
				a.DiskFailed(nil)
				a.SetMemory(false)
				c.expect(&amqp.ConnectionUnblocked{})
				c.method(1, &amqp.ChannelClose{})
				c.expect(&amqp.ChannelCloseOk{}) // the publishes went on: nothing between
				idle.method(0, &amqp.ConnectionClose{})
				idle.expect(&amqp.ConnectionCloseOk{}) // no notice before it
			})
		})
	}
}

// TestMemoryAlarmChecksOncePerInterval: fed a memory series that crosses
// the watermark every 7 ms for 10 s, the memory alarm sets at the first
// crossing over it and clears only at a check, one every MonitorInterval
// from when it was set, at which memory is under the watermark: at most
// one set and one clear an interval (8 changes at RabbitMQ's 2.5 s),
// where clearing at once (a negative interval) makes a change of every
// crossing, 1,430.
func TestMemoryAlarmChecksOncePerInterval(t *testing.T) {
	const steps, step = 1430, 7 * time.Millisecond
	for _, tc := range []struct {
		interval time.Duration
		most     int
	}{
		{DefaultMemoryMonitorInterval, 8},
		{time.Second, 20},
		{-1, steps},
	} {
		t.Run(tc.interval.String(), func(t *testing.T) {
			gosynctest.Test(t, func(t *testing.T) {
				a := &Alarm{HighWatermark: 1000, PerMessageBytes: 1, MonitorInterval: tc.interval}
				a.init()
				var over, under engine.MessageTotals
				over.Ready.Bytes, under.Ready.Bytes = 2000, 10
				for i := range steps {
					if i%2 == 0 {
						a.Totals(over)
					} else {
						a.Totals(under)
					}
					time.Sleep(step)
				}
				time.Sleep(5 * time.Second) // the last check
				a.mu.Lock()
				changes, on := a.changes, a.on
				a.mu.Unlock()
				if changes > tc.most || changes < 2 || (tc.interval < 0 && changes != tc.most) || on {
					t.Fatalf("%d changes, set at the end %t; want 2..%d, cleared", changes, on, tc.most)
				}
			})
		})
	}
}

// TestMemoryAlarmHoldsUntilUnder: a set memory alarm whose totals stay
// over the watermark stays set through its checks, and clears at the
// first check after they fall under it.
func TestMemoryAlarmHoldsUntilUnder(t *testing.T) {
	gosynctest.Test(t, func(t *testing.T) {
		a := &Alarm{HighWatermark: 1000, PerMessageBytes: 1}
		a.init()
		var over, under engine.MessageTotals
		over.Ready.Bytes, under.Ready.Bytes = 2000, 10
		on := func() bool { a.mu.Lock(); defer a.mu.Unlock(); return a.on }
		a.Totals(over)
		time.Sleep(6 * time.Second) // two checks, both over
		if !on() {
			t.Fatal("cleared while over the watermark")
		}
		a.Totals(under) // 6 s: the next check is at 7.5 s
		time.Sleep(time.Second)
		if !on() {
			t.Fatal("cleared before its check")
		}
		time.Sleep(time.Second)
		if on() {
			t.Fatal("still set after a check under the watermark")
		}
	})
}
