package engine

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

// The engine's performance benchmarks. Targets and measured results are in
// BENCHMARKS.md; every benchmark reports its headline number with
// b.ReportMetric so that `go test -bench` prints it next to ns/op.

// benchBroker is a broker with one open channel, for benchmarks.
func benchBroker(tb testing.TB, cfg Config) (*Broker, ChannelID) {
	tb.Helper()
	b := New(cfg)
	conn, err := b.OpenConnection(ConnectionOpen{Vhost: "/", User: "guest"})
	if err != nil {
		tb.Fatal(err)
	}
	ch, err := b.OpenChannel(conn, 1)
	if err != nil {
		tb.Fatal(err)
	}
	b.DrainEvents(nil)
	return b, ch
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkPublishDeliverAck measures one message's whole life through the
// engine: basic.publish, routing, delivery to the queue's one consumer and
// basic.ack, with the events drained every message into a reused slice.
// yieldLikeADriver gives other goroutines a turn, as a real driver does
// between batches: the server's connections let go of the broker's lock and
// wait on their sockets, and in the browser every call from JavaScript
// returns to the event loop. Under WebAssembly there is no preemption, so
// without it a tight benchmark loop starves the garbage collector's mark
// worker and spends the whole run with write barriers on, a cost no real
// driver pays.
func yieldLikeADriver() { runtime.Gosched() }

func BenchmarkPublishDeliverAck(b *testing.B) {
	body := []byte("0123456789abcdef") // 16 bytes
	for _, via := range []string{"direct", "default"} {
		b.Run("exchange="+via, func(b *testing.B) {
			br, ch := benchBroker(b, Config{Seed: 1})
			_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "q"})
			must(b, err)
			pub := BasicPublish{Exchange: "", RoutingKey: "q", Body: body}
			if via == "direct" {
				must(b, br.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "x", Type: KindDirect}))
				must(b, br.QueueBind(ch, QueueBind{Queue: "q", Exchange: "x", RoutingKey: "k"}))
				pub = BasicPublish{Exchange: "x", RoutingKey: "k", Body: body}
			}
			_, err = br.BasicConsume(ch, BasicConsume{Queue: "q", ConsumerTag: "c"})
			must(b, err)
			events := br.DrainEvents(nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := br.BasicPublish(ch, pub); err != nil {
					b.Fatal(err)
				}
				if err := br.Apply(CmdBasicAck{Channel: ch, DeliveryTag: uint64(i + 1)}).Err; err != nil {
					b.Fatal(err)
				}
				events = br.DrainEvents(events[:0])
				if i%1024 == 1023 {
					yieldLikeADriver()
				}
			}
			b.StopTimer()
			if len(events) == 0 || events[len(events)-1].Kind != EvAcked {
				b.Fatalf("last event %v, want acked", events)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// topicBindings is the size of the topic routing benchmark's binding table.
const topicBindings = 10_000

// topicBench declares a topic exchange "t" with topicBindings bindings over
// 100 queues, mixing literal, "*" and "#" patterns, and returns routing keys
// that each match exactly one binding.
func topicBench(tb testing.TB) (*Broker, ChannelID, []string) {
	br, ch := benchBroker(tb, Config{Seed: 1})
	must(tb, br.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "t", Type: KindTopic}))
	for q := 0; q < 100; q++ {
		_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "q" + strconv.Itoa(q)})
		must(tb, err)
	}
	keys := make([]string, 0, topicBindings)
	for i := 0; i < topicBindings; i++ {
		n := strconv.Itoa(i)
		var pattern, key string
		switch i % 4 {
		case 0:
			pattern, key = "stock."+n+".nyse", "stock."+n+".nyse"
		case 1:
			pattern, key = "stock."+n+".*", "stock."+n+".nasdaq"
		case 2:
			pattern, key = "bond."+n+".#", "bond."+n+".us.10y"
		default:
			pattern, key = "*.fx"+n+".spot", "eur.fx"+n+".spot"
		}
		must(tb, br.QueueBind(ch, QueueBind{Queue: "q" + strconv.Itoa(i%100), Exchange: "t", RoutingKey: pattern}))
		keys = append(keys, key)
	}
	br.DrainEvents(nil)
	return br, ch, keys
}

// BenchmarkTopicRoute measures routing alone: matching a routing key against
// a topic exchange with 10,000 bindings, each key reaching one queue.
func BenchmarkTopicRoute(b *testing.B) {
	br, _, keys := topicBench(b)
	x := br.vhosts["/"].exchanges["t"]
	msg := &Message{Exchange: "t"}
	out := make([]target, 0, 4)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		msg.RoutingKey = keys[i%len(keys)]
		out = br.route(x, msg, msg.RoutingKeys(), out[:0])
		if len(out) != 1 {
			b.Fatalf("key %q reached %d queues", msg.RoutingKey, len(out))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "routes/s")
}

// BenchmarkTopicPublish is BenchmarkTopicRoute through basic.publish, with
// a no-ack consumer on every queue so that nothing accumulates.
func BenchmarkTopicPublish(b *testing.B) {
	br, ch, keys := topicBench(b)
	for q := 0; q < 100; q++ {
		_, err := br.BasicConsume(ch, BasicConsume{Queue: "q" + strconv.Itoa(q), NoAck: true})
		must(b, err)
	}
	body := []byte("0123456789abcdef")
	events := br.DrainEvents(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := br.BasicPublish(ch, BasicPublish{Exchange: "t", RoutingKey: keys[i%len(keys)], Body: body}); err != nil {
			b.Fatal(err)
		}
		events = br.DrainEvents(events[:0])
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkFanoutPublish publishes through a fanout exchange bound to 10
// queues, each with a no-ack consumer: one publish, ten copies enqueued and
// delivered (RECIPES.md measured RabbitMQ's fanout to 10 queues).
func BenchmarkFanoutPublish(b *testing.B) {
	br, ch := benchBroker(b, Config{Seed: 1})
	must(b, br.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "f", Type: KindFanout}))
	for q := 0; q < 10; q++ {
		name := "q" + strconv.Itoa(q)
		_, err := br.QueueDeclare(ch, QueueDeclare{Queue: name})
		must(b, err)
		must(b, br.QueueBind(ch, QueueBind{Queue: name, Exchange: "f"}))
		_, err = br.BasicConsume(ch, BasicConsume{Queue: name, NoAck: true})
		must(b, err)
	}
	pub := BasicPublish{Exchange: "f", Body: []byte("0123456789abcdef")}
	events := br.DrainEvents(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := br.BasicPublish(ch, pub); err != nil {
			b.Fatal(err)
		}
		events = br.DrainEvents(events[:0])
		if i%1024 == 1023 {
			yieldLikeADriver()
		}
	}
	b.StopTimer()
	if len(events) != 21 {
		b.Fatalf("%d events per publish, want 21", len(events))
	}
	b.ReportMetric(float64(b.N)*10/b.Elapsed().Seconds(), "deliveries/s")
}

// expiryBench queues n messages sharing one body in queue "src" (message TTL
// 1s, dead-lettering to the fanout exchange "dlx" bound to queue "dead").
func expiryBench(tb testing.TB, n int, body []byte) *Broker {
	br, ch := benchBroker(tb, Config{Seed: 1})
	must(tb, br.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "dlx", Type: KindFanout}))
	_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "dead"})
	must(tb, err)
	must(tb, br.QueueBind(ch, QueueBind{Queue: "dead", Exchange: "dlx"}))
	_, err = br.QueueDeclare(ch, QueueDeclare{Queue: "src", Args: Table{"x-message-ttl": int32(1000), "x-dead-letter-exchange": "dlx"}})
	must(tb, err)
	events := br.DrainEvents(nil)
	for i := 0; i < n; i++ {
		if err := br.BasicPublish(ch, BasicPublish{RoutingKey: "src", Body: body}); err != nil {
			tb.Fatal(err)
		}
		events = br.DrainEvents(events[:0])
	}
	return br
}

// BenchmarkExpireToDLX measures the engine's work when 1,000,000 queued
// messages expire and are dead-lettered into another queue (3,000,000
// events), and, separately, the DrainEvents that then hands those events
// over in one new slice. The expiry is done in batches, a continuation per
// batch (backlog.go); Settle runs them all, and s/advance is their sum.
func BenchmarkExpireToDLX(b *testing.B) {
	const n = 1_000_000
	body := []byte("0123456789abcdef")
	b.ReportAllocs()
	var advance, drain time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		br := expiryBench(b, n, body)
		runtime.GC()
		b.StartTimer()
		start := time.Now()
		br.Settle(2000)
		advance += time.Since(start)
		start = time.Now()
		events := br.DrainEvents(nil)
		drain += time.Since(start)
		b.StopTimer()
		if got := br.vhosts["/"].queues["dead"].ready.len(); got != n || len(events) != 3*n {
			b.Fatalf("dead queue holds %d, %d events; want %d, %d", got, len(events), n, 3*n)
		}
		b.StartTimer()
	}
	b.ReportMetric(advance.Seconds()/float64(b.N), "s/advance")
	b.ReportMetric(drain.Seconds()/float64(b.N), "s/drain")
	b.ReportMetric(float64(n)*float64(b.N)/advance.Seconds(), "msgs/s")
}

// TestQueuedMessageOverhead measures the engine's memory per queued message
// beyond its body: 1,000,000 messages sharing one body are queued, and the
// live heap is compared before and after (both after a GC). It is a test
// rather than a benchmark so that it runs once; it is skipped in -short.
func TestQueuedMessageOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("queues 1,000,000 messages")
	}
	const n = 1_000_000
	body := []byte("0123456789abcdef")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	br := expiryBench(t, n, body)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perMsg := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	runtime.KeepAlive(br)
	t.Logf("engine memory per queued message (beyond its shared 16-byte body): %.1f bytes", perMsg)
	if perMsg > 150 {
		t.Errorf("%.1f bytes per queued message, want at most 150", perMsg)
	}
}

// BenchmarkQueuedMessageOverhead reports the same measurement as a metric.
func BenchmarkQueuedMessageOverhead(b *testing.B) {
	const n = 1_000_000
	body := []byte("0123456789abcdef")
	var perMsg float64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		br := expiryBench(b, n, body)
		runtime.GC()
		runtime.ReadMemStats(&after)
		perMsg = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		runtime.KeepAlive(br)
	}
	b.ReportMetric(perMsg, "bytes/msg")
}

// BenchmarkTimers measures NextDeadline and AdvanceTo with n armed timers,
// in two shapes: n queues each holding one message with a TTL of n ms, or n
// messages held by a delayed-message exchange for n ms. The timers are
// armed 1 ms apart, so they fire one per millisecond in round-robin. Each
// iteration reads the next deadline, advances to it (one message expires,
// or is released and dropped as unroutable) and publishes a replacement,
// which arms a timer n ms later, so that n stays constant.
func BenchmarkTimers(b *testing.B) {
	body := []byte("0123456789abcdef")
	for _, shape := range []string{"queue-ttl", "delayed"} {
		for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
			b.Run(shape+"/timers="+strconv.Itoa(n), func(b *testing.B) {
				br, ch := benchBroker(b, Config{Seed: 1})
				pubs := make([]BasicPublish, n)
				if shape == "delayed" {
					must(b, br.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "d", Type: KindDelayed, Args: Table{"x-delayed-type": "direct"}}))
					props := &Properties{Headers: Table{"x-delay": int64(n)}}
					for i := range pubs {
						pubs[i] = BasicPublish{Exchange: "d", RoutingKey: "k", Props: props, Body: body}
					}
				} else {
					for i := range pubs {
						name := "q" + strconv.Itoa(i)
						_, err := br.QueueDeclare(ch, QueueDeclare{Queue: name, Args: Table{"x-message-ttl": int64(n)}})
						must(b, err)
						pubs[i] = BasicPublish{RoutingKey: name, Body: body}
					}
				}
				events := br.DrainEvents(nil)
				for i := range pubs {
					br.AdvanceTo(Time(i))
					must(b, br.BasicPublish(ch, pubs[i]))
					events = br.DrainEvents(events[:0])
				}
				if br.timers.Len() != n {
					b.Fatalf("%d timers armed, want %d", br.timers.Len(), n)
				}
				runtime.GC()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					at, ok := br.NextDeadline()
					if !ok {
						b.Fatal("no deadline")
					}
					br.AdvanceTo(at)
					must(b, br.BasicPublish(ch, pubs[i%n]))
					events = br.DrainEvents(events[:0])
				}
				b.StopTimer()
				if br.timers.Len() != n {
					b.Fatalf("%d timers armed after the run, want %d", br.timers.Len(), n)
				}
			})
		}
	}
}

// BenchmarkNextDeadline measures NextDeadline alone with 1,000,000 armed
// timers: it looks at the heap's root.
func BenchmarkNextDeadline(b *testing.B) {
	const n = 1_000_000
	br, ch := benchBroker(b, Config{Seed: 1})
	must(b, br.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "d", Type: KindDelayed, Args: Table{"x-delayed-type": "direct"}}))
	for i := 0; i < n; i++ {
		p := BasicPublish{Exchange: "d", Props: &Properties{Headers: Table{"x-delay": int64(1 + i)}}}
		must(b, br.BasicPublish(ch, p))
		br.DrainEvents(nil)
	}
	b.ResetTimer()
	var at Time
	for i := 0; i < b.N; i++ {
		at, _ = br.NextDeadline()
	}
	if at != 1 {
		b.Fatalf("next deadline %d, want 1", at)
	}
}
