package mgmt

import (
	"net/http"
	"net/http/httptest"
	"strconv"
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
			f.b.Do(func(*engine.Broker) {})
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
// all (readStats); turn-ms, its longest single turn; views, the queue or
// other views it built there; and stall-ms, the longest an empty command
// from elsewhere waited for the broker meanwhile (what AMQP traffic sees).
func BenchmarkManagementRead(b *testing.B) {
	const queues, messages = 100_000, 400_000
	f := newFixture(&testing.T{})
	defer f.b.Stop()
	ch := f.client("/", "bench")
	f.engine(func(e *engine.Broker) {
		for i := 0; i < queues; i++ {
			if _, err := e.QueueDeclare(ch, engine.QueueDeclare{Queue: "q" + strconv.Itoa(i)}); err != nil {
				b.Fatal(err)
			}
			if i%1024 == 0 {
				e.DrainEvents(nil)
			}
		}
		e.DrainEvents(nil)
		body := []byte("0123456789abcdef")
		for i := 0; i < messages; i++ {
			if err := e.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q0", Body: body}); err != nil {
				b.Fatal(err)
			}
			if i%1024 == 0 {
				e.DrainEvents(nil)
			}
		}
		e.DrainEvents(nil)
	})
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
		b.Run(path, func(b *testing.B) {
			r := &f.api.reads
			nanos, turns, views := r.nanos.Load(), r.turns.Load(), r.views.Load()
			r.longest.Store(0)
			probe := startProbe(f)
			var bytes int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("GET", path, nil)
				req.RemoteAddr = "127.0.0.1:40000"
				req.SetBasicAuth("guest", "guest")
				w := &discardWriter{header: http.Header{}}
				f.h.ServeHTTP(w, req)
				if w.status != 200 {
					b.Fatalf("%s: status %d", path, w.status)
				}
				bytes += w.n
			}
			b.StopTimer()
			stall := probe.end()
			n := float64(b.N)
			b.ReportMetric(float64(r.nanos.Load()-nanos)/n/1e6, "broker-ms")
			b.ReportMetric(float64(r.turns.Load()-turns)/n, "turns")
			b.ReportMetric(float64(r.longest.Load())/1e6, "turn-ms")
			b.ReportMetric(float64(r.views.Load()-views)/n, "views")
			b.ReportMetric(float64(stall)/1e6, "stall-ms")
			b.ReportMetric(float64(bytes)/n, "bytes/reply")
		})
	}
}
