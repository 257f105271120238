package engine

import (
	"bytes"
	"testing"
)

// TestApplyByPointer: a command given by pointer is the same command as
// its value: the same result, events and record, and nothing of it kept
// (the storage is reused for the next command at once). Publishing and
// acknowledging that way allocates only the message.
func TestApplyByPointer(t *testing.T) {
	run := func(byPointer bool) ([]Event, []byte) {
		br, ch := benchBroker(t, Config{Seed: 1, RecordCommands: true})
		must(t, br.Apply(CmdQueueDeclare{Channel: ch, Declare: QueueDeclare{Queue: "q"}}).Err)
		must(t, br.Apply(CmdBasicConsume{Channel: ch, Consume: BasicConsume{Queue: "q", ConsumerTag: "c"}}).Err)
		var pub CmdBasicPublish
		var ack CmdBasicAck
		for i := 1; i <= 3; i++ {
			pub = CmdBasicPublish{Channel: ch, Publish: BasicPublish{RoutingKey: "q", Body: []byte{byte(i)}}}
			ack = CmdBasicAck{Channel: ch, DeliveryTag: uint64(i)}
			var p, a Command = pub, ack
			if byPointer {
				p, a = &pub, &ack
			}
			must(t, br.Apply(p).Err)
			must(t, br.Apply(a).Err)
		}
		// An unknown tag fails the same way either way.
		ack = CmdBasicAck{Channel: ch, DeliveryTag: 99}
		var a Command = ack
		if byPointer {
			a = &ack
		}
		if err := br.Apply(a).Err; err == nil {
			t.Fatal("ack of tag 99: no error")
		}
		var recs []byte
		br.DrainCommands(func(rec []byte) { recs = append(recs, rec...) })
		return br.DrainEvents(nil), recs
	}
	evV, recV := run(false)
	evP, recP := run(true)
	if len(evV) != len(evP) {
		t.Fatalf("%d events by value, %d by pointer", len(evV), len(evP))
	}
	for i := range evV {
		if evV[i].String() != evP[i].String() {
			t.Errorf("event %d: by value %v, by pointer %v", i, evV[i], evP[i])
		}
	}
	if !bytes.Equal(recV, recP) {
		t.Errorf("records differ:\nby value   %x\nby pointer %x", recV, recP)
	}

	br, ch := benchBroker(t, Config{Seed: 1})
	must(t, br.Apply(CmdQueueDeclare{Channel: ch, Declare: QueueDeclare{Queue: "q"}}).Err)
	must(t, br.Apply(CmdBasicConsume{Channel: ch, Consume: BasicConsume{Queue: "q", ConsumerTag: "c"}}).Err)
	pub := &CmdBasicPublish{Channel: ch, Publish: BasicPublish{RoutingKey: "q", Body: []byte("x")}}
	ack := &CmdBasicAck{Channel: ch}
	events := br.DrainEvents(nil)
	var cmd Command
	allocs := testing.AllocsPerRun(1000, func() {
		cmd = pub
		must(t, br.Apply(cmd).Err)
		ack.DeliveryTag++
		cmd = ack
		must(t, br.Apply(cmd).Err)
		events = br.DrainEvents(events[:0])
	})
	if allocs > 1 {
		t.Errorf("publish and ack by pointer: %v allocations, want 1 (the message)", allocs)
	}
}
