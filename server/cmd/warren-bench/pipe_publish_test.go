package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"warren/engine/amqp"
	"warren/server"
)

// TestConfirmAfterTheRun checks that a confirm arriving while a
// publisher's connection closes, after every publish was confirmed, fails
// the run when it confirms a tag a second time or one never published.
func TestConfirmAfterTheRun(t *testing.T) {
	p := &pipePublisher{count: 2, confirm: true}
	p.published.Store(2)
	ack := func(tag uint64, multiple bool) amqp.Frame {
		return amqp.Frame{Type: amqp.FrameMethod, Channel: 1, Payload: methodPayload(t, &amqp.BasicAck{DeliveryTag: tag, Multiple: multiple})}
	}
	for _, tag := range []uint64{1, 2} {
		if err := p.takeConfirm(ack(tag, false)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.afterRun(amqp.Frame{Type: amqp.FrameHeartbeat}); err != nil {
		t.Errorf("a heartbeat after the run: %v", err)
	}
	if err := p.afterRun(ack(2, true)); err != nil {
		t.Errorf("a multiple ack that repeats a range confirms nothing: %v", err)
	}
	for _, tag := range []uint64{2, 3} {
		if err := p.afterRun(ack(tag, false)); err == nil {
			t.Errorf("an ack of tag %d after the run passed", tag)
		}
	}
	if p := (&pipePublisher{count: 1}); p.afterRun(ack(1, false)) != nil {
		t.Error("a publisher without confirms checked a frame it never asked for")
	}
}

// TestPublishWithoutConfirmsSeesAChannelClose publishes without confirms
// to an exchange that does not exist: the broker closes the channel, and
// the publisher's reader must end the run with that error at once rather
// than let it wait for a queue that will never fill.
func TestPublishWithoutConfirmsSeesAChannelClose(t *testing.T) {
	e := &env{url: startTestWarren(t, server.Options{}), sizeBytes: 16, window: 10, pipe: pipeConfig{publishers: 2, consumers: 1, batch: 10}, serverPID: os.Getpid()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	never := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	_, err := runPipe(ctx, e, pipeJob{exchange: "warren-bench.no-such-exchange", messages: 100, settle: never})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v, want the broker's 404 channel close", err)
	}
	t.Log(err)
	if ctx.Err() != nil {
		t.Fatal("the run waited for its timeout instead of ending at the channel's close")
	}
}
