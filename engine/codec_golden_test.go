package engine

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The bytes of command records and snapshots are a format on disk: logs
// and snapshots written by an older build must read the same in this one.
// These tests pin the bytes, recorded when the log and the snapshot were
// given one set of encoding primitives (wire.go); -rewrite-golden records
// them again, which only a deliberate change of format may do.
var rewriteGolden = flag.Bool("rewrite-golden", false, "rewrite testdata/*.golden")

const (
	goldenCommands = "testdata/commands.golden"
	goldenSnapshot = "testdata/snapshot.golden"
	// goldenSnapshotV1 is a version 1 snapshot (before direct reply-to's
	// section), which Load still reads; goldenSnapshotV1Saved is what
	// saving the broker it loads writes.
	goldenSnapshotV1      = "testdata/snapshot_v1.golden"
	goldenSnapshotV1Saved = "testdata/snapshot_v1_saved.golden"
	// goldenSnapshotV2 is the golden broker's version 2 snapshot (each
	// queue's ready messages inside its record), which Load still reads:
	// saving the broker it loads writes goldenSnapshot.
	goldenSnapshotV2 = "testdata/snapshot_v2.golden"
)

// TestCommandBytesArePinned checks that every sample command encodes to
// the recorded bytes, and that the recorded bytes decode to the sample.
func TestCommandBytesArePinned(t *testing.T) {
	samples := commandSamples()
	var lines []string
	for _, c := range samples {
		rec, err := AppendCommand(nil, c)
		if err != nil {
			t.Fatalf("%v: %v", KindOf(c), err)
		}
		lines = append(lines, hex.EncodeToString(rec))
	}
	want := readGolden(t, goldenCommands, []byte(strings.Join(lines, "\n")+"\n"))
	recorded := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	if len(recorded) != len(samples) {
		t.Fatalf("%s holds %d records, commandSamples %d: add a new sample at the end and rewrite", goldenCommands, len(recorded), len(samples))
	}
	for i, h := range recorded {
		rec, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		if h != lines[i] {
			t.Errorf("%v encodes to\n%s\nrecorded\n%s", KindOf(samples[i]), lines[i], h)
		}
		got, err := DecodeCommand(rec)
		if err != nil {
			t.Errorf("recorded %v: %v", KindOf(samples[i]), err)
		} else if !reflect.DeepEqual(got, samples[i]) {
			t.Errorf("recorded %v decodes to\n%#v\nwant\n%#v", KindOf(samples[i]), got, samples[i])
		}
	}
}

// goldenBroker builds a broker holding a little of everything a snapshot
// writes: field values of every type in arguments and headers, ready,
// unacked, delayed and dead-lettered messages, policies, users, a direct
// reply-to consumer.
func goldenBroker(t *testing.T) *Broker {
	b := New(Config{Seed: 7})
	apply := func(c Command) Result { t.Helper(); return mustApply(t, b, c) }
	apply(CmdPutUser{User: User{Name: "bob", PasswordHash: "aGFzaA==", HashingAlgorithm: "rabbit_password_hashing_sha256", Tags: []string{"management"}}})
	apply(CmdPutUserPermission{Permission: UserPermission{User: "bob", Vhost: "/", Configure: ".*", Write: ".*", Read: ".*"}})
	apply(CmdSetPolicy{Policy: Policy{Vhost: "/", Name: "ttl", Pattern: "^p", ApplyTo: "queues", Priority: 2,
		Definition: Table{"message-ttl": int64(60000), "dead-letter-exchange": "amq.fanout"}}})
	conn := apply(CmdOpenConnection{Open: ConnectionOpen{Vhost: "/", User: "guest", Name: "c1",
		ClientProperties: Table{"product": "golden", "capabilities": Table{"publisher_confirms": true}}}}).Conn
	ch := apply(CmdOpenChannel{Conn: conn, Num: 1}).Channel
	apply(CmdExchangeDeclare{Channel: ch, Declare: ExchangeDeclare{Exchange: "later", Type: KindDelayed, Durable: true,
		Args: Table{"x-delayed-type": "direct"}}})
	for _, q := range []string{"plain", "pq", "dlq"} {
		apply(CmdQueueDeclare{Channel: ch, Declare: QueueDeclare{Queue: q, Durable: true, Args: Table{"x-max-priority": uint8(9)}}})
		apply(CmdQueueBind{Channel: ch, Bind: QueueBind{Queue: q, Exchange: "amq.fanout", Args: everyType()}})
	}
	apply(CmdQueueBind{Channel: ch, Bind: QueueBind{Queue: "plain", Exchange: "later", RoutingKey: "k"}})
	apply(CmdConfirmSelect{Channel: ch})
	apply(CmdBasicConsume{Channel: ch, Consume: BasicConsume{Queue: ReplyToQueue, NoAck: true}})
	for i := range 3 {
		p := sampleProps() // i == 0 asks for a direct reply
		p.Priority = uint8(i)
		if i > 0 {
			p.ReplyTo = "answers"
		}
		apply(CmdBasicPublish{Channel: ch, Publish: BasicPublish{Exchange: "amq.fanout", Props: p, Body: []byte{byte(i), 0, 1}}})
	}
	apply(CmdBasicPublish{Channel: ch, Publish: BasicPublish{Exchange: "later", RoutingKey: "k",
		Props: &Properties{Headers: Table{"x-delay": int32(5000)}, Present: FlagHeaders}, Body: []byte("late")}})
	apply(CmdBasicConsume{Channel: ch, Consume: BasicConsume{Queue: "plain", ConsumerTag: "c", Args: Table{"x-priority": int32(3)}}})
	apply(CmdBasicGet{Channel: ch, Get: BasicGet{Queue: "pq"}})
	apply(CmdAdvanceTo{Time: 61_000})
	b.DrainEvents(nil)
	return b
}

// TestSnapshotBytesArePinned checks that the recorded snapshots load, and
// that saving what they loaded, or the broker the current one was taken
// from, gives the recorded bytes again.
func TestSnapshotBytesArePinned(t *testing.T) {
	v1, err := hex.DecodeString(strings.TrimSpace(string(readGolden(t, goldenSnapshotV1, nil))))
	if err != nil {
		t.Fatal(err)
	}
	l1, err := Load(v1)
	if err != nil {
		t.Fatalf("the recorded version 1 snapshot: %v", err)
	}
	saved := l1.Save()
	wantSaved, err := hex.DecodeString(strings.TrimSpace(string(readGolden(t, goldenSnapshotV1Saved, []byte(hex.EncodeToString(saved)+"\n")))))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, wantSaved) {
		t.Errorf("the version 1 snapshot saves differently after Load from %s (first difference at byte %d)", goldenSnapshotV1Saved, firstDifference(saved, wantSaved))
	}

	got := goldenBroker(t).Save()
	want, err := hex.DecodeString(strings.TrimSpace(string(readGolden(t, goldenSnapshot, []byte(hex.EncodeToString(got)+"\n")))))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the golden broker saves differently from %s (first difference at byte %d)", goldenSnapshot, firstDifference(got, want))
	}
	l, err := Load(want)
	if err != nil {
		t.Fatalf("the recorded snapshot: %v", err)
	}
	if again := l.Save(); !bytes.Equal(again, want) {
		t.Errorf("the recorded snapshot saves differently after Load (first difference at byte %d)", firstDifference(again, want))
	}

	v2, err := hex.DecodeString(strings.TrimSpace(string(readGolden(t, goldenSnapshotV2, nil))))
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Load(v2)
	if err != nil {
		t.Fatalf("the recorded version 2 snapshot: %v", err)
	}
	if again := l2.Save(); !bytes.Equal(again, want) {
		t.Errorf("the version 2 snapshot saves differently after Load from %s (first difference at byte %d)", goldenSnapshot, firstDifference(again, want))
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// readGolden returns the golden file's bytes, writing fresh first under
// -rewrite-golden (nil fresh: a file never rewritten).
func readGolden(t *testing.T, path string, fresh []byte) []byte {
	t.Helper()
	if *rewriteGolden && fresh != nil {
		if err := os.WriteFile(path, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite-golden to record it)", err)
	}
	return b
}
