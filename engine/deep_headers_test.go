package engine

import "testing"

// deepestAMQPTable is the most deeply nested headers table engine/amqp's
// decoder takes from a client: its MaxTableDepth (100) levels below the
// headers table itself. The engine must record, snapshot and load whatever
// a client may send: a table it could not record would stop the broker
// (record panics), and one it saved but could not load would leave a data
// directory the broker refuses.
func deepestAMQPTable() Table {
	deep := Table{"leaf": "x"}
	for range 100 {
		deep = Table{"t": deep}
	}
	return deep
}

func TestDeepestClientHeadersAreRecordedSavedAndLoaded(t *testing.T) {
	b := New(Config{RecordCommands: true})
	conn, err := b.OpenConnection(ConnectionOpen{User: "guest", Vhost: "/"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := b.OpenChannel(conn, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.QueueDeclare(ch, QueueDeclare{Queue: "q", Durable: true}); err != nil {
		t.Fatal(err)
	}
	res := b.Apply(CmdBasicPublish{Channel: ch, Publish: BasicPublish{RoutingKey: "q",
		Props: &Properties{DeliveryMode: 2, Headers: deepestAMQPTable()}, Body: []byte("deep")}})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var recs [][]byte
	b.DrainCommands(func(rec []byte) { recs = append(recs, append([]byte(nil), rec...)) })
	replay := New(Config{})
	for _, rec := range recs {
		c, err := DecodeCommand(rec)
		if err != nil {
			t.Fatalf("decoding a record: %v", err)
		}
		replay.Apply(c)
	}
	if got := replay.QueueSummaries("/", []string{"q"}); len(got) != 1 || got[0].ReadyCount != 1 {
		t.Fatalf("the replayed broker's queue: %+v, want 1 ready message", got)
	}
	b.DrainEvents(nil)
	loaded, err := Load(b.Save())
	if err != nil {
		t.Fatalf("loading the snapshot: %v", err)
	}
	if got := loaded.QueueSummaries("/", []string{"q"}); len(got) != 1 || got[0].ReadyCount != 1 {
		t.Fatalf("the loaded broker's queue: %+v, want 1 ready message", got)
	}
}
