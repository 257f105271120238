package engine

import "testing"

// publishAckLoop sets up a queue with one consumer and returns one round of
// publish, ack and drain, as the benchmark runs it.
func publishAckLoop(tb testing.TB, cfg Config) func() {
	br, ch := benchBroker(tb, cfg)
	_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "q"})
	must(tb, err)
	_, err = br.BasicConsume(ch, BasicConsume{Queue: "q", ConsumerTag: "c"})
	must(tb, err)
	pub := BasicPublish{RoutingKey: "q", Body: []byte("0123456789abcdef"),
		Props: &Properties{DeliveryMode: 2, Headers: Table{"trace": "abc", "n": int32(7)}}}
	var events []Event
	var logged int
	tag := uint64(0)
	keep := func(rec []byte) { logged += len(rec) }
	return func() {
		tag++
		if err := br.BasicPublish(ch, pub); err != nil {
			tb.Fatal(err)
		}
		if err := br.Apply(CmdBasicAck{Channel: ch, DeliveryTag: tag}).Err; err != nil {
			tb.Fatal(err)
		}
		events = br.DrainEvents(events[:0])
		br.DrainCommands(keep)
	}
}

// TestRecordingAllocatesNothing checks that logging commands adds no
// allocation to a publish (with headers) and its ack once the log's
// buffers are warm.
func TestRecordingAllocatesNothing(t *testing.T) {
	off := publishAckLoop(t, Config{Seed: 1})
	on := publishAckLoop(t, Config{Seed: 1, RecordCommands: true})
	for range 100 {
		off()
		on()
	}
	a, b := testing.AllocsPerRun(1000, off), testing.AllocsPerRun(1000, on)
	if b > a {
		t.Fatalf("a publish and ack allocate %.1f times recorded, %.1f times not", b, a)
	}
}

// TestRecordingSkipsIdleClockMoves checks what is logged around the clock:
// a move to the current time with nothing due is left out, any other move
// is kept.
func TestRecordingSkipsIdleClockMoves(t *testing.T) {
	b := New(Config{Seed: 1, RecordCommands: true})
	count := func() int {
		n := 0
		b.DrainCommands(func([]byte) { n++ })
		return n
	}
	b.AdvanceTo(0)
	b.Settle(0)
	b.Step()
	if n := count(); n != 0 {
		t.Fatalf("%d records for clock moves that change nothing", n)
	}
	b.AdvanceTo(10)
	b.Settle(10)
	if n := count(); n != 1 {
		t.Fatalf("%d records for a move forward and an idle settle, want 1", n)
	}
	conn, _ := b.OpenConnection(ConnectionOpen{Vhost: "/"})
	ch, _ := b.OpenChannel(conn, 1)
	_, err := b.QueueDeclare(ch, QueueDeclare{Queue: "q", Args: Table{"x-message-ttl": int32(5)}})
	must(t, err)
	must(t, b.BasicPublish(ch, BasicPublish{RoutingKey: "q"}))
	count()
	b.Step()
	if n := count(); n != 1 {
		t.Fatalf("%d records for a step that fired a timer, want 1", n)
	}
}

// TestDrainCommandsReentrant checks that fn may apply commands: theirs
// wait for the next drain, and the records being handed out stay intact.
func TestDrainCommandsReentrant(t *testing.T) {
	b := New(Config{Seed: 1, RecordCommands: true})
	must(t, b.AddVhost("a"))
	must(t, b.AddVhost("b"))
	var first []Command
	b.DrainCommands(func(rec []byte) {
		b.AddVhost("c") // grows the log while its records are handed out
		c, err := DecodeCommand(rec)
		must(t, err)
		first = append(first, c)
	})
	if len(first) != 2 || first[0] != (CmdAddVhost{Name: "a"}) || first[1] != (CmdAddVhost{Name: "b"}) {
		t.Fatalf("first drain %v", first)
	}
	if n := b.PendingCommands(); n != 2 {
		t.Fatalf("%d records pending after the drain, want the 2 applied during it", n)
	}
}

// BenchmarkPublishDeliverAckRecorded is BenchmarkPublishDeliverAck's
// default-exchange case, with headers, recording every command, against
// the same without recording: what the command log costs a message.
func BenchmarkPublishDeliverAckRecorded(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := "record=off"
		if rec {
			name = "record=on"
		}
		b.Run(name, func(b *testing.B) {
			round := publishAckLoop(b, Config{Seed: 1, RecordCommands: rec})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				round()
				if i%1024 == 1023 {
					yieldLikeADriver()
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
