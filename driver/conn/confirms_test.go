package conn

import (
	"fmt"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/amqpconn"
)

// TestCoalesceConfirms: runs of acks for consecutive tags on one channel,
// adjacent in the outbox, leave only their last ack, with multiple=true;
// anything else between them, a nack, a gap in the tags or another channel
// ends the run. Items spread over several chunks coalesce the same.
func TestCoalesceConfirms(t *testing.T) {
	ack := func(ch uint16, tag uint64) outItem {
		return outItem{channel: ch, ev: amqpconn.EventFrames{Kind: engine.EvConfirmed, DeliveryTag: tag}}
	}
	nack := func(ch uint16, tag uint64) outItem {
		return outItem{channel: ch, ev: amqpconn.EventFrames{Kind: engine.EvNacked, DeliveryTag: tag}}
	}
	ret := func(ch uint16) outItem {
		return outItem{channel: ch, ev: amqpconn.EventFrames{Kind: engine.EvReturned}}
	}
	for _, c := range []struct {
		name  string
		items []outItem
		want  string
	}{
		{"one ack", []outItem{ack(1, 1)}, "ack 1/1"},
		{"a run", []outItem{ack(1, 1), ack(1, 2), ack(1, 3)}, "ack 1/3 multiple"},
		{"a return stays before the ack", []outItem{ack(1, 1), ret(1), ack(1, 2), ack(1, 3)}, "ack 1/1, return 1, ack 1/3 multiple"},
		{"a nack ends the run", []outItem{ack(1, 1), ack(1, 2), nack(1, 3), ack(1, 4)}, "ack 1/2 multiple, nack 1/3, ack 1/4"},
		{"a gap ends the run", []outItem{ack(1, 1), ack(1, 3)}, "ack 1/1, ack 1/3"},
		{"channels apart", []outItem{ack(1, 1), ack(2, 2), ack(1, 2)}, "ack 1/1, ack 2/2, ack 1/2"},
		{"across chunks", func() []outItem {
			var its []outItem
			for tag := uint64(1); tag <= 2*chunkItems+3; tag++ {
				its = append(its, ack(5, tag))
			}
			return its
		}(), fmt.Sprintf("ack 5/%d multiple", 2*chunkItems+3)},
	} {
		o := newOutbox()
		for _, it := range c.items {
			o.push(&it)
		}
		chunks, _ := o.take(nil)
		coalesceConfirms(chunks)
		var got []string
		for _, ch := range chunks {
			for _, it := range ch.items[:ch.n] {
				if it.skip {
					continue
				}
				s := map[engine.EventKind]string{engine.EvConfirmed: "ack", engine.EvNacked: "nack", engine.EvReturned: "return"}[it.ev.Kind]
				s += fmt.Sprintf(" %d", it.channel)
				if it.ev.Kind != engine.EvReturned {
					s += fmt.Sprintf("/%d", it.ev.DeliveryTag)
				}
				if it.ev.Multiple {
					s += " multiple"
				}
				got = append(got, s)
			}
		}
		if g := strings.Join(got, ", "); g != c.want {
			t.Errorf("%s: %s, want %s", c.name, g, c.want)
		}
	}
}
