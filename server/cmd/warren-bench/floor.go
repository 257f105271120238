package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"sync"
	"syscall"

	"warren/engine/amqp"
)

// The floor is a stand-in for a broker that does no broker work: it
// speaks just enough AMQP 0-9-1 for the scale workloads' clients
// (amqp091-go and the pipelining client) and turns each basic.publish to
// the default exchange straight into a basic.deliver to the consumer of
// the queue its routing key names, written from the goroutine that read
// it. No queue, no prefetch, no acknowledgements (acks are read and
// dropped), no persistence, no routing beyond one map lookup.
//
// Why: at 10,000 msgs/s a message's latency is mostly the wake-ups of
// the threads it passes through (the broker's and the client's), and on a
// virtual machine a thread woken on an idle virtual CPU waits tens of
// microseconds for it (5bab91e:BENCHMARKS.md). The floor, run by compare --floor
// with the same client in the same run, measures what is left of the
// latency when the broker's own work is taken away: how much of its p99
// a broker could still win by working less, and whether a p99 target is
// within reach of its way of handling sockets on this machine at that
// hour. (A broker that spins while idle could go lower, at a core's
// cost; RabbitMQ is measured with its schedulers' spinning off.)
//
// Its sockets are handled as Warren's TCP transport handles them
// (driver/conn): one goroutine per connection on Go's netpoller, reads
// and writes as raw system calls through RawConn, a write that finds the
// socket full waiting in the netpoller. So the floor is Warren's own way
// of waking for a message and writing it out, with the broker taken out.
// A relay with a thread blocked in read(2) on every socket, as a C relay
// would do it, measured about the same p99 as Warren up to 1,000 queues
// and a higher one from ten connections on, where each message woke a
// thread of its own (5bab91e:BENCHMARKS.md, run AM).

// floorConsumer is where deliveries for one queue go.
type floorConsumer struct {
	conn    *floorConn
	channel uint16
	tag     string
	// lastTag is the channel's last delivery tag, shared by the
	// channel's consumers and guarded by conn.wmu.
	lastTag *uint64
}

// floorRelay is the floor's shared state: the consumer of each queue.
type floorRelay struct {
	mu        sync.Mutex
	consumers map[string]*floorConsumer
	// lastTags are the channels' last delivery tags, by connection and
	// channel.
	lastTags map[floorChannel]*uint64
}

type floorChannel struct {
	conn    *floorConn
	channel uint16
}

func newFloorRelay() *floorRelay {
	return &floorRelay{consumers: map[string]*floorConsumer{}, lastTags: map[floorChannel]*uint64{}}
}

// runFloor is `warren-bench floor --amqp ADDR`: the floor on a loopback
// address until SIGINT or SIGTERM.
func runFloor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren-bench floor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("amqp", "127.0.0.1:5674", "loopback address to listen on")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "warren-bench floor: %v\n", err)
		return 1
	}
	if err := checkLoopback(ln.Addr()); err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "warren-bench floor: %v\n", err)
		return 2
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		ln.Close()
	}()
	fmt.Fprintf(stdout, "floor relay on %s\n", ln.Addr())
	newFloorRelay().serve(ln)
	return 0
}

// floorLabel names the floor's runs and columns in compare.
const floorLabel = "floor"

// startFloor runs this binary's floor subcommand on a free loopback port
// (5674 when free).
func startFloor(ctx context.Context) (*warrenProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr, err := freeLoopback("127.0.0.1:5674")
	if err != nil {
		return nil, err
	}
	return startProc(ctx, floorLabel, exec.Command(self, "floor", "--amqp", addr), "amqp://guest:guest@"+addr+"/")
}

// serve accepts connections until ln is closed.
func (r *floorRelay) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		fc, err := newFloorConn(c)
		if err != nil {
			c.Close()
			continue
		}
		go r.handle(fc)
	}
}

// handle runs one connection until the client closes it or breaks the
// protocol (the socket is then closed without a word: the floor serves
// well-behaved load clients only).
func (r *floorRelay) handle(fc *floorConn) {
	defer fc.close()
	defer r.forget(fc)
	fr := amqp.NewFrameReader(amqp.ReaderConfig{})
	fc.out = appendMethod(fc.out[:0], 0, &amqp.ConnectionStart{
		VersionMajor: 0, VersionMinor: 9,
		ServerProperties: amqp.Table{"product": "warren-bench floor", "version": "0", "capabilities": amqp.Table{"basic.nack": true, "consumer_cancel_notify": true}},
		Mechanisms:       "PLAIN AMQPLAIN", Locales: "en_US",
	})
	if fc.flushOwn() != nil {
		return
	}
	buf := make([]byte, 64<<10)
	// pubs are the messages being published, by channel.
	pubs := map[uint16]*floorPublish{}
	var outs []*floorConn // connections this read relayed to
	for {
		n, err := fc.read(buf)
		if err != nil {
			return
		}
		fr.Feed(buf[:n])
		if ok, err := fr.ReadProtocolHeader(); err != nil || !ok {
			if err != nil {
				return
			}
			continue
		}
		for {
			f, ok, err := fr.Next()
			if err != nil {
				return
			}
			if !ok {
				break
			}
			to, closed, err := r.frame(fc, fr, f, pubs)
			if err != nil {
				return
			}
			if closed {
				fc.flushOwn()
				return
			}
			if to == nil {
				continue
			}
			if !slices.Contains(outs, to) {
				outs = append(outs, to)
			}
		}
		for _, c := range outs {
			c.flushRelayed()
		}
		outs = outs[:0]
		if fc.flushOwn() != nil {
			return
		}
	}
}

// frame handles one frame from fc: a method is answered in fc.out; a
// publish is collected in pubs until its last content frame, and then
// queued as a delivery on the connection it returns (nil: none). closed
// says the client closed the connection (close-ok is in fc.out).
func (r *floorRelay) frame(fc *floorConn, fr *amqp.FrameReader, f amqp.Frame, pubs map[uint16]*floorPublish) (to *floorConn, closed bool, err error) {
	switch f.Type {
	case amqp.FrameHeartbeat:
		return nil, false, nil
	case amqp.FrameHeader, amqp.FrameBody:
		p := pubs[f.Channel]
		if p == nil || !p.open {
			return nil, false, fmt.Errorf("channel %d: a content frame outside a publish", f.Channel)
		}
		done, err := p.add(f)
		if err != nil || !done {
			return nil, false, err
		}
		return p.deliver(), false, nil
	case amqp.FrameMethod:
	default:
		return nil, false, fmt.Errorf("frame type %d", f.Type)
	}
	if class, method, _ := methodIDs(f.Payload); class == classBasic {
		switch method {
		case methodPublish:
			exchange, key, err := publishNames(f.Payload)
			if err != nil {
				return nil, false, err
			}
			p := pubs[f.Channel]
			if p == nil {
				p = &floorPublish{}
				pubs[f.Channel] = p
			}
			r.mu.Lock()
			c := r.consumers[string(key)]
			r.mu.Unlock()
			p.start(c, exchange, key)
			return nil, false, nil
		case methodAck, methodNack:
			return nil, false, nil
		}
	}
	m, err := amqp.DecodeMethod(f.Payload)
	if err != nil {
		return nil, false, err
	}
	ch := f.Channel
	var reply amqp.Method
	switch m := m.(type) {
	case *amqp.ConnectionStartOk:
		reply = &amqp.ConnectionTune{ChannelMax: 2047, FrameMax: 128 << 10, Heartbeat: 0}
	case *amqp.ConnectionTuneOk:
		if m.FrameMax != 0 {
			fr.SetFrameMax(m.FrameMax)
		} else {
			fr.SetFrameMax(128 << 10)
		}
	case *amqp.ConnectionOpen:
		reply = &amqp.ConnectionOpenOk{}
	case *amqp.ConnectionClose:
		fc.out = appendMethod(fc.out, 0, &amqp.ConnectionCloseOk{})
		return nil, true, nil
	case *amqp.ChannelOpen:
		reply = &amqp.ChannelOpenOk{}
	case *amqp.ChannelClose:
		r.forgetChannel(fc, ch)
		reply = &amqp.ChannelCloseOk{}
	case *amqp.BasicQos:
		reply = &amqp.BasicQosOk{}
	case *amqp.QueueDeclare:
		reply = &amqp.QueueDeclareOk{Queue: m.Queue}
	case *amqp.QueueDelete:
		r.mu.Lock()
		delete(r.consumers, m.Queue)
		r.mu.Unlock()
		reply = &amqp.QueueDeleteOk{}
	case *amqp.BasicConsume:
		tag := m.ConsumerTag
		if tag == "" {
			tag = fmt.Sprintf("floor-%s", m.Queue)
		}
		r.consume(fc, ch, m.Queue, tag)
		if !m.NoWait {
			reply = &amqp.BasicConsumeOk{ConsumerTag: tag}
		}
	case *amqp.BasicCancel:
		r.cancel(m.ConsumerTag)
		if !m.NoWait {
			reply = &amqp.BasicCancelOk{ConsumerTag: m.ConsumerTag}
		}
	default:
		return nil, false, fmt.Errorf("the floor does not do %s", m.Name())
	}
	if reply != nil {
		fc.out = appendMethod(fc.out, ch, reply)
	}
	return nil, false, nil
}

// consume makes (fc, ch) the consumer of queue, under tag.
func (r *floorRelay) consume(fc *floorConn, ch uint16, queue, tag string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := floorChannel{fc, ch}
	if r.lastTags[key] == nil {
		r.lastTags[key] = new(uint64)
	}
	r.consumers[queue] = &floorConsumer{conn: fc, channel: ch, tag: tag, lastTag: r.lastTags[key]}
}

// cancel forgets the consumer with tag.
func (r *floorRelay) cancel(tag string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, c := range r.consumers {
		if c.tag == tag {
			delete(r.consumers, q)
		}
	}
}

// forgetChannel forgets the consumers on fc's channel ch.
func (r *floorRelay) forgetChannel(fc *floorConn, ch uint16) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, c := range r.consumers {
		if c.conn == fc && c.channel == ch {
			delete(r.consumers, q)
		}
	}
	delete(r.lastTags, floorChannel{fc, ch})
}

// forget forgets every consumer on fc.
func (r *floorRelay) forget(fc *floorConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, c := range r.consumers {
		if c.conn == fc {
			delete(r.consumers, q)
		}
	}
	for k := range r.lastTags {
		if k.conn == fc {
			delete(r.lastTags, k)
		}
	}
}

// appendMethod appends m as a method frame; the floor's own methods
// always encode.
func appendMethod(b []byte, ch uint16, m amqp.Method) []byte {
	b, err := amqp.AppendMethodFrame(b, ch, m)
	if err != nil {
		panic(err)
	}
	return b
}
