package engine

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// Records and a snapshot written by the engine before direct reply-to
// moved into it (main at 7540c08): kind 22 PublishTarget{1.1, "nope"},
// kind 23 PublishDirect{From 1.1, To 2.1, "amq.ctag-reply-1", a reply
// "pong" to amq.rabbitmq.reply-to.x with correlation-id 1}, and a version
// 1 snapshot of a broker with a connection, a channel and a queue "rpc"
// holding "ping".
const (
	oldPublishTarget = "01160101046e6f7065"
	oldPublishDirect = "01170101020110616d712e637461672d7265706c792d310017616d712e7261626269746d712e7265706c792d746f2e780000028008013105706f6e67"
	oldSnapshot      = "57524e53010780dddb01000000d00f8010000092f8a9fa97b7de9b9e01010100000002080000000001070101010000012f0000020800000002020100056775657374020207000102030405060100000000000000000664697265637404010000000000000000000a616d712e6469726563740404010000000000000000000a616d712e66616e6f7574000666616e6f7574070100000000000000000009616d712e746f7069630005746f70696309010000000000000000000b616d712e686561646572730007686561646572730b0100000000000000000009616d712e6d617463680b0b0100000000000000000012616d712e7261626269746d712e7472616365090901000100000000000000037270630000000000000000010101010100000964726f702d6865616403030303000001000001000102030e000570696e67000103040e0000020000000100000000000002010003020000000101000001000000000e0000000000000000000000000000000000030303030300000100010000"
)

func decodeHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRetiredCommandsReplay: a log written when the driver kept the reply
// consumers still decodes, and replays as it did then: the reply goes to
// the channel and consumer tag the record names, taking that channel's
// next delivery tag, and the publish checks close the channel.
func TestRetiredCommandsReplay(t *testing.T) {
	b := New(Config{})
	c1, _ := b.OpenConnection(ConnectionOpen{Vhost: "/", User: "guest"})
	from, _ := b.OpenChannel(c1, 1)
	c2, _ := b.OpenConnection(ConnectionOpen{Vhost: "/", User: "guest"})
	to, _ := b.OpenChannel(c2, 1)
	b.DrainEvents(nil)
	var trace []string
	for _, rec := range []string{oldPublishDirect, oldPublishTarget} {
		c, err := DecodeCommand(decodeHex(t, rec))
		if err != nil {
			t.Fatalf("decode %s: %v", rec, err)
		}
		if again, _ := AppendCommand(nil, c); hex.EncodeToString(again) != rec {
			t.Errorf("%v re-encodes as %x", KindOf(c), again)
		}
		trace = append(trace, KindOf(c).String())
		b.Apply(c)
		for _, e := range b.DrainEvents(nil) {
			trace = append(trace, e.String())
		}
	}
	want := []string{
		"PublishDirect",
		`published ch=1/1 x="" key=amq.rabbitmq.reply-to.x msg=1`,
		"delivered ch=2/1 key=amq.rabbitmq.reply-to.x msg=1 consumer=amq.ctag-reply-1 tag=1 noack=true",
		"PublishTarget",
		"channel.closed ch=1/1 code=404 text=\"NOT_FOUND - no exchange 'nope' in vhost '/'\"",
	}
	if got := strings.Join(trace, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("replayed:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if from != (ChannelID{Conn: 1, Num: 1}) || to != (ChannelID{Conn: 2, Num: 1}) {
		t.Fatalf("channels %v %v", from, to)
	}
}

// TestSnapshotVersion1Loads: a snapshot written before the reply-to
// section loads, with no reply consumer, and saves again as the current
// version; a version from the future is refused.
func TestSnapshotVersion1Loads(t *testing.T) {
	old := decodeHex(t, oldSnapshot)
	b, err := Load(old)
	if err != nil {
		t.Fatalf("version 1: %v", err)
	}
	if q := b.vhosts["/"].queues["rpc"]; q == nil || q.ready.len() != 1 {
		t.Fatal("queue rpc and its message did not load")
	}
	for _, ch := range b.chans {
		if ch.reply != nil {
			t.Fatal("a version 1 snapshot loaded with a reply consumer")
		}
	}
	now := b.Save()
	if now[len(snapshotMagic)] != snapshotVersion {
		t.Fatalf("saved as version %d", now[len(snapshotMagic)])
	}
	if again, err := Load(now); err != nil || string(again.Save()) != string(now) {
		t.Fatalf("reload of the current version: %v", err)
	}
	future := append([]byte(nil), now...)
	future[len(snapshotMagic)] = snapshotVersion + 1
	if _, err := Load(future); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("snapshot version %d, this engine reads 1 to %d", snapshotVersion+1, snapshotVersion)) {
		t.Fatalf("a version from the future: %v", err)
	}
}
