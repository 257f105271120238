package hub

import (
	"encoding/json"
	"testing"
)

// BenchmarkCommandFanout is one participant's publish and ack in a
// session of five: the line run on the hub, the entry built, and the
// messages taken and encoded once each, as a driver does.
func BenchmarkCommandFanout(b *testing.B) {
	s := New(Config{ParticipantRate: 1 << 30, ParticipantBurst: 1 << 30, SessionRate: 1 << 30, SessionBurst: 1 << 30}, 0)
	var ids []ParticipantID
	for i := 0; i < 5; i++ {
		id, err := s.Join(0, "p", Editor)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	s.Command(0, ids[0], "", "declare queue q")
	s.Command(0, ids[1], "", "consume q")
	s.Ready()
	b.ReportAllocs()
	for b.Loop() {
		s.Command(0, ids[0], "", "publish q hello")
		s.Command(0, ids[1], "", "ack last")
		var last *Message
		for _, o := range s.Ready().Messages {
			if o.Msg != last {
				if _, err := json.Marshal(o.Msg); err != nil {
					b.Fatal(err)
				}
				last = o.Msg
			}
		}
	}
}
