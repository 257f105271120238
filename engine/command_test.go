package engine

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// everyType is a table holding one value of every field type the engine
// accepts, nested tables and arrays, and nil and empty variants.
func everyType() Table {
	return Table{
		"bool": true, "i8": int8(-8), "u8": uint8(200), "i16": int16(-1600), "u16": uint16(60000),
		"i32": int32(math.MinInt32), "u32": uint32(math.MaxUint32), "i64": int64(math.MinInt64), "int": 42,
		"f32": float32(1.5), "f64": math.Inf(-1), "dec": Decimal{Scale: 2, Value: -12345},
		"str": "héllo", "empty": "", "bin": []byte{0, 1, 2}, "nilbin": []byte(nil), "emptybin": []byte{},
		"ts": Timestamp(1700000000), "void": nil,
		"table":    Table{"a": []any{int32(1), "x", Table{"deep": false}}, "b": Table(nil)},
		"array":    []any{nil, []any{}, []any(nil), float32(-0.25)},
		"emptytab": Table{},
	}
}

func sampleProps() *Properties {
	p := &Properties{ContentType: "text/plain", ContentEncoding: "gzip", Headers: everyType(), DeliveryMode: 2,
		Priority: 9, CorrelationID: "corr", ReplyTo: "amq.rabbitmq.reply-to", Expiration: "60000", MessageID: "m-1",
		Timestamp: 1700000000, Type: "order", UserID: "guest", AppID: "app", ClusterID: "c"}
	p.Present = p.Flags() // as DecodeCommand gives them back
	return p
}

func samplePerms() *Permissions {
	return &Permissions{Configure: "^cfg", Write: ".*", Read: "",
		Topics: []TopicPermission{{Exchange: "amq.topic", Write: "^{username}\\.", Read: ".*"}, {Exchange: "t2"}}, Impersonator: true}
}

var ch1 = ChannelID{Conn: 1, Num: 1}

// commandSamples holds at least one command of every kind, with every
// field set (and the nil and empty variants where Go tells them apart).
func commandSamples() []Command {
	pub := BasicPublish{Exchange: "x", RoutingKey: "k", Mandatory: true, Immediate: true, Props: sampleProps(), Body: []byte("body")}
	return []Command{
		CmdOpenConnection{Open: ConnectionOpen{Vhost: "/", User: "guest", Name: "127.0.0.1:5000 -> 127.0.0.1:5672",
			ClientProperties: Table{"product": "x", "capabilities": Table{"publisher_confirms": true}}, Perms: samplePerms()}},
		CmdRestart{At: 90_000},
		CmdSetLimits{Limits: Limits{MaxQueuesPerVhost: 10, MaxMessagesPerVhost: -1}},
		CmdDurablePut{Vhost: "/", Queue: "q", Return: 2, Key: 7, Entry: []byte{1, 2, 3}},
		CmdDurableTake{Vhost: "/", Queue: "q", Seq: 9},
		CmdDurableHold{Vhost: "/", Queue: "q", Seq: 9, Channel: ChannelID{Conn: 3, Num: 1}, Tag: 4},
		CmdDurableDone{Vhost: "/", Queue: "q", Seq: 9},
		CmdDurableClock{Time: 1234},
		CmdDurableQueue{Vhost: "/", Name: "q", AutoDelete: true, Args: Table{"x-max-length": int32(3)}, Quorum: false},
		CmdDurableQueueGone{Vhost: "/", Name: "q"},
		CmdDurableExchange{Vhost: "/", Name: "x", Type: "x-delayed-message", Route: "topic", Internal: true, Args: Table{"x-delayed-type": "topic"}},
		CmdDurableExchangeGone{Vhost: "/", Name: "x"},
		CmdDurableBind{Vhost: "/", Source: "x", Destination: "q", Key: "a.*", Args: Table{}},
		CmdDurableUnbind{Vhost: "/", Source: "x", Destination: "y", ToExchange: true, Key: "k"},
		CmdDurableBuffer{Vhost: "/", Queue: "q", Seq: 3, Buffered: true},
		CmdDurableDelay{Vhost: "/", Exchange: "later", Type: "x-delayed-message", Route: "direct", Durable: true, Args: Table{"x-delayed-type": "direct"}, Delay: 5000, Entry: []byte{0, 1}},
		CmdDurableRelease{Vhost: "/", Exchange: "later", ID: 12},
		CmdPutUser{User: User{Name: "bob", PasswordHash: "aGFzaA==", HashingAlgorithm: "rabbit_password_hashing_sha256", Tags: []string{"administrator", "impersonator"}}},
		CmdPutUser{User: User{Name: "nobody"}},
		CmdDeleteUser{Name: "bob"},
		CmdPutUserPermission{Permission: UserPermission{User: "bob", Vhost: "/", Configure: "^amq\\.gen", Write: ".*", Read: ""}},
		CmdClearUserPermission{User: "bob", Vhost: "/"},
		CmdPutTopicPermission{Permission: UserTopicPermission{User: "bob", Vhost: "/", Exchange: "amq.topic", Write: "^{username}\\.", Read: ".*"}},
		CmdClearTopicPermissions{User: "bob", Vhost: "/"},
		CmdOpenConnection{Open: ConnectionOpen{Vhost: "v"}},
		CmdOpenConnection{Open: ConnectionOpen{Perms: &Permissions{Topics: []TopicPermission{}}}},
		CmdCloseConnection{Conn: math.MaxUint32},
		CmdForceCloseConnection{Conn: 7, Reason: "Closed via management plugin"},
		CmdForceCloseUserConnections{User: "app", Reason: "user 'app' is deleted"},
		CmdPauseConnection{Conn: 3, Paused: true},
		CmdOpenChannel{Conn: 2, Num: math.MaxUint16},
		CmdCloseChannel{Channel: ch1},
		CmdChannelException{Channel: ch1, Err: &Error{Code: FrameError, Text: "FRAME_ERROR - too big", Method: MethodBasicPublish, Connection: true}},
		CmdChannelException{Channel: ch1},
		CmdExchangeDeclare{Channel: ch1, Declare: ExchangeDeclare{Exchange: "x", Type: KindDelayed, Passive: true, Durable: true,
			AutoDelete: true, Internal: true, Args: Table{"x-delayed-type": "direct"}}},
		CmdExchangeDelete{Channel: ch1, Delete: ExchangeDelete{Exchange: "x", IfUnused: true}},
		CmdExchangeBind{Channel: ch1, Bind: ExchangeBind{Destination: "d", Source: "s", RoutingKey: "a.#", Args: Table{"x-match": "any"}}},
		CmdExchangeUnbind{Channel: ch1, Bind: ExchangeBind{Destination: "d", Source: "s"}},
		CmdQueueDeclare{Channel: ch1, Declare: QueueDeclare{Queue: "q", Passive: true, Durable: true, Exclusive: true, AutoDelete: true,
			Args: Table{"x-message-ttl": int32(1000), "x-queue-type": "quorum", "x-max-length": int64(10)}}},
		CmdQueueDelete{Channel: ch1, Delete: QueueDelete{Queue: "q", IfUnused: true, IfEmpty: true}},
		CmdQueueBind{Channel: ch1, Bind: QueueBind{Queue: "q", Exchange: "x", RoutingKey: "k", Args: everyType()}},
		CmdQueueUnbind{Channel: ch1, Bind: QueueBind{Queue: "q", Exchange: "x", RoutingKey: "k", Args: Table{}}},
		CmdQueuePurge{Channel: ch1, Queue: "q"},
		CmdBasicQos{Channel: ch1, Qos: BasicQos{PrefetchSize: math.MaxUint32, PrefetchCount: 10, Global: true}},
		CmdBasicConsume{Channel: ch1, Consume: BasicConsume{Queue: "q", ConsumerTag: "c", NoLocal: true, NoAck: true, Exclusive: true,
			Args: Table{"x-priority": int32(5)}}},
		CmdBasicCancel{Channel: ch1, ConsumerTag: "c"},
		CmdBasicPublish{Channel: ch1, Publish: pub},
		CmdBasicPublish{Channel: ch1, Publish: BasicPublish{RoutingKey: "q"}},
		CmdBasicPublish{Channel: ch1, Publish: BasicPublish{Props: &Properties{}, Body: []byte{}}},
		CmdBasicPublish{Channel: ch1, Publish: BasicPublish{Props: &Properties{Present: AllPropertyFlags}}},
		CmdBasicPublish{Channel: ch1, Publish: BasicPublish{Props: &Properties{Present: FlagPriority | FlagHeaders | FlagMessageID, MessageID: "m"}}},
		retiredPublishTarget{Channel: ch1, Exchange: "amq.direct"},
		retiredPublishDirect{From: ch1, To: ChannelID{Conn: 2, Num: 3}, ConsumerTag: "amq.ctag-x", Publish: pub},
		CmdBasicGet{Channel: ch1, Get: BasicGet{Queue: "q", NoAck: true}},
		CmdBasicAck{Channel: ch1, DeliveryTag: math.MaxUint64, Multiple: true},
		CmdBasicNack{Channel: ch1, DeliveryTag: 3, Multiple: true, Requeue: true},
		CmdBasicReject{Channel: ch1, DeliveryTag: 4, Requeue: true},
		CmdBasicRecover{Channel: ch1, Requeue: true},
		CmdBasicRecoverAsync{Channel: ch1},
		CmdConfirmSelect{Channel: ch1},
		CmdTxSelect{Channel: ch1},
		CmdTxCommit{Channel: ch1},
		CmdTxRollback{Channel: ch1},
		CmdSetPolicy{Policy: Policy{Vhost: "/", Name: "ttl", Pattern: "^q", ApplyTo: "queues", Priority: -3,
			Definition: Table{"message-ttl": int64(5000), "dead-letter-exchange": "dlx"}}},
		CmdSetPolicy{Policy: Policy{Vhost: "/", Name: "cap", Pattern: ".*", Definition: Table{"max-length": int64(3)}}, Operator: true},
		CmdClearPolicy{Vhost: "/", Name: "ttl", Operator: true},
		CmdSetPermissions{User: "app", Vhost: "/", Perms: samplePerms()},
		CmdSetPermissions{User: "app", Vhost: "/"},
		CmdAddVhost{Name: "v"},
		CmdDeleteVhost{Name: "v"},
		CmdAdvanceTo{Time: 1 << 40},
		CmdAdvanceTo{Time: -1},
		CmdSettle{Time: 12345},
		CmdStep{},
		CmdDurablePolicy{Policy: Policy{Vhost: "/", Name: "ttl", Pattern: "^q", ApplyTo: "queues", Priority: 1, Definition: Table{"message-ttl": int64(500), "max-length": int64(2)}}},
		CmdDurablePolicy{Policy: Policy{Vhost: "/", Name: "ttl"}, Operator: true, Clear: true},
		CmdDurableRetime{Vhost: "/", Queue: "q1"},
		CmdDurableVhostGone{Name: "v2"},
	}
}

// TestCommandRoundTrip checks that every kind of command encodes, decodes
// to an equal command, and encodes again to the same bytes.
func TestCommandRoundTrip(t *testing.T) {
	seen := map[CommandKind]bool{}
	for _, c := range commandSamples() {
		k := KindOf(c)
		seen[k] = true
		rec, err := AppendCommand(nil, c)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if rec[0] != CommandFormat || CommandKind(rec[1]) != k {
			t.Fatalf("%v: record starts % x", k, rec[:2])
		}
		got, err := DecodeCommand(rec)
		if err != nil {
			t.Fatalf("%v: decode: %v", k, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("%v: decoded\n%#v\nwant\n%#v", k, got, c)
		}
		again, err := AppendCommand([]byte("prefix"), got)
		if err != nil || !bytes.Equal(again[len("prefix"):], rec) {
			t.Errorf("%v: re-encoded differently (%v)", k, err)
		}
	}
	for k := CommandKind(1); int(k) < len(commandNames); k++ {
		if !seen[k] {
			t.Errorf("no sample of command kind %v: add one to commandSamples", k)
		}
	}
}

// TestCommandEncodingIsCanonical checks that a table's encoding does not
// depend on its map's iteration order, at both key-ordering paths.
func TestCommandEncodingIsCanonical(t *testing.T) {
	for _, n := range []int{3, smallTable, smallTable + 5} {
		args := Table{}
		for i := range n {
			args[string(rune('a'+i))+"k"] = int32(i)
		}
		c := CmdQueueDeclare{Channel: ch1, Declare: QueueDeclare{Queue: "q", Args: args}}
		first, _ := AppendCommand(nil, c)
		for range 20 {
			c.Declare.Args = args.Clone()
			if again, _ := AppendCommand(nil, c); !bytes.Equal(again, first) {
				t.Fatalf("%d keys: encoding differs between runs", n)
			}
		}
	}
}

func TestCommandDecodeRejects(t *testing.T) {
	rec, _ := AppendCommand(nil, CmdBasicPublish{Channel: ch1, Publish: BasicPublish{Props: sampleProps(), Body: []byte("b")}})
	for i := range len(rec) {
		if _, err := DecodeCommand(rec[:i]); err == nil {
			t.Errorf("a record cut to %d of %d bytes decoded", i, len(rec))
		}
	}
	cases := map[string][]byte{
		"unknown format":   {CommandFormat + 1, byte(kindStep)},
		"unknown kind":     {CommandFormat, 200},
		"kind zero":        {CommandFormat, 0},
		"trailing bytes":   {CommandFormat, byte(kindStep), 0},
		"bad boolean":      {CommandFormat, byte(kindPauseConnection), 1, 2},
		"conn too large":   {CommandFormat, byte(kindCloseConnection), 0xff, 0xff, 0xff, 0xff, 0x7f},
		"string too long":  {CommandFormat, byte(kindAddVhost), 5, 'a'},
		"bad varint":       {CommandFormat, byte(kindAdvanceTo), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"unknown type tag": {CommandFormat, byte(kindQueueDeclare), 1, 1, 1, 'q', 0, 0, 0, 0, 2, 1, 'k', 'Z'},
		"keys out of order": {CommandFormat, byte(kindQueueDeclare), 1, 1, 1, 'q', 0, 0, 0, 0, 3,
			1, 'b', 'V', 1, 'a', 'V'},
	}
	for name, src := range cases {
		if c, err := DecodeCommand(src); err == nil {
			t.Errorf("%s: decoded %#v", name, c)
		} else if !strings.HasPrefix(err.Error(), "engine: command record") {
			t.Errorf("%s: error %q", name, err)
		}
	}
	deep := Table{}
	for range maxValueDepth + 1 {
		deep = Table{"t": deep}
	}
	if _, err := AppendCommand(nil, CmdQueueDeclare{Declare: QueueDeclare{Args: deep}}); err == nil {
		t.Error("a table nested too deeply encoded")
	}
	if _, err := AppendCommand(nil, CmdQueueDeclare{Declare: QueueDeclare{Args: Table{"u64": uint64(1)}}}); err == nil {
		t.Error("a uint64 field value encoded")
	}
}

// FuzzDecodeCommand feeds arbitrary bytes to the decoder: it must never
// panic, and whatever it accepts must encode to a record that decodes to
// the same command and the same bytes again.
func FuzzDecodeCommand(f *testing.F) {
	for _, c := range commandSamples() {
		rec, err := AppendCommand(nil, c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(rec)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := DecodeCommand(src)
		if err != nil {
			return
		}
		rec, err := AppendCommand(nil, c)
		if err != nil {
			t.Fatalf("decoded %#v does not encode: %v", c, err)
		}
		c2, err := DecodeCommand(rec)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		rec2, _ := AppendCommand(nil, c2)
		if !bytes.Equal(rec, rec2) {
			t.Fatalf("encoding is not stable:\n% x\n% x", rec, rec2)
		}
	})
}

// BenchmarkAppendCommand measures encoding a publish's record, with and
// without properties: the command log's share of a recorded publish.
func BenchmarkAppendCommand(b *testing.B) {
	for _, tc := range []struct {
		name  string
		props *Properties
	}{
		{"props=none", nil},
		{"props=headers", &Properties{DeliveryMode: 2, Headers: Table{"trace": "abc", "n": int32(7)}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := CmdBasicPublish{Channel: ch1, Publish: BasicPublish{RoutingKey: "q", Props: tc.props, Body: []byte("0123456789abcdef")}}
			buf := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = AppendCommand(buf[:0], c)
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}
