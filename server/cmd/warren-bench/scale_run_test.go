package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"warren/server"
)

// TestScaleWorkloadsAgainstWarren runs the three scale workloads, small,
// against a Warren in this process, scale-queues and scale-conns with
// amqp091-go and with the pipelining client: every message must arrive
// once at its queue, every point must report its figures, and idle-memory
// its three.
func TestScaleWorkloadsAgainstWarren(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets and a few seconds of load")
	}
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
	scale := defaultScaleConfig()
	scale.queues, scale.conns = intList{1, 7}, intList{3}
	scale.warmup, scale.span = 100*time.Millisecond, 300*time.Millisecond
	for _, c := range []struct {
		workload, client string
		messages         int
		want             []string
		notes            []string
	}{
		{"scale-queues", clientAMQP091, 2000, []string{"throughput @1", "throughput @7", "latency p99 @7", metricProcessCPU + " @7", metricLagMax + " @1"}, nil},
		{"scale-conns", clientAMQP091, 2000, []string{"throughput @3", "latency p50 @3"}, nil},
		{"idle-memory", clientAMQP091, 20, []string{metricRSSWarm, metricIdleConns, metricIdleQueues}, nil},
		{"scale-queues", clientPipelined, 2000, []string{"throughput @1", "throughput @7", "latency p99 @7", metricProcessCPU + " @7", metricLagMax + " @1"},
			[]string{"7 queues: 7 queues, 4 publishers, 8 connections", "7 queues: pipelining client: ", "deliveries per basic.ack multiple=true (prefetch 100, an ack once 25"}},
		{"scale-conns", clientPipelined, 2000, []string{"throughput @3", "latency p50 @3", "latency p99 @3", metricLagMax + " @3"},
			[]string{"3 conns: 3 queues, 3 publishers, 3 connections", "3 conns: pipelining client: "}},
	} {
		t.Run(c.workload+"/"+c.client, func(t *testing.T) {
			res := runSmall(t, url, c.workload, c.client, c.messages, scale)
			for _, name := range c.want {
				m, ok := res.Metric(name)
				if !ok {
					t.Errorf("no %q in %+v", name, res.Metrics)
				}
				if strings.HasPrefix(name, "throughput") && (m.Value < 0.5*float64(c.messages) || m.Value > 1.5*float64(c.messages)) {
					t.Errorf("%s = %.0f msgs/s, offered %d", name, m.Value, c.messages)
				}
			}
			notes := strings.Join(res.Notes, "; ")
			for _, want := range c.notes {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q lack %q", notes, want)
				}
			}
		})
	}
}

// runSmall runs workload once with client against the broker at url,
// with scale's points, small enough for a test, and fails t if it fails.
func runSmall(t *testing.T, url, workload, client string, messages int, scale scaleConfig) Result {
	t.Helper()
	list, err := workloadsFor(client)
	if err != nil {
		t.Fatal(err)
	}
	w, err := findIn(list, workload)
	if err != nil {
		t.Fatal(err)
	}
	// settle 0: each RSS reading is taken at once (and noted as not
	// settled), which is all a test can afford.
	e := &env{url: url, messages: messages, sizeBytes: 16, window: 100, inflightMax: 1, serverPID: os.Getpid(), scale: scale,
		pipe: pipeConfig{publishers: 1, consumers: 1, batch: 8}}
	if err := checkEnv(w, e); err != nil {
		t.Fatal(err)
	}
	res, err := runOnce(context.Background(), w, e, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
