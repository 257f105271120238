package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"warren/engine/amqp"
)

// The load clients a workload can be run with (--client).
const (
	clientAMQP091   = "amqp091"   // rabbitmq/amqp091-go, a write per publish: the default
	clientPipelined = "pipelined" // pipe_*.go: many frames per system call
)

// pipelinedWorkloads are the workloads of the pipelining client. They
// share their names with amqp091-go's so that results line up, but
// publish from several connections, many publishes per write, and ack in
// batches; the counts are larger because each run is faster. Like
// amqp091-go's, persistent-confirms is durable: compare runs it on a
// Warren of its own with --data, --inproc gives its server a data
// directory.
var pipelinedWorkloads = []workload{
	{name: "publish-only", messages: 500_000, minSize: msgIDBytes, description: "pipelining publishers without confirms into one queue; msgs/s until a passive queue.declare sees the queue hold them all", run: runPipePublishOnly},
	{name: "publish-confirms", messages: 500_000, minSize: msgIDBytes, description: "pipelining publishers with confirms into one queue; msgs/s until the last confirm", run: runPipePublishConfirms},
	{name: "publish-consume", messages: 500_000, minSize: msgIDBytes, description: "pipelining publishers with confirms and consumers on one queue (manual acks, multiple=true, prefetch 500); msgs/s until the last delivery", run: runPipePublishConsume},
	{name: "fanout-10", messages: 50_000, minSize: msgIDBytes, description: "pipelining publishers with confirms to a fanout exchange bound to 10 queues, no-ack consumers sharing the queues; deliveries/s until the last delivery", run: runPipeFanout},
	{name: "persistent-confirms", messages: 200_000, minSize: msgIDBytes, durable: true, description: "pipelining publishers with confirms of persistent messages into a durable queue, on a Warren with a data directory; msgs/s until the last confirm", run: runPipePersistent},
	// The scale workloads keep their open load and their connections
	// (scale.go); only the client that carries it changes.
	scaleQueuesWorkload(newPipeScale, pipeScaleHow, printPipeScaleTable),
	scaleConnsWorkload(newPipeScale, pipeScaleHow, printPipeScaleTable),
}

// workloadsFor returns the workloads a client runs.
func workloadsFor(client string) ([]workload, error) {
	switch client {
	case clientAMQP091:
		return workloads, nil
	case clientPipelined:
		return pipelinedWorkloads, nil
	}
	return nil, fmt.Errorf("--client %q: want %s or %s", client, clientAMQP091, clientPipelined)
}

// runPipePublishOnly publishes N messages without confirms into one queue
// nobody consumes. The clock stops when a passive queue.declare sees the
// queue hold all N, as in amqp091-go's publish-only, so it measures what
// the broker took in, not how fast the client wrote to its sockets.
func runPipePublishOnly(ctx context.Context, e *env) (Result, error) {
	q := filledQueue{name: e.name("q")}
	return q.fill(e, func(s *session) (Result, error) {
		settle := func(ctx context.Context) error {
			_, err := waitForCount(ctx, s.ch, q.name, e.messages)
			return err
		}
		return runPipe(ctx, e, pipeJob{key: q.name, messages: e.messages, settle: settle})
	})
}

// runPipePublishConfirms publishes N messages with confirms into one
// queue nobody consumes.
func runPipePublishConfirms(ctx context.Context, e *env) (Result, error) {
	q := filledQueue{name: e.name("q")}
	return q.fill(e, func(*session) (Result, error) {
		return runPipe(ctx, e, pipeJob{key: q.name, confirm: true, messages: e.messages})
	})
}

// runPipePersistent publishes N persistent (delivery-mode 2) messages
// with confirms into a durable queue, which a broker confirms only once
// they are on disk (see runPersistent).
func runPipePersistent(ctx context.Context, e *env) (Result, error) {
	q := filledQueue{name: e.name("durable"), durable: true}
	return q.fill(e, func(*session) (Result, error) {
		return runPipe(ctx, e, pipeJob{key: q.name, confirm: true, messages: e.messages, props: amqp.Properties{DeliveryMode: 2}})
	})
}

// runPipePublishConsume publishes N messages into one queue that the
// consumers share, acking in batches.
func runPipePublishConsume(ctx context.Context, e *env) (res Result, err error) {
	q := e.name("q")
	defer func() { err = errors.Join(err, cleanup(e.url, []string{q}, nil)) }()
	s, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer s.close()
	if err := declareQueue(s.ch, q, nil); err != nil {
		return res, err
	}
	return runPipe(ctx, e, pipeJob{key: q, confirm: true, queues: []string{q}, consume: true, manualAck: true, messages: e.messages})
}

// runPipeFanout publishes N messages to a fanout exchange bound to
// fanoutQueues queues; every queue must deliver every message.
func runPipeFanout(ctx context.Context, e *env) (res Result, err error) {
	x := e.name("fanout")
	queues := make([]string, fanoutQueues)
	for i := range queues {
		queues[i] = e.name(fmt.Sprintf("q%d", i))
	}
	defer func() { err = errors.Join(err, cleanup(e.url, queues, []string{x})) }()
	s, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer s.close()
	if err := s.ch.ExchangeDeclare(x, amqp091.ExchangeFanout, false, false, false, false, nil); err != nil {
		return res, err
	}
	for _, q := range queues {
		if err := declareQueue(s.ch, q, nil); err != nil {
			return res, err
		}
		if err := s.ch.QueueBind(q, "", x, false, nil); err != nil {
			return res, err
		}
	}
	return runPipe(ctx, e, pipeJob{exchange: x, confirm: true, queues: queues, consume: true, messages: e.messages})
}

// pipeFlags defines the pipelining client's flags on fs.
func pipeFlags(fs *flag.FlagSet, c *pipeConfig) {
	fs.IntVar(&c.publishers, "publishers", defaultPipePublishers, "--client pipelined: publishing connections")
	fs.IntVar(&c.consumers, "consumers", defaultPipeConsumers, "--client pipelined: consuming connections")
	fs.IntVar(&c.batch, "batch", defaultPipeBatch, "--client pipelined: publishes per write system call, at most")
}

// describe says how the client loads the broker, for a table's header.
func (c pipeConfig) describe(client string) string {
	if client != clientPipelined {
		return "amqp091-go (github.com/rabbitmq/amqp091-go), one write system call per publish"
	}
	return fmt.Sprintf("the pipelining client: %d publishing and %d consuming connections, up to %d publishes per write", c.publishers, c.consumers, c.batch)
}
