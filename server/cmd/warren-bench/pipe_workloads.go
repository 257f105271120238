package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// The load clients a workload can be run with (--client).
const (
	clientAMQP091   = "amqp091"   // rabbitmq/amqp091-go, a write per publish: the default
	clientPipelined = "pipelined" // pipe_*.go: many frames per system call
)

// pipelinedWorkloads are the workloads of the pipelining client. They
// share their names with amqp091-go's so that results line up, but publish
// with confirms from several connections and ack in batches; the counts
// are larger because each run is faster.
var pipelinedWorkloads = []workload{
	{name: "publish-confirms", messages: 500_000, minSize: msgIDBytes, description: "pipelining publishers with confirms into one queue; msgs/s until the last confirm", run: runPipePublishConfirms},
	{name: "publish-consume", messages: 500_000, minSize: msgIDBytes, description: "pipelining publishers with confirms and consumers on one queue (manual acks, multiple=true, prefetch 500); msgs/s until the last delivery", run: runPipePublishConsume},
	{name: "fanout-10", messages: 50_000, minSize: msgIDBytes, description: "pipelining publishers with confirms to a fanout exchange bound to 10 queues, no-ack consumers sharing the queues; deliveries/s until the last delivery", run: runPipeFanout},
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

// runPipePublishConfirms publishes N messages with confirms into one
// queue nobody consumes, then checks that the queue holds them all.
func runPipePublishConfirms(ctx context.Context, e *env) (res Result, err error) {
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
	res, err = runPipe(ctx, e, pipeJob{key: q, messages: e.messages})
	if err != nil {
		return res, err
	}
	qi, err := s.ch.QueueDeclarePassive(q, false, false, false, false, nil)
	if err != nil {
		return res, err
	}
	if qi.Messages != e.messages {
		return res, fmt.Errorf("queue holds %d messages after %d confirmed publishes", qi.Messages, e.messages)
	}
	return res, nil
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
	return runPipe(ctx, e, pipeJob{key: q, queues: []string{q}, consume: true, manualAck: true, messages: e.messages})
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
	return runPipe(ctx, e, pipeJob{exchange: x, queues: queues, consume: true, messages: e.messages})
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
