package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"warren/engine"
	"warren/engine/amqp"
	"warren/server/auth"
)

// Config holds what every connection shares.
type Config struct {
	// Broker is the server's own broker, where the server's Users log in;
	// with neither (the edge), only the Router's logins are taken.
	Broker Backend
	Users  *auth.Store
	// Router, when set, sends other logins to the broker they belong to
	// (a shared session's own user); nil sends every login to Users.
	Router Router

	ChannelMax     uint16 // proposed in connection.tune; RabbitMQ's default 2047
	FrameMax       uint32 // proposed; RabbitMQ's default 131072
	Heartbeat      uint16 // proposed, seconds; RabbitMQ's default 60
	MaxMessageSize uint64 // largest body accepted; RabbitMQ 4.x default 16 MiB
	// OutboxHighWater is how many bytes may wait to be written before the
	// connection's deliveries are paused (back-pressure); it resumes below
	// a quarter of it.
	OutboxHighWater int
	// HandshakeTimeout is RabbitMQ's handshake_timeout (default 10 s):
	// the time from the socket opening to connection.open. A connection
	// that has not opened by then is dropped, whatever stage it reached,
	// with nothing sent (observed, RabbitMQ 3.10.8: after nothing, part
	// of the protocol header, the header, start-ok or tune-ok, the
	// socket is reset 10.00 s after it opened, no connection.close).
	HandshakeTimeout time.Duration
	Product, Version string
	// MaxConnections is RabbitMQ's connection_max (0: unlimited): the
	// most connections that have logged in and opened. A connection.open
	// that would pass it is refused with 530 NOT_ALLOWED, "connection
	// refused: node connection limit (N) is reached", as RabbitMQ 3.11 and
	// later check it. RabbitMQ 3.10.8 gives the limit to its listener
	// (tcp_listener_sup hands connection_max to ranch as max_connections),
	// which counts every accepted socket and stops accepting at the limit,
	// so that half-open sockets lock every client out. Warren counts only
	// connections past connection.open: sockets before login have bounds
	// of their own, per source address and in total (server/addrlimit,
	// taken where the server accepts them), and cannot use this budget up.
	MaxConnections int
	// Alarm, if set, blocks publishers while queued messages use too much
	// memory. The server registers it as a broker observer.
	Alarm *Alarm

	shared *shared
}

// shared is the state every connection of a server shares.
type shared struct {
	home   *Home        // the server's own broker's
	opened atomic.Int64 // connections past connection.open (MaxConnections)
}

// Defaults fills unset fields with RabbitMQ's defaults.
func (c *Config) Defaults() {
	if c.ChannelMax == 0 {
		c.ChannelMax = 2047
	}
	if c.FrameMax == 0 {
		c.FrameMax = 131072
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = 60
	}
	if c.MaxMessageSize == 0 {
		c.MaxMessageSize = 16 << 20
	}
	if c.OutboxHighWater == 0 {
		c.OutboxHighWater = 8 << 20
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = 10 * time.Second
	}
	if c.Product == "" {
		c.Product = "Warren"
	}
	if c.Version == "" {
		c.Version = "0.1.0"
	}
	if c.Alarm == nil {
		c.Alarm = &Alarm{}
	}
	if c.Broker == nil {
		c.Broker = noBroker{}
	}
	if c.shared == nil {
		c.shared = &shared{home: NewHome(c.Alarm)}
	}
}

// Transport carries the connection's bytes: TCP, or WebSocket binary
// messages.
type Transport interface {
	io.Reader
	// WriteFrames writes whole frames. A TCP transport may coalesce them;
	// a WebSocket transport sends one frame per message, which is what
	// @cloudamqp/amqp-client's reassembly expects.
	WriteFrames(frames [][]byte) error
	Close() error
	RemoteAddr() net.Addr
	LocalAddr() net.Addr
	// SetReadDeadline bounds the next read (heartbeat detection).
	SetReadDeadline(t time.Time) error
}

// conn is one AMQP connection.
type conn struct {
	cfg *Config
	t   Transport
	out *outbox
	// home and b are the server's own broker until a Router sends the
	// login elsewhere (handshake.go); they change only before the
	// connection opens, under routeMu, which forceClose (another
	// goroutine) reads them under.
	home    *Home
	b       Backend
	routeMu sync.Mutex

	// Negotiated in connection.tune-ok.
	frameMax   uint32
	channelMax uint16
	heartbeat  uint16

	r     *reader
	user  string
	vhost string
	caps  amqp.Table // client capabilities
	// clientProps are start-ok's client-properties, for the engine to
	// show in the management API.
	clientProps engine.Table

	// Broker-goroutine state: touched only in Do closures and the sink.
	id     engine.ConnID
	opened bool
	// chans holds the open channels and those awaiting the client's
	// close-ok; their number is what channel_max limits.
	chans  channelTable
	paused bool
	dead   bool // the connection is closing (see closing.go)

	pausedFlag atomic.Bool // paused, readable by the writer
	// heldConfirms counts the connection's confirms waiting for the
	// disk (pushConfirm); held are they, in order, and releaseHeld the
	// method value that lets the oldest go (bound once: no allocation
	// per confirm).
	heldConfirms atomic.Int64
	heldMu       sync.Mutex
	held         heldQueue
	releaseHeld  func()

	hbStart chan uint16 // the negotiated heartbeat, for the writer

	// The closing state (closing.go). closeWait is set by the
	// connection goroutine before the connection opens.
	closeSent atomic.Bool
	forced    atomic.Bool // forceCloseWith ran
	closeWait time.Duration
	endMu     sync.Mutex
	terminate *time.Timer // ends a closing connection the client does not close
	ended     bool

	// What the one writing owns (writer.go): the writer goroutine, or
	// the connection's goroutine writing its own replies (writeInline).
	wmu sync.Mutex
	ws  writeState
	// inlineClaimed: the home's inlineWrites holds this connection's
	// outbox for a request under way (guarded by its mutex);
	// inlineOthers is the connection's list of outboxes to write after
	// its own request, reused.
	inlineClaimed bool
	inlineOthers  []*conn

	// ackPace is the transport, when its reads can wait for a consumer's
	// acks (acks.go).
	ackPace ackPacer

	// admission is the connection's place among those not logged in
	// yet, given back at connection.open (handshake.go) or at the end;
	// counted says the connection holds one of MaxConnections' places.
	admission Admission
	counted   bool

	closeOnce sync.Once
	done      chan struct{}
	// writerGone closes when the writer has stopped: after the
	// connection's last frame, or when a write failed (a heartbeat to a
	// peer that went away). Nothing more can reach the peer, so a publish
	// waiting for the memory alarm gives up and the connection ends.
	writerGone chan struct{}
}

// Serve runs one connection until it ends. It closes t.
func Serve(ctx context.Context, t Transport, cfg *Config) { ServeAdmitted(ctx, t, cfg, nil) }

// Admission is a connection's place among the connections that have not
// logged in yet, which the server took when it accepted the socket
// (server/addrlimit's Claim). Release gives it back; it is called once
// the connection has opened, and again when the connection ends, so a
// second call must do nothing.
type Admission interface{ Release() }

// ServeAdmitted is Serve for a connection holding admission (nil: none),
// which it gives back when connection.open succeeds or the connection
// ends before that.
func ServeAdmitted(ctx context.Context, t Transport, cfg *Config, admission Admission) {
	c := &conn{cfg: cfg, t: t, home: cfg.shared.home, b: cfg.Broker, out: newOutbox(), done: make(chan struct{}), hbStart: make(chan uint16, 1),
		frameMax: cfg.FrameMax, channelMax: cfg.ChannelMax, closeWait: closeWaitBeforeTune, admission: admission}
	c.releaseHeld = c.releaseHeldItem
	c.ackPace, _ = t.(ackPacer)
	defer c.leave()
	defer c.shutdown()
	c.writerGone = make(chan struct{})
	go func() {
		defer close(c.writerGone)
		c.writer()
	}()
	go func() {
		select {
		case <-ctx.Done():
			c.forceClose()
		case <-c.done:
		}
	}()
	err := c.run()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		_ = err // the peer went away or broke the protocol; nothing to report to
	}
	if !c.r.open && errors.Is(err, os.ErrDeadlineExceeded) {
		// The handshake timeout: RabbitMQ resets the socket.
		resetOnClose(c.t)
	}
	c.out.close()
	<-c.writerGone
}

// forceClose sends connection.close 320 CONNECTION_FORCED (graceful
// shutdown of the server) and lets the writer close the socket.
func (c *conn) forceClose() {
	c.forceCloseWith("CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'")
}

// forceCloseWith closes the connection from the server's side with 320
// and text.
func (c *conn) forceCloseWith(text string) {
	if !c.forced.CompareAndSwap(false, true) {
		return // the server's shutdown and the session's end both close it
	}
	c.routeMu.Lock()
	b := c.b
	c.routeMu.Unlock()
	b.Do(func(e *engine.Broker) {
		if c.opened && !c.dead {
			c.dead = true
			e.CloseConnection(c.id)
		}
	})
	c.out.push(outItem{method: &amqp.ConnectionClose{ReplyCode: engine.ConnectionForced, ReplyText: shortText(text)}, closeAfter: true})
}

// watchHome closes the connection with 320 when its home ends (a shared
// session ending), unless the connection ends first.
func (c *conn) watchHome() {
	h := c.home
	if h.Ended == nil {
		return
	}
	go func() {
		select {
		case <-h.Ended:
			c.forceCloseWith(h.EndText())
		case <-c.done:
		}
	}()
}

// leave gives back the connection's places: its admission, if the
// handshake did not finish, and its place under MaxConnections.
func (c *conn) leave() {
	if c.admission != nil {
		c.admission.Release()
	}
	c.uncount()
}

// uncount gives back the connection's place under MaxConnections.
func (c *conn) uncount() {
	if c.counted {
		c.counted = false
		c.cfg.shared.opened.Add(-1)
	}
}

func (c *conn) shutdown() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.stopClosingTimer()
		c.b.Do(func(e *engine.Broker) {
			if c.opened && !c.dead {
				c.dead = true
				e.CloseConnection(c.id)
			}
			delete(c.home.Alarm.conns, c)
		})
		if c.id != 0 {
			c.b.Detach(c.id)
		}
		c.t.Close()
	})
}

// run reads commands and handles them; it returns when the connection ends.
func (c *conn) run() error {
	r := newReader(c.t, c.cfg)
	c.r = r
	c.t.SetReadDeadline(time.Now().Add(c.cfg.HandshakeTimeout))
	if err := r.protocolHeader(); err != nil {
		var bad *amqp.ProtocolHeaderError
		if errors.As(err, &bad) {
			c.out.push(outItem{raw: amqp.ProtocolHeader[:], closeAfter: true})
		}
		return err
	}
	c.sendStart()
	var held []heldCommand
	batchHint := 1      // the last batch's length (below)
	var spare []command // a batch's array, for the next when the backend allows
	for {
		if c.closeSent.Load() {
			return c.closed(r)
		}
		var cmd command
		var err error
		if len(held) > 0 {
			cmd, err = held[0].cmd, held[0].err
			held = held[1:]
		} else {
			cmd, err = r.next()
		}
		if err == nil && c.opened && pipelined(cmd) {
			// Gather the pipelined commands that already arrived into one
			// hand-off; stop at anything else, which is kept for the next
			// turn of the loop.
			// Sized like the last batch: a client that pipelines sends
			// batches alike, and growing one from 1 copied it eight
			// times on the way to 256.
			inline := runsInline(c.b)
			var batch []command
			if inline {
				batch = append(spare[:0], cmd)
			} else {
				batch = append(make([]command, 0, batchHint), cmd)
			}
			for len(batch) < maxBatch {
				nc, ok, nerr := r.nextBuffered()
				if nerr != nil || (ok && !nc.heartbeat && !pipelined(nc)) {
					held = append(held, heldCommand{nc, nerr})
					break
				}
				if !ok {
					break
				}
				if !nc.heartbeat {
					batch = append(batch, nc)
				}
			}
			batchHint = len(batch)
			c.handleBatch(batch)
			if inline {
				clear(batch) // let its messages go
				spare = batch[:0]
			}
			continue
		}
		if err != nil {
			var pe *amqp.Error
			if !errors.As(err, &pe) {
				return err
			}
			m := engine.Method{Class: pe.ClassID, ID: pe.MethodID}
			if pe.ConnectionError() || !c.opened {
				c.connectionError(int(pe.Code), pe.Text, m)
				continue
			}
			c.b.Do(func(e *engine.Broker) {
				c.channelException(e, pe.Channel, &engine.Error{Code: int(pe.Code), Text: pe.Text, Method: m})
			})
			continue
		}
		if cmd.heartbeat {
			continue
		}
		stop, err := c.handle(cmd)
		if err != nil || stop {
			return err
		}
	}
}

// maxBatch bounds how many pipelined commands go to the backend in one
// Do.
const maxBatch = 256

// heldCommand is a command (or error) read ahead while gathering a batch.
type heldCommand struct {
	cmd command
	err error
}

func (c *conn) String() string { return fmt.Sprintf("conn %d (%s)", c.id, c.t.RemoteAddr()) }
