package main

import (
	"context"
	"io"
	"testing"
	"time"

	"warren/driver/conn"
	"warren/server"
)

// inprocServer is a Warren in this process as a durableServer: enough
// for the pause scenarios that never restart it.
type inprocServer struct{ s *server.Server }

func (p inprocServer) start(context.Context) error { return nil }
func (p inprocServer) kill() error                 { return nil }
func (p inprocServer) stop() error                 { return nil }
func (p inprocServer) close() error                { return nil }
func (p inprocServer) addr() (string, int)         { return "amqp://guest:guest@" + p.s.AMQPAddr() + "/", 0 }
func (p inprocServer) dataDir() string             { return "" }
func (p inprocServer) running() error              { return nil }

// TestPauseScenariosAgainstWarren runs every scenario but recovery, tiny,
// against a Warren in this process (with a 1 MB memory watermark for the
// flood): each must finish and report the healthy client's round trips.
func TestPauseScenariosAgainstWarren(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets and a few seconds of load")
	}
	cfg := pausesConfig{queues: 300, listingReps: 2, burst: 500, burstSize: 1024, watermark: 1 << 20,
		floodSpan: 600 * time.Millisecond, backlog: 2000, persistent: 500, interval: time.Millisecond, quietSpan: 100 * time.Millisecond}
	// The flood's Warren has the watermark (as warren-bench gives it
	// --memory-high-watermark), the others not.
	start := func(alarm *conn.Alarm) *pauseBroker {
		srv, err := server.Start(server.Options{AMQPAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Conn: conn.Config{Alarm: alarm}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
		})
		return &pauseBroker{label: "Warren", srv: inprocServer{srv}, mgmt: "http://" + srv.HTTPAddr()}
	}
	plain, flooded := start(nil), start(&conn.Alarm{HighWatermark: cfg.watermark})
	for _, sc := range []string{"idle", "busy", "listings", "burst", "flood", "backlog", "persistent"} {
		b := plain
		if sc == "flood" {
			b = flooded
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		results, err := runPauseScenario(ctx, sc, cfg, b, io.Discard)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		if want := map[string]int{"listings": len(listingEndpoints)}[sc]; want != 0 && len(results) != want {
			t.Errorf("%s: %d results, want %d", sc, len(results), want)
		}
		for _, res := range results {
			n, ok := res.Metric("round trips")
			if _, has := res.Metric("longest pause"); !ok || !has || n.Value < 1 {
				t.Errorf("%s: %s: no round trips timed: %+v", sc, res.Workload, res.Metrics)
			}
			if m, ok := res.Metric("reply size"); sc == "listings" && (!ok || m.Value <= 0) {
				t.Errorf("%s: %s: empty reply", sc, res.Workload)
			}
			if m, ok := res.Metric("times blocked"); sc == "flood" && (!ok || m.Value < 1) {
				t.Errorf("flood never reached the watermark: %+v", res.Metrics)
			}
		}
	}
}
