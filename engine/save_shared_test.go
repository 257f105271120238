package engine

import (
	"bytes"
	"testing"
)

// TestSaveSharedIsSaveWithBodiesShared: SaveShared's pieces, one after
// the other, are Save's bytes; each body of sharedBodyMin bytes or more
// is a piece of its own, the slice the message was published with, once
// even when two queues and a delivery hold it; smaller bodies are copied.
func TestSaveSharedIsSaveWithBodiesShared(t *testing.T) {
	b, ch := benchBroker(t, Config{Seed: 1})
	must(t, b.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "fan", Type: KindFanout}))
	for _, q := range []string{"a", "b"} {
		_, err := b.QueueDeclare(ch, QueueDeclare{Queue: q, Durable: true})
		must(t, err)
		must(t, b.QueueBind(ch, QueueBind{Queue: q, Exchange: "fan"}))
	}
	sizes := []int{0, 10, sharedBodyMin - 1, sharedBodyMin, 4096}
	var bodies [][]byte
	for i, n := range sizes {
		body := bytes.Repeat([]byte{byte('a' + i)}, n)
		bodies = append(bodies, body)
		must(t, b.BasicPublish(ch, BasicPublish{Exchange: "fan", Props: &Properties{DeliveryMode: 2}, Body: body}))
	}
	// One copy of each in "a" is delivered and left unacked.
	_, err := b.BasicConsume(ch, BasicConsume{Queue: "a"})
	must(t, err)
	b.DrainEvents(nil)

	want := b.Save()
	pieces := b.SaveShared()()
	if got := bytes.Join(pieces, nil); !bytes.Equal(got, want) {
		t.Fatalf("SaveShared joined: %d bytes, differ from Save's %d", len(got), len(want))
	}
	shared := 0
	for _, body := range bodies {
		n := 0
		for _, p := range pieces {
			if len(p) > 0 && len(p) == len(body) && &p[0] == &body[0] {
				n++
			}
		}
		switch {
		case len(body) >= sharedBodyMin && n != 1:
			t.Errorf("a %d-byte body is %d pieces of its own, want 1", len(body), n)
		case len(body) < sharedBodyMin && n != 0:
			t.Errorf("a %d-byte body is shared, want it copied", len(body))
		}
		shared += n
	}
	if len(pieces) != 2*shared+1 {
		t.Errorf("%d pieces for %d shared bodies, want %d", len(pieces), shared, 2*shared+1)
	}
	if _, err := Load(want); err != nil {
		t.Fatal(err)
	}
}

// TestSaveSharedFinishesWhatWasSaved: finish, run on another goroutine
// while the broker goes on (publishing into the queues, delivering,
// acking, purging, deleting one), writes the state SaveShared was called
// in: its pieces are the Save of that moment. go test -race checks that
// finish reads nothing the broker changes.
func TestSaveSharedFinishesWhatWasSaved(t *testing.T) {
	b, ch := benchBroker(t, Config{Seed: 1})
	must(t, b.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "fan", Type: KindFanout}))
	for _, q := range []QueueDeclare{{Queue: "a", Durable: true}, {Queue: "b"}, {Queue: "p", Args: Table{"x-max-priority": int32(3)}}} {
		_, err := b.QueueDeclare(ch, q)
		must(t, err)
		must(t, b.QueueBind(ch, QueueBind{Queue: q.Queue, Exchange: "fan"}))
	}
	publish := func(n int) {
		for i := range n {
			body := bytes.Repeat([]byte{byte(i)}, []int{16, 300, 2000}[i%3])
			props := &Properties{DeliveryMode: 2, Priority: uint8(i % 4), Headers: Table{"n": int32(i)}}
			must(t, b.BasicPublish(ch, BasicPublish{Exchange: "fan", Props: props, Body: body}))
		}
		b.DrainEvents(nil)
	}
	publish(300)
	// Some delivered, one returned to its queue (a requeued copy).
	got, ok, err := b.BasicGet(ch, BasicGet{Queue: "a"})
	if !ok {
		t.Fatal("basic.get found nothing")
	}
	must(t, err)
	must(t, b.Apply(CmdBasicReject{Channel: ch, DeliveryTag: got.DeliveryTag, Requeue: true}).Err)
	_, err = b.BasicConsume(ch, BasicConsume{Queue: "b"})
	must(t, err)
	b.DrainEvents(nil)

	want := b.Save()
	finish := b.SaveShared()
	done := make(chan [][]byte)
	go func() { done <- finish() }()
	publish(300)
	_, err = b.QueuePurge(ch, "a")
	must(t, err)
	_, err = b.QueueDelete(ch, QueueDelete{Queue: "p"})
	must(t, err)
	b.DrainEvents(nil)
	if got := bytes.Join(<-done, nil); !bytes.Equal(got, want) {
		t.Fatalf("finished after the broker moved on: %d bytes, differ from the Save of the moment (%d)", len(got), len(want))
	}
}

// TestSaveSharedFinishedLate: finish, run only after the broker has gone
// on through every change to a queue's ready messages that reuses or
// rewrites where they were kept (chunked.share): delivering from the
// front across chunks, emptying a queue and filling it again, purging,
// dropping the head for a length limit, re-timing for a TTL. Its pieces
// are still the Save of the moment SaveShared was called.
func TestSaveSharedFinishedLate(t *testing.T) {
	b, ch := benchBroker(t, Config{Seed: 1})
	must(t, b.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "fan", Type: KindFanout}))
	queues := []QueueDeclare{{Queue: "front", Durable: true}, {Queue: "emptied"}, {Queue: "purged"},
		{Queue: "limited"}, {Queue: "timed"}, {Queue: "prio", Args: Table{"x-max-priority": int32(2)}}}
	for _, q := range queues {
		_, err := b.QueueDeclare(ch, q)
		must(t, err)
		must(t, b.QueueBind(ch, QueueBind{Queue: q.Queue, Exchange: "fan"}))
	}
	n := 0
	publish := func(k int) {
		for range k {
			props := &Properties{DeliveryMode: 2, Priority: uint8(n % 3)}
			must(t, b.BasicPublish(ch, BasicPublish{Exchange: "fan", Props: props, Body: []byte{byte(n), byte(n >> 8)}}))
			n++
		}
		b.DrainEvents(nil)
	}
	get := func(q string, k int) {
		for range k {
			if _, ok, err := b.BasicGet(ch, BasicGet{Queue: q, NoAck: true}); !ok || err != nil {
				t.Fatalf("basic.get %s: ok %v, %v", q, ok, err)
			}
		}
		b.DrainEvents(nil)
	}
	publish(3*chunkLen + 50)

	want := b.Save()
	finish := b.SaveShared()
	get("front", chunkLen+10)
	get("emptied", 3*chunkLen+50)
	_, err := b.QueuePurge(ch, "purged")
	must(t, err)
	publish(chunkLen)
	must(t, b.SetPolicy(Policy{Vhost: "/", Name: "limit", Pattern: "^limited$", ApplyTo: "queues", Definition: Table{"max-length": int64(100)}}))
	must(t, b.SetPolicy(Policy{Vhost: "/", Name: "ttl", Pattern: "^timed$", ApplyTo: "queues", Definition: Table{"message-ttl": int64(0)}}))
	b.AdvanceTo(b.Now() + 1)
	publish(10)
	b.DrainEvents(nil)
	if got := bytes.Join(finish(), nil); !bytes.Equal(got, want) {
		t.Fatalf("finished late: %d bytes, differ from the Save of the moment (%d)", len(got), len(want))
	}
}
