package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"warren/server"
)

// TestPipelinedClientAgainstWarren runs the pipelining client's workloads
// against a Warren in this process for a few thousand messages, the
// durable one against a second Warren with a data directory. A run
// returns an error unless every publish was confirmed exactly once (none
// nacked), every consumed queue received every message exactly once, and
// a queue nobody consumes held exactly the messages published; the notes
// checked here are those counts as the run saw them.
func TestPipelinedClientAgainstWarren(t *testing.T) {
	url := startTestWarren(t, server.Options{})
	dataURL := startTestWarren(t, server.Options{DataDir: t.TempDir()})
	for _, c := range []struct {
		workload string
		messages int
		pipe     pipeConfig
		want     []string
	}{
		{"publish-only", 4000, pipeConfig{publishers: 3, consumers: 1, batch: 64}, []string{"3 publishers (no confirms", "the queue held 4000 messages at the end", "publishers finished writing after"}},
		{"publish-confirms", 3000, pipeConfig{publishers: 3, consumers: 1, batch: 64}, []string{"3 publishers", "3000 publishes confirmed", "the queue held 3000 messages at the end"}},
		{"publish-consume", 5000, pipeConfig{publishers: 2, consumers: 3, batch: 100}, []string{"5000 publishes confirmed", "3 consumers", "basic.ack multiple=true"}},
		{"fanout-10", 500, pipeConfig{publishers: 2, consumers: 4, batch: 50}, []string{"500 publishes confirmed", "no-ack"}},
		{"persistent-confirms", 2000, pipeConfig{publishers: 2, consumers: 1, batch: 50}, []string{"2000 publishes confirmed", "the queue held 2000 messages at the end"}},
	} {
		t.Run(c.workload, func(t *testing.T) {
			w, err := findIn(pipelinedWorkloads, c.workload)
			if err != nil {
				t.Fatal(err)
			}
			e := &env{url: url, messages: c.messages, sizeBytes: 16, window: 200, inflightMax: 1, pipe: c.pipe, serverPID: os.Getpid()}
			if w.durable {
				e.url = dataURL
			}
			if err := checkEnv(w, e); err != nil {
				t.Fatal(err)
			}
			res, err := runOnce(context.Background(), w, e, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Metrics) < 2 || !res.Metrics[0].HigherIsBetter || res.Metrics[0].Value <= 0 {
				t.Errorf("metrics %+v", res.Metrics)
			}
			if _, ok := res.Metric(metricProcessCPU); !ok {
				t.Errorf("no %s in %+v", metricProcessCPU, res.Metrics)
			}
			notes := strings.Join(res.Notes, "; ")
			for _, want := range c.want {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q lack %q", notes, want)
				}
			}
		})
	}
}

// startTestWarren starts a Warren in this process on loopback ports with
// opts, shut down when the test ends, and returns its AMQP URL.
func startTestWarren(t *testing.T, opts server.Options) string {
	t.Helper()
	opts.AMQPAddr, opts.HTTPAddr = "127.0.0.1:0", "127.0.0.1:0"
	srv, err := server.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "amqp://guest:guest@" + srv.AMQPAddr() + "/"
}

func TestPipeConfigCheck(t *testing.T) {
	ok := pipeConfig{publishers: defaultPipePublishers, consumers: defaultPipeConsumers, batch: defaultPipeBatch}
	if err := ok.check(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	for _, bad := range []pipeConfig{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {maxPipeConns + 1, 1, 1}} {
		if err := bad.check(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := workloadsFor("perftest"); err == nil {
		t.Error("an unknown client accepted")
	}
}
