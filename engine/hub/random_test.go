package hub

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"warren/engine"
)

// TestRandomSessions interleaves random lines from several participants,
// AMQP actions, clock moves and mode switches, joins and leaves, and
// checks after each step that every page replicates the session byte for
// byte.
func TestRandomSessions(t *testing.T) {
	lines := []string{
		"declare queue q1", "declare queue q2 ttl=2s", "declare queue dlq",
		"declare queue q3 ttl=1s dlx=\"\" dlrk=dlq", "declare exchange x topic",
		"bind q1 x a.*", "bind q2 x #", "publish x a.b hi", "publish q3 bye",
		"publish q1 m count=3", "consume q1", "consume q2 prefetch=1", "ack last", "nack last requeue=true",
		"get dlq", "purge q2", "delete queue q1", "open c2", "use app", "confirm", "publish q2 p persistent",
		"qos 2", "recover", "close", "disconnect", "restart", "show queues", "step", "advance 1500ms",
	}
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			h := newHarness(t, Config{SnapshotEvery: 7, HashEvery: 5, ParticipantBurst: 1000, SessionBurst: 1000, Engine: engine.Config{Seed: seed, ConsumerTimeoutMs: 3000}})
			pages := []*page{h.join("p0", Editor)}
			var amqpCh engine.ChannelID
			for step := 0; step < 150; step++ {
				h.nowMs += int64(rng.IntN(800))
				switch n := rng.IntN(20); {
				case n == 0 && len(pages) < 5:
					pages = append(pages, h.join(fmt.Sprintf("p%d", step), Editor))
				case n == 1 && len(pages) > 1:
					i := rng.IntN(len(pages))
					h.s.Leave(h.nowMs, pages[i].id)
					delete(h.pages, pages[i].id)
					pages = append(pages[:i], pages[i+1:]...)
					h.pump()
				case n == 2:
					modes := []ClockMode{Live, Paused, Manual}
					h.s.SetClock(h.nowMs, modes[rng.IntN(3)])
					h.pump()
				case n == 3:
					h.s.Tick(h.nowMs)
					h.pump()
				case n == 4:
					origin := Origin{Kind: OriginAMQP, Connection: "c"}
					if amqpCh.Conn == 0 {
						res, _ := h.s.Apply(h.nowMs, origin, []engine.Command{engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", Name: "client", User: "guest"}}}, nil)
						amqpCh = engine.ChannelID{Conn: res[0].Conn, Num: 1}
						h.s.Apply(h.nowMs, origin, []engine.Command{engine.CmdOpenChannel{Conn: amqpCh.Conn, Num: 1},
							engine.CmdQueueDeclare{Channel: amqpCh, Declare: engine.QueueDeclare{Queue: "dlq"}},
							engine.CmdBasicConsume{Channel: amqpCh, Consume: engine.BasicConsume{Queue: "dlq", NoAck: true}}}, nil)
					}
					if res, _ := h.s.Apply(h.nowMs, origin, []engine.Command{engine.CmdBasicPublish{Channel: amqpCh, Publish: engine.BasicPublish{RoutingKey: "q2", Body: []byte("amqp")}}}, nil); len(res) == 0 || res[0].Err != nil {
						amqpCh = engine.ChannelID{}
					}
					h.pump()
				default:
					p := pages[rng.IntN(len(pages))]
					h.s.Command(h.nowMs, p.id, "", lines[rng.IntN(len(lines))])
					h.pump()
				}
				h.inSync()
			}
			t.Logf("%d entries, clock %s at %d", h.s.Seq(), h.s.Mode(), h.s.b.Now())
			late := h.join("late", ReadOnly)
			h.inSync()
			h.send(late, Inbound{Type: InHash, Seq: h.s.Seq(), Hash: FormatHash(late.replica.Hash())})
			if len(h.last.Divergences) != 0 {
				t.Fatalf("divergence %+v", h.last.Divergences)
			}
		})
	}
}
