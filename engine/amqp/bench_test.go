package amqp

import "testing"

// BenchmarkPublishIn measures the inbound publish path: 100 basic.publish
// commands with 16-byte bodies, fed as one read, cut into frames and
// assembled.
func BenchmarkPublishIn(b *testing.B) {
	var in []byte
	for range 100 {
		in, _ = AppendMethodFrame(in, 1, &BasicPublish{RoutingKey: "q1"})
		in, _ = AppendContent(in, 1, ClassBasic, Properties{DeliveryMode: 2}, make([]byte, 16), 131072)
	}
	r := NewFrameReader(ReaderConfig{NoProtocolHeader: true, FrameMax: 131072})
	a := NewAssembler(AssemblerConfig{})
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Feed(in)
		n := 0
		for {
			f, ok, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			if _, done, err := a.Add(f); err != nil {
				b.Fatal(err)
			} else if done {
				n++
			}
		}
		if n != 100 {
			b.Fatalf("%d commands", n)
		}
	}
}

// BenchmarkDeliverOut measures the outbound delivery path: basic.deliver,
// content header and a 16-byte body appended to a reused buffer.
func BenchmarkDeliverOut(b *testing.B) {
	m := &BasicDeliver{ConsumerTag: "ctag-1", DeliveryTag: 1, RoutingKey: "q1"}
	props := Properties{DeliveryMode: 2, ContentType: "text/plain"}
	body := make([]byte, 16)
	var out []byte
	for b.Loop() {
		out, _ = AppendMethodFrame(out[:0], 1, m)
		out, _ = AppendContent(out, 1, ClassBasic, props, body, 131072)
	}
}
