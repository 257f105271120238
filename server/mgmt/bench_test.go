package mgmt

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"warren/engine"
)

// stallProbe measures what an AMQP connection sees while management
// requests run: it keeps asking the broker goroutine for an empty turn and
// records the longest wait for one.
type stallProbe struct {
	stop    atomic.Bool
	longest atomic.Int64
	wg      sync.WaitGroup
}

func startProbe(f *fixture) *stallProbe {
	p := &stallProbe{}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for !p.stop.Load() {
			start := time.Now()
			f.b.Reader(nil).Now() // a turn that does nothing
			if d := int64(time.Since(start)); d > p.longest.Load() {
				p.longest.Store(d)
			}
			time.Sleep(50 * time.Microsecond) // leave the broker to the request most of the time
		}
	}()
	return p
}

func (p *stallProbe) end() time.Duration {
	p.stop.Store(true)
	p.wg.Wait()
	return time.Duration(p.longest.Load())
}

// discardWriter is a ResponseWriter that counts the reply and keeps none
// of it, as a socket would: a recorder holding 44 MB per request would
// make the benchmark measure its own garbage.
type discardWriter struct {
	header http.Header
	status int
	n      int64
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(status int) { w.status = status }

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkManagementRead measures management GETs against a broker with
// 100,000 queues, one of which holds 400,000 messages, and reports per
// request: broker-ms, the time the request held the broker goroutine in
// all (readStats); turn-ms, its longest single turn; slow-turns, how many
// of its turns took longer than slowTurn (10 ms); views, the queue or
// other views it built there; and stall-ms, the longest an empty command
// from elsewhere waited for the broker meanwhile (what AMQP traffic sees).
func BenchmarkManagementRead(b *testing.B) {
	const queues, messages = 100_000, 400_000
	f := newFixture(&testing.T{})
	defer f.b.Stop()
	ch := f.client("/", "bench")
	f.declareQueues(ch, 0, queues)
	body := []byte("0123456789abcdef")
	publishes := make([]engine.Command, 0, messages)
	for i := 0; i < messages; i++ {
		publishes = append(publishes, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "q0", Body: body}})
	}
	f.apply(publishes...)
	for _, path := range []string{
		"/api/overview",
		"/api/queues?page=1&page_size=100",
		"/api/queues?page=1000&page_size=100",
		"/api/queues?page=1&page_size=100&name=q9999",
		"/api/queues/%2F/q0",
		"/api/queues/%2F/q0/bindings",
		"/api/queues?page=1&page_size=100&sort=messages",
		"/api/queues",
		"/api/exchanges?page=1&page_size=100",
		"/api/connections?page=1",
		"/api/vhosts",
	} {
		b.Run(path, func(b *testing.B) { measureRequests(b, f, "GET", path, "") })
	}
}

// measureRequests sends a request b.N times and reports what it cost the
// broker goroutine (see BenchmarkManagementRead).
func measureRequests(b *testing.B, f *fixture, method, path, body string) {
	r := &f.api.reads
	nanos, turns, views, slow := r.nanos.Load(), r.turns.Load(), r.views.Load(), r.slow.Load()
	r.longest.Store(0)
	r.most.Store(0)
	probe := startProbe(f)
	var bytes int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := serveDiscarding(f, method, path, body)
		if w.status != 200 && w.status != 204 {
			b.Fatalf("%s %s: status %d", method, path, w.status)
		}
		bytes += w.n
	}
	b.StopTimer()
	stall := probe.end()
	n := float64(b.N)
	b.ReportMetric(float64(r.nanos.Load()-nanos)/n/1e6, "broker-ms")
	b.ReportMetric(float64(r.turns.Load()-turns)/n, "turns")
	b.ReportMetric(float64(r.longest.Load())/1e6, "turn-ms")
	b.ReportMetric(float64(r.slow.Load()-slow)/n, "slow-turns")
	b.ReportMetric(float64(r.views.Load()-views)/n, "views")
	b.ReportMetric(float64(r.most.Load()), "items/turn")
	b.ReportMetric(float64(stall)/1e6, "stall-ms")
	b.ReportMetric(float64(bytes)/n, "bytes/reply")
}

// serveDiscarding sends a request as guest and keeps only the reply's
// status and size.
func serveDiscarding(f *fixture, method, path, body string) *discardWriter {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = "127.0.0.1:40000"
	req.SetBasicAuth("guest", "guest")
	w := &discardWriter{header: http.Header{}}
	f.h.ServeHTTP(w, req)
	return w
}

// boundQueues builds, in f's broker, n durable queues q0..q(n-1), each
// bound to the fanout exchange "fan" with its name as the key: n declared
// bindings on one exchange, and n implicit ones on the default exchange.
func boundQueues(tb testing.TB, f *fixture, n int) {
	ch := f.client("/", "bench")
	cmds := []engine.Command{engine.CmdExchangeDeclare{Channel: ch, Declare: engine.ExchangeDeclare{Exchange: "fan", Type: "fanout", Durable: true}}}
	for i := 0; i < n; i++ {
		q := "q" + strconv.Itoa(i)
		cmds = append(cmds, engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: q, Durable: true}},
			engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Exchange: "fan", Queue: q, RoutingKey: q}})
	}
	f.apply(append(cmds, engine.CmdCloseConnection{Conn: ch.Conn})...)
}

// BenchmarkBoundedTurns measures the requests whose work grows with the
// broker's bindings or definitions, against 100,000 durable queues each
// bound to one fanout exchange (100,000 declared bindings on it, 100,000
// implicit ones), with the metrics of BenchmarkManagementRead and
// items/turn, the most items (bindings, views, definitions, weighted
// import steps) one turn handled. The import posts the broker's exported
// definitions to a fresh broker each time (b.N times; its setup is not
// timed).
func BenchmarkBoundedTurns(b *testing.B) {
	const queues = 100_000
	f := newFixture(&testing.T{})
	defer f.b.Stop()
	boundQueues(b, f, queues)
	for _, path := range []string{
		"/api/bindings/%2F",
		"/api/exchanges/%2F/fan/bindings/source",
		"/api/queues/%2F/q0/bindings",
		"/api/bindings/%2F/e/fan/q/q0",
		"/api/definitions",
	} {
		b.Run("GET "+path, func(b *testing.B) { measureRequests(b, f, "GET", path, "") })
	}
	doc := f.must(200, "GET", "/api/definitions", "").body
	b.Run("POST /api/definitions", func(b *testing.B) {
		var broker, longest, most, stall, turns, slow float64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			g := newFixture(&testing.T{})
			r := &g.api.reads
			probe := startProbe(g)
			b.StartTimer()
			w := serveDiscarding(g, "POST", "/api/definitions", doc)
			b.StopTimer()
			stall = max(stall, float64(probe.end())/1e6)
			if w.status != 204 {
				b.Fatalf("import: status %d", w.status)
			}
			broker += float64(r.nanos.Load()) / 1e6
			turns += float64(r.turns.Load())
			slow += float64(r.slow.Load())
			longest = max(longest, float64(r.longest.Load())/1e6)
			most = max(most, float64(r.most.Load()))
			g.b.Stop()
			b.StartTimer()
		}
		b.ReportMetric(broker/float64(b.N), "broker-ms")
		b.ReportMetric(turns/float64(b.N), "turns")
		b.ReportMetric(longest, "turn-ms")
		b.ReportMetric(slow/float64(b.N), "slow-turns")
		b.ReportMetric(most, "items/turn")
		b.ReportMetric(stall, "stall-ms")
	})
}
