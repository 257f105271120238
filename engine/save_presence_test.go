package engine_test

import (
	"encoding/base64"
	"testing"

	"warren/engine"
)

// snapshotBeforePresence is a snapshot Warren wrote before properties kept
// presence (main at 5fdb86a): a durable queue q holding three messages,
// published with {content-type text/plain, headers {h: v}, delivery-mode
// 2, priority 3, timestamp 5, message-id m}, with {delivery-mode 2}, and
// with no properties.
const snapshotBeforePresence = "" +
	"V1JOUwEBgN3bAQAAANAPgBAAAJT4qfqXt96bngEBAwAAAAYGAAAAAAEHAQEBAAABLwAABgYAAAACAgEABWd1ZXN0AgIHAAECAwQF" +
	"BgEAAAAAAAAAAAZkaXJlY3QEAQAAAAAAAAAAAAphbXEuZGlyZWN0BAQBAAAAAAAAAAAACmFtcS5mYW5vdXQABmZhbm91dAcBAAAA" +
	"AAAAAAAACWFtcS50b3BpYwAFdG9waWMJAQAAAAAAAAAAAAthbXEuaGVhZGVycwAHaGVhZGVycwsBAAAAAAAAAAAACWFtcS5tYXRj" +
	"aAsLAQAAAAAAAAAAABJhbXEucmFiYml0bXEudHJhY2UJCQEAAQAAAAAAAAABcQEAAAAAAAAAAQEBAQEAAAlkcm9wLWhlYWQDAwMD" +
	"AAABAAADAAECAw4BnQYACnRleHQvcGxhaW4AAW0CAAFoDQABdgIDCgJ4AAEDBA4AAAIAAAECAw4BCAICeAACAgAAAQIDDgACeAAC" +
	"AgAAAAMAAAAAAAACAQADAgAAAAEBAAABAAAAAA4AAAAAAAAAAAAAAAAAAAAAAAMDAwMDAAABAAEAAA=="

// TestLoadSnapshotBeforePresence: a data directory written before
// presence was kept still loads, each property present that had a value
// (what that Warren sent a consumer), and saves and loads again.
func TestLoadSnapshotBeforePresence(t *testing.T) {
	data, err := base64.StdEncoding.DecodeString(snapshotBeforePresence)
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	b = saveLoad(t, b)
	q, ok := findQueueView(b.Snapshot(), "q")
	if !ok || len(q.Ready) != 3 {
		t.Fatalf("queue q: %+v", q)
	}
	first := q.Ready[0].Msg.Props
	want := engine.FlagContentType | engine.FlagHeaders | engine.FlagDeliveryMode | engine.FlagPriority | engine.FlagTimestamp | engine.FlagMessageID
	if first.Flags() != want || first.ContentType != "text/plain" || first.Headers["h"] != "v" || first.Priority != 3 || first.Timestamp != 5 || first.MessageID != "m" {
		t.Errorf("first message: flags %#04x, %+v", first.Flags(), *first)
	}
	if p := q.Ready[1].Msg.Props; p.Flags() != engine.FlagDeliveryMode || p.DeliveryMode != 2 {
		t.Errorf("second message: flags %#04x, %+v", p.Flags(), *p)
	}
	if p := q.Ready[2].Msg.Props; p != nil {
		t.Errorf("third message: %+v, want no properties", *p)
	}
}

// findQueueView returns the queue named name in vhost /.
func findQueueView(s engine.Snapshot, name string) (engine.QueueView, bool) {
	for _, v := range s.Vhosts {
		if v.Name != "/" {
			continue
		}
		for _, q := range v.Queues {
			if q.Name == name {
				return q, true
			}
		}
	}
	return engine.QueueView{}, false
}
