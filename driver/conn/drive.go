package conn

import (
	"errors"
	"runtime"

	"warren/engine"
	"warren/engine/amqpconn"
)

// turn runs the machine's Ready loop (engine/amqpconn's doc, the driver's
// duties) until the machine has nothing left to do: it answers the
// handshake's decisions, hands the machine's commands to the backend and
// the results and events back, and queues what the machine sends. What
// the turn queued on any of the home's connections is written right after
// it where the transport allows (writeInline). An error means the
// connection must end (the backend has stopped).
func (c *conn) turn() (err error) {
	c.owner.check()
	pressure := pressureWakes.Load()
	c.writeInline(func() { err = c.ready() })
	c.syncLeftLog()
	if err == nil {
		err = c.backlog()
		c.syncLeftLog()
	}
	if pressureWakes.Load() != pressure {
		runtime.Gosched() // let the owner it woke pause its connection (inbox.go)
	}
	return err
}

// syncLeftLog does the fsync an ApplyLeavingSync of the turn left to the
// connection (logSyncer): on its own goroutine when it has nothing more
// to read, its released confirms then written as a request's replies are
// (writeInline); else by the store's syncer. It runs after the turn's
// other sends are written, so no delivery waits for the disk.
func (c *conn) syncLeftLog() {
	if !c.syncLeft {
		return
	}
	c.syncLeft = false
	ls := c.b.(logSyncer)
	if c.idle() {
		c.writeInline(ls.SyncLog)
	} else {
		ls.WakeLog()
	}
}

// ready is turn's loop.
func (c *conn) ready() error {
	m := c.m
	r := m.Ready()
	for {
		if r.Login != nil {
			login := *r.Login
			r.Login = nil
			c.flushOut()
			m.LoggedIn(c.login(login.User, login.Pass))
			continue
		}
		if r.Tuned {
			r.Tuned = false
			c.tuned()
		}
		if r.Open != nil {
			vhost := *r.Open
			r.Open = nil
			c.flushOut()
			if err := c.open(vhost); err != nil {
				return err
			}
			continue
		}
		c.flushOut()
		if len(r.Commands) == 0 {
			return nil
		}
		if err := c.apply(r.Commands); err != nil {
			return err
		}
	}
}

// apply hands the machine's commands to the backend, then the events they
// caused and their results to the machine. The connection's own events
// come while it applies, and wait in the inbox until the results are in:
// the machine sends each reply before what its command caused (a
// consume-ok before the first delivery).
func (c *conn) apply(cmds []engine.Command) error {
	c.inbox.begin(c.m.EventsGoNow())
	var res []engine.Result
	var err error
	if ls, ok := c.b.(logSyncer); ok {
		var lead bool
		res, lead, err = ls.ApplyLeavingSync(cmds, c.res[:0])
		c.syncLeft = c.syncLeft || lead
	} else {
		res, err = c.b.Apply(cmds, c.res[:0])
	}
	c.res = res[:0]
	if err != nil {
		c.settle(nil, false)
		return err // the broker (a shared session) has ended
	}
	c.settle(res, true)
	clear(res)
	return nil
}

// logSyncer is a backend that can leave the fsync of the command log to
// the connection when one of its confirms waits for it (the server's
// broker, broker.ApplyLeavingSync): the connection does it at the end of
// its turn (syncLeftLog), once the replies and deliveries the turn caused
// are written, if it has nothing more to read.
type logSyncer interface {
	ApplyLeavingSync(cmds []engine.Command, res []engine.Result) ([]engine.Result, bool, error)
	SyncLog()
	WakeLog()
}

// inputQueuer is a transport that can tell whether a read would get
// bytes now (TCP's SIOCINQ).
type inputQueuer interface{ InputQueued() bool }

// idle reports whether the connection has nothing more to read: no byte
// its frame reader has not consumed, none held over for the next turn,
// and none waiting in the socket. Only then does its goroutine fsync the
// log itself (logSyncer); a client that streams is read on meanwhile.
func (c *conn) idle() bool {
	if c.r == nil || c.r.fr.Buffered() > 0 || c.heldOver {
		return false
	}
	q, ok := c.t.(inputQueuer)
	return ok && !q.InputQueued()
}

// settle ends an inbox.begin: it hands the machine the events kept and,
// if withResults, the results, and queues what it sends; then it takes
// the events that came meanwhile until none is left, and only then lets
// the sink send on its own again. So nothing another goroutine causes
// (a bulk return going on, a delivery) can overtake what the owner's
// commands caused.
func (c *conn) settle(res []engine.Result, withResults bool) {
	evs, pos, _ := c.inbox.take(c.evs[:0], false)
	c.m.Events(evs)
	if withResults {
		c.m.Results(res)
	}
	c.flushOutAt(pos)
	for {
		clear(evs)
		var done bool
		evs, pos, done = c.inbox.take(evs[:0], true)
		if done {
			break
		}
		c.m.Events(evs)
		c.flushOutAt(pos)
	}
	c.evs = evs[:0]
}

// flushOut queues what the machine sends.
func (c *conn) flushOut() { c.flushOutAt(0) }

// flushOutAt is flushOut for sends that may include the durable confirms
// of events that came with the command log at pos (inbox.end).
func (c *conn) flushOutAt(pos uint64) {
	r := c.m.Ready()
	for i := range r.Out {
		c.pushOut(&r.Out[i], pos)
	}
	c.m.Advance()
}

// pushOut queues one of the machine's sends; pos is the command log's end
// for a durable confirm (pushConfirm).
func (c *conn) pushOut(o *amqpconn.Out, pos uint64) {
	it := outItem{channel: o.Channel, method: o.Method, ev: o.Event, closeAfter: o.CloseAfter}
	if o.Confirm {
		if !o.Durable {
			pos = 0
		}
		c.pushConfirm(&it, pos)
		return
	}
	c.out.push(&it)
}

// pushSend queues what a stateless event sends (amqpconn.EventSendOf),
// the sink's: its entry is made where the outbox keeps it, unless a
// confirm must wait for the disk (pushConfirm).
func (c *conn) pushSend(s *amqpconn.EventSend, ev *engine.Event) {
	if s.Confirm {
		pos := uint64(0)
		if s.Durable {
			pos = c.b.LogEnd()
		}
		if !c.confirmGoesNow(pos) {
			it := outItem{channel: s.Channel, method: s.Method}
			if s.Frames {
				it.ev = amqpconn.FramesOf(ev)
			}
			c.holdConfirm(&it, pos)
			return
		}
	}
	c.out.pushEvent(s.Channel, s.Method, ev, s.Frames)
}

// backlog tells the machine how much waits to be written and applies the
// pause or resume it decides (back-pressure).
func (c *conn) backlog() error {
	cmd, ok := c.m.Backlog(c.out.size(), c.cfg.OutboxHighWater)
	if !ok {
		return nil
	}
	c.pausedFlag.Store(c.m.Paused())
	return c.apply([]engine.Command{cmd})
}

// takeInbox hands the machine what other goroutines left in the inbox:
// the connection's events that need its state (a channel or the
// connection closed by someone else), a forced close, a wake-up for
// back-pressure.
func (c *conn) takeInbox() error {
	c.owner.check()
	evs, force, text := c.inbox.takeAsync(c.evs[:0])
	c.wake.clear(c.r.restoreDeadline)
	c.m.Events(evs)
	clear(evs)
	c.evs = evs[:0]
	if force {
		c.m.ForceClose(text)
	}
	return c.turn()
}

// waitPublish holds the connection's publishes while the memory alarm is
// on, taking the inbox meanwhile; an error means the peer is gone and the
// connection ends.
func (c *conn) waitPublish() error {
	for {
		ok, woken := c.home.Alarm.waitPublish(c, c.writerGone, c.wake.ch)
		if ok {
			return nil
		}
		if !woken {
			return errPeerGone
		}
		if err := c.takeInbox(); err != nil {
			return err
		}
	}
}

// errPeerGone ends a connection whose peer went away while its publishes
// waited for the memory alarm.
var errPeerGone = errors.New("conn: the peer is gone")
