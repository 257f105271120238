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
// against a Warren in this process for a few thousand messages. A run
// returns an error unless every publish was confirmed (none nacked) and
// every consumed queue received every message exactly once.
func TestPipelinedClientAgainstWarren(t *testing.T) {
	srv, err := server.Start(server.Options{AMQPAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	url := "amqp://guest:guest@" + srv.AMQPAddr() + "/"
	for _, c := range []struct {
		workload string
		messages int
		pipe     pipeConfig
		want     []string
	}{
		{"publish-confirms", 3000, pipeConfig{publishers: 3, consumers: 1, batch: 64}, []string{"3 publishers"}},
		{"publish-consume", 5000, pipeConfig{publishers: 2, consumers: 3, batch: 100}, []string{"3 consumers", "basic.ack multiple=true"}},
		{"fanout-10", 500, pipeConfig{publishers: 2, consumers: 4, batch: 50}, []string{"no-ack"}},
	} {
		t.Run(c.workload, func(t *testing.T) {
			w, err := findIn(pipelinedWorkloads, c.workload)
			if err != nil {
				t.Fatal(err)
			}
			e := &env{url: url, messages: c.messages, sizeBytes: 16, window: 200, inflightMax: 1, pipe: c.pipe, serverPID: os.Getpid()}
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
