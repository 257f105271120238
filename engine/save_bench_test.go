package engine

import (
	"sync"
	"testing"
)

// saveBenchMsgs is how many messages BenchmarkSaveLoad's broker holds.
const saveBenchMsgs = 1_000_000

var saveBench struct {
	once sync.Once
	b    *Broker
	data []byte
}

// saveBenchBroker is a broker holding a million persistent 16-byte
// messages in one durable queue, built once for all the sub-benchmarks.
func saveBenchBroker(tb testing.TB) (*Broker, []byte) {
	saveBench.once.Do(func() {
		b, ch := benchBroker(tb, Config{Seed: 1})
		_, err := b.QueueDeclare(ch, QueueDeclare{Queue: "orders", Durable: true})
		must(tb, err)
		props := &Properties{DeliveryMode: 2}
		body := []byte("0123456789abcdef")
		var events []Event
		for i := range saveBenchMsgs {
			must(tb, b.BasicPublish(ch, BasicPublish{RoutingKey: "orders", Props: props, Body: body}))
			if i%4096 == 0 {
				events = b.DrainEvents(events[:0])
			}
		}
		b.DrainEvents(events[:0])
		saveBench.b, saveBench.data = b, b.Save()
	})
	return saveBench.b, saveBench.data
}

// BenchmarkSaveLoad measures Save and Load of a million queued persistent
// messages: time, snapshot bytes per message, allocations.
//
//	go test -run XXX -bench SaveLoad -benchtime 3x ./engine/
func BenchmarkSaveLoad(b *testing.B) {
	br, data := saveBenchBroker(b)
	perMsg := float64(len(data)) / saveBenchMsgs
	b.Run("save", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data = br.Save()
		}
		b.ReportMetric(perMsg, "bytes/msg")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/saveBenchMsgs, "ns/msg")
	})
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Load(data); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(perMsg, "bytes/msg")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/saveBenchMsgs, "ns/msg")
	})
}

// BenchmarkSaveLargeBodies is Save against SaveShared at 300,000 queued
// 1 KiB persistent messages: "shared" is what the store's snapshot holds
// the broker for, "shared+finish" the whole of it.
//
//	go test -run XXX -bench SaveLargeBodies -benchtime 5x ./engine/
func BenchmarkSaveLargeBodies(b *testing.B) {
	br, ch := benchBroker(b, Config{Seed: 1})
	_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "orders", Durable: true})
	must(b, err)
	props := &Properties{DeliveryMode: 2}
	var events []Event
	for i := range 300_000 {
		must(b, br.BasicPublish(ch, BasicPublish{RoutingKey: "orders", Props: props, Body: make([]byte, 1024)}))
		if i%4096 == 0 {
			events = br.DrainEvents(events[:0])
		}
	}
	br.DrainEvents(events[:0])
	b.Run("save", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = br.Save()
		}
	})
	b.Run("shared", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = br.SaveShared()
		}
	})
	b.Run("shared+finish", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = br.SaveShared()()
		}
	})
}
