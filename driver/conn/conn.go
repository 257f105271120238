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
	"warren/engine/amqpconn"
)

// Users are the logins of the server's own broker: its users, their
// passwords and the vhosts they may open (server/auth.Store). The
// connection only asks; the users and permissions are the broker's.
type Users interface {
	// LogIn reports whether user may log in with password from a
	// loopback address or not (RabbitMQ's loopback_users).
	LogIn(user, password string, fromLoopback bool) bool
	// CanAccessVhost reports whether user has permissions on vhost, which
	// connection.open needs.
	CanAccessVhost(user, vhost string) bool
}

// Config holds what every connection shares.
type Config struct {
	// Broker is the server's own broker, where the server's Users log in;
	// with neither (the edge), only the Router's logins are taken.
	Broker Backend
	Users  Users
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
	// of their own, per source address and in total (driver/addrlimit,
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
	// SetReadDeadline bounds the next read (heartbeat detection), and
	// ends a read under way when set in the past (a wake-up, wake.go).
	SetReadDeadline(t time.Time) error
}

// conn is one AMQP connection. Its protocol state is the machine m, owned
// by the connection's goroutine (owner): only that goroutine reads or
// changes m, home, b and the fields below marked "owner's", and it
// asserts so where it touches them (owner.check). Other goroutines reach
// the connection through its inbox (inbox.go), its outbox and its writer.
type conn struct {
	cfg   *Config
	t     Transport
	out   *outbox
	owner goroutineOwner

	// The owner's: the protocol machine, and where the connection lives.
	// home and b are the server's own broker until a Router sends the
	// login elsewhere (handshake.go).
	m    *amqpconn.Machine
	home *Home
	b    Backend
	r    *reader
	res  []engine.Result // Apply's results, reused
	evs  []engine.Event  // the inbox's events, reused
	// counted says the connection holds one of MaxConnections' places;
	// admission is its place among those not logged in yet, given back
	// at connection.open (handshake.go) or at the end.
	admission Admission
	counted   bool
	// terminate ends a closing connection the client does not close
	// (closing.go).
	terminate *time.Timer

	// Set once before the connection opens and read-only after, by any
	// goroutine that writes for it (happens-before: the broker's Attach
	// and the outbox's lock): the negotiated frame_max and what the
	// client announced.
	frameMax     uint32
	connID       engine.ConnID // the engine's id of the connection
	vhost        string
	notifyCancel bool // consumer_cancel_notify
	notifyBlock  bool // connection.blocked

	// The other goroutines' ways in: the inbox (events and requests the
	// owner must handle) and the wake-up that interrupts its read.
	inbox inbox
	wake  wakeup

	pausedFlag atomic.Bool // back-pressure is on: the machine's, mirrored for the writer and the sink
	// heldConfirms counts the connection's confirms waiting for the
	// disk (pushConfirm); held are they, in order, and releaseHeld the
	// method value that lets the oldest go (bound once: no allocation
	// per confirm).
	heldConfirms atomic.Int64
	heldMu       sync.Mutex
	held         heldQueue
	releaseHeld  func()
	// syncLeft says an apply left the command log's fsync to the turn's
	// end (syncLeftLog); heldOver says run holds commands read for its
	// next turn.
	syncLeft bool
	heldOver bool

	hbStart chan int64 // how often to send heartbeats, ms (the machine's), for the writer

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
	ackPace AckPacer

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
// (driver/addrlimit's Claim). Release gives it back; it is called once
// the connection has opened, and again when the connection ends, so a
// second call must do nothing.
type Admission interface{ Release() }

// ServeAdmitted is Serve for a connection holding admission (nil: none),
// which it gives back when connection.open succeeds or the connection
// ends before that. The calling goroutine becomes the connection's owner.
func ServeAdmitted(ctx context.Context, t Transport, cfg *Config, admission Admission) {
	c := &conn{cfg: cfg, t: t, home: cfg.shared.home, b: cfg.Broker, out: newOutbox(), done: make(chan struct{}), hbStart: make(chan int64, 1),
		frameMax: cfg.FrameMax, admission: admission, owner: currentOwner()}
	c.wake.init(t)
	c.releaseHeld = c.releaseHeldItem
	c.ackPace, _ = t.(AckPacer)
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
	if (c.m == nil || !c.m.IsOpen()) && errors.Is(err, os.ErrDeadlineExceeded) {
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
// and text. It runs on any goroutine: the owner does it (inbox.go).
func (c *conn) forceCloseWith(text string) {
	if c.inbox.force(text) {
		c.wake.wake()
	}
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

// shutdown ends the connection in the engine and closes the transport.
func (c *conn) shutdown() {
	c.owner.check()
	c.closeOnce.Do(func() {
		close(c.done)
		c.stopClosingTimer()
		if c.m != nil {
			if cmd, ok := c.m.Shutdown(); ok {
				c.b.Apply([]engine.Command{cmd}, c.res[:0])
			}
			c.home.Alarm.remove(c)
			if c.m.Conn() != 0 {
				c.b.Detach(c.m.Conn())
			}
		}
		c.t.Close()
	})
}

// run reads commands and hands them to the machine; it returns when the
// connection ends.
func (c *conn) run() error {
	c.owner.check()
	r := newReader(c.t, c.cfg, &c.wake)
	c.r = r
	r.setHandshakeDeadline(time.Now().Add(c.cfg.HandshakeTimeout))
	if err := r.protocolHeader(); err != nil {
		if errors.Is(err, errWoken) && c.inbox.forced() {
			c.out.push(&outItem{method: &amqp.ConnectionClose{ReplyCode: engine.ConnectionForced, ReplyText: amqpconn.ShortText(c.inbox.forceText())}, closeAfter: true})
			return nil
		}
		var bad *amqp.ProtocolHeaderError
		if errors.As(err, &bad) {
			c.out.push(&outItem{raw: amqp.ProtocolHeader[:], closeAfter: true})
		}
		return err
	}
	c.m = amqpconn.New(amqpconn.Config{ChannelMax: c.cfg.ChannelMax, FrameMax: c.cfg.FrameMax, Heartbeat: c.cfg.Heartbeat,
		Product: c.cfg.Product, Version: c.cfg.Version})
	c.m.Start()
	if err := c.turn(); err != nil {
		return err
	}
	var held []heldCommand
	for {
		if c.wake.woken.Load() {
			if err := c.takeInbox(); err != nil {
				return err
			}
		}
		if c.m.Ended() {
			return nil
		}
		if c.m.Closing() {
			c.beginClosing()
		}
		var cmd command
		var err error
		if len(held) > 0 {
			cmd, err = held[0].cmd, held[0].err
			held = held[1:]
			c.heldOver = len(held) > 0
		} else {
			cmd, err = r.next()
		}
		if errors.Is(err, errWoken) {
			continue // the inbox, at the top
		}
		if err == nil && c.m.IsOpen() && !c.m.Closing() && batchable(cmd) {
			// Gather the pipelined commands that already arrived into one
			// turn; stop at anything else, which is kept for the next
			// turn of the loop.
			publish, acks, n := isPublish(cmd), isAck(cmd), 1
			var acked ackedChannels
			acked.add(cmd.Channel)
			c.m.Recv(cmd.Command)
			for n < maxBatch {
				nc, ok, nerr := r.nextBuffered()
				if nerr != nil || (ok && !nc.heartbeat && !batchable(nc)) {
					held = append(held, heldCommand{nc, nerr})
					c.heldOver = true
					break
				}
				if !ok {
					break
				}
				if !nc.heartbeat {
					c.m.Recv(nc.Command)
					publish = publish || isPublish(nc)
					acks = acks && isAck(nc)
					acked.add(nc.Channel)
					n++
				}
			}
			if publish {
				if err := c.waitPublish(); err != nil {
					return err
				}
			}
			if err := c.turn(); err != nil {
				return err
			}
			if acks && n >= 2 {
				c.paceAcks(&acked)
			}
			continue
		}
		if err != nil {
			var pe *amqp.Error
			if !errors.As(err, &pe) || c.m.Closing() {
				// A closing connection ends at any frame it cannot
				// read, as it does when its socket closes.
				return err
			}
			c.m.FrameError(pe)
			if err := c.turn(); err != nil {
				return err
			}
			continue
		}
		if cmd.heartbeat {
			continue
		}
		c.m.Recv(cmd.Command)
		if err := c.turn(); err != nil {
			return err
		}
	}
}

// batchable reports whether a command may join a batch of pipelined
// commands: the machine's pipelined ones.
func batchable(cmd command) bool {
	return !cmd.heartbeat && amqpconn.Pipelined(cmd.Command)
}

func isPublish(cmd command) bool { _, ok := cmd.Method.(*amqp.BasicPublish); return ok }
func isAck(cmd command) bool     { _, ok := cmd.Method.(*amqp.BasicAck); return ok }

// maxBatch bounds how many pipelined commands go to the backend in one
// Apply.
const maxBatch = 256

// heldCommand is a command (or error) read ahead while gathering a batch.
type heldCommand struct {
	cmd command
	err error
}

func (c *conn) String() string { return fmt.Sprintf("conn (%s)", c.t.RemoteAddr()) }
