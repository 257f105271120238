package main

import (
	"context"
	"encoding/binary"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/engine/amqp"
)

// startTestFloor runs the floor in this process on a loopback port.
func startTestFloor(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go newFloorRelay().serve(ln)
	return "amqp://guest:guest@" + ln.Addr().String() + "/"
}

// TestScaleWorkloadsOnTheFloor runs scale-queues and scale-conns, small,
// on the floor with both clients: it must speak enough AMQP for each
// (amqp091-go's handshake, declares, consumes and deletes too), and every
// message must arrive once at its queue's consumer, as runScalePoint
// checks.
func TestScaleWorkloadsOnTheFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets and a few seconds of load")
	}
	url := startTestFloor(t)
	scale := defaultScaleConfig()
	scale.queues, scale.conns = intList{1, 7}, intList{3}
	scale.warmup, scale.span = 100*time.Millisecond, 300*time.Millisecond
	for _, c := range []struct{ workload, client string }{
		{"scale-queues", clientAMQP091},
		{"scale-conns", clientAMQP091},
		{"scale-queues", clientPipelined},
		{"scale-conns", clientPipelined},
	} {
		t.Run(c.workload+"/"+c.client, func(t *testing.T) {
			res := runSmall(t, url, c.workload, c.client, 2000, scale)
			for _, p := range scalePoints(metricNames([]runResult{{Result: res}}, c.workload)) {
				if _, ok := res.Metric(scaleMetric("latency p99", p)); !ok {
					t.Errorf("point %d: no p99 in %+v", p, res.Metrics)
				}
			}
		})
	}
}

// TestFloorDeliversWholeMessagesInTagOrder: two publishers on two
// connections publish at once to one queue; the consumer must get every
// message whole (method, header, body, never another's frame between)
// with delivery tags 1, 2, 3, ... in the order they arrive.
func TestFloorDeliversWholeMessagesInTagOrder(t *testing.T) {
	url := startTestFloor(t)
	consumer := dialChannel1(t, url)
	if _, err := rpc[*amqp.BasicConsumeOk](consumer, 1, &amqp.BasicConsume{Queue: "q", ConsumerTag: "c"}); err != nil {
		t.Fatal(err)
	}
	const perPublisher, bodyBytes = 500, 10_000
	// The publishers write while the consumer reads: the floor's writes
	// to the consumer block while its socket is full, as a relay's do.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for pub := range 2 {
		p := dialChannel1(t, url)
		// Bodies of three frames each (frame-max 4096), so that
		// interleaving would show.
		tmpl, err := newPublishTemplate(1, "", "q", amqp.Properties{}, make([]byte, bodyBytes), amqp.FrameMinSize)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perPublisher {
				var body []byte
				p.out, body = tmpl.appendOne(p.out)
				binary.BigEndian.PutUint64(body, msgID(pub, i))
				if i%7 == 6 {
					if err := p.flush(); err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- p.flush()
		}()
	}
	consumer.c.SetDeadline(time.Now().Add(10 * time.Second))
	var tag uint64
	next := [2]int{}
	for tag < 2*perPublisher {
		f, err := nextFrame(consumer)
		if err != nil {
			t.Fatalf("after tag %d: %v", tag, err)
		}
		if f.Type != amqp.FrameMethod {
			t.Fatalf("after tag %d: frame type %d where a basic.deliver belongs", tag, f.Type)
		}
		got, err := parseDeliver(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if got != tag+1 {
			t.Fatalf("delivery tag %d after %d", got, tag)
		}
		tag = got
		h, err := nextFrame(consumer)
		if err != nil || h.Type != amqp.FrameHeader {
			t.Fatalf("tag %d: %v, frame %+v where its content header belongs", tag, err, h)
		}
		size, _ := contentBodySize(h.Payload)
		var body []byte
		for uint64(len(body)) < size {
			b, err := nextFrame(consumer)
			if err != nil || b.Type != amqp.FrameBody || b.Channel != 1 {
				t.Fatalf("tag %d: %v, frame %+v where its body belongs", tag, err, b)
			}
			body = append(body, b.Payload...)
		}
		pub, seq := splitMsgID(binary.BigEndian.Uint64(body))
		if pub > 1 || seq != next[pub] {
			t.Fatalf("tag %d: publisher %d's message %d, want its %d", tag, pub, seq, next[pub])
		}
		next[pub]++
	}
	wg.Wait()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// nextFrame returns the consumer's next frame, reading as needed.
func nextFrame(p *pipeConn) (amqp.Frame, error) {
	for {
		f, ok, err := p.next()
		if err != nil || ok {
			return f, err
		}
		if err := p.fill(); err != nil {
			return amqp.Frame{}, err
		}
	}
}

// TestCompareFloorWantsAScaleWorkload: --floor with no scale workload
// named is a usage error, said before anything is started.
func TestCompareFloorWantsAScaleWorkload(t *testing.T) {
	var stdout, stderr strings.Builder
	code := run([]string{"compare", "--warren-url", "amqp://guest:guest@127.0.0.1:1/", "--floor", "--workloads", "publish-only"}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "--floor runs only scale-queues and scale-conns") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// dialChannel1 opens a pipelining-client connection to url with channel
// 1 open, closed when the test ends.
func dialChannel1(t *testing.T, url string) *pipeConn {
	t.Helper()
	p, err := dialPipe(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.close(nil) })
	if err := p.openChannel(1); err != nil {
		t.Fatal(err)
	}
	return p
}
