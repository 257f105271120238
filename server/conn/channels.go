package conn

import (
	"warren/engine"
	"warren/engine/amqp"
)

// chanState is what the connection knows of one channel number. A number
// in state 0 is closed: never opened, or closed and forgotten.
type chanState uint8

const (
	chanOpen chanState = iota + 1
	// chanClosing: the server sent channel.close (a channel exception)
	// and awaits the client's close-ok. AMQP 0-9-1 (channel.close): "After
	// sending this method, any received methods except Close and Close-OK
	// MUST be discarded." The publishes and acks a client pipelined before
	// it saw the close are dropped here, not taken for errors.
	chanClosing
)

// channelTable is the state of each channel number: a slice indexed by
// number rather than a map, since every command looks its channel up
// (twice) and hashing was a visible share of a publish. It grows to the
// highest number opened, at most channel_max bytes.
type channelTable struct {
	state []chanState
	n     int // numbers in a state, what channel_max limits
}

func (t *channelTable) get(n uint16) chanState {
	if int(n) < len(t.state) {
		return t.state[n]
	}
	return 0
}

func (t *channelTable) set(n uint16, s chanState) {
	if int(n) >= len(t.state) {
		t.state = append(t.state, make([]chanState, int(n)+1-len(t.state))...)
	}
	if t.state[n] == 0 {
		t.n++
	}
	t.state[n] = s
}

// forget closes n: it may be opened again.
func (t *channelTable) forget(n uint16) {
	if t.get(n) != 0 {
		t.state[n] = 0
		t.n--
	}
}

// count is how many numbers are open or closing.
func (t *channelTable) count() int { return t.n }

// apply runs one channel command inside the backend's Do, as
// rabbit_reader and rabbit_channel would for the channel's state.
func (c *conn) apply(e *engine.Broker, cmd command) {
	if c.dead {
		return // the connection is closing: everything is discarded
	}
	n := cmd.channel
	id := engine.ChannelID{Conn: c.id, Num: n}
	switch c.chans.get(n) {
	case chanClosing:
		switch cmd.method.(type) {
		case *amqp.ChannelCloseOk:
			c.chans.forget(n) // the number may be opened again
		case *amqp.ChannelClose:
			// Both sides closed at once: answer, and still wait for
			// the close-ok (rabbit_channel in state closing).
			c.push(n, &amqp.ChannelCloseOk{})
		}
		return
	case chanOpen:
		if _, ok := cmd.method.(*amqp.ChannelClose); ok {
			e.CloseChannel(id)
			c.chans.forget(n)
			c.push(n, &amqp.ChannelCloseOk{})
			return
		}
	default:
		if _, ok := cmd.method.(*amqp.ChannelOpen); !ok {
			// rabbit_channel in state starting.
			c.failConnection(e, engine.ChannelError, "CHANNEL_ERROR - expected 'channel.open'", methodOf(cmd.method))
			return
		}
	}
	c.call(e, id, cmd)
	if c.chans.get(n) == chanOpen && !e.ChannelIsOpen(id) {
		// The command raised a channel exception (or closed the
		// connection): its ChannelClosed event reaches the sink only at
		// the end of this turn, and the commands after it in the batch
		// must already be discarded.
		c.chans.set(n, chanClosing)
	}
}

// channelException closes a channel for an error the codec found in its
// frames (a message over the size limit). A channel not open is
// rabbit_channel's "expected 'channel.open'"; a closing one discards it.
func (c *conn) channelException(e *engine.Broker, n uint16, err *engine.Error) {
	switch c.chans.get(n) {
	case chanOpen:
		e.ChannelException(engine.ChannelID{Conn: c.id, Num: n}, err)
		c.chans.set(n, chanClosing)
	case chanClosing:
	default:
		c.failConnection(e, engine.ChannelError, "CHANNEL_ERROR - expected 'channel.open'", err.Method)
	}
}

// serverClosedChannel records a channel exception the engine raised, from
// its ChannelClosed event, and tells the client.
func (c *conn) serverClosedChannel(ev *engine.Event) {
	n := ev.Channel.Num
	if c.chans.get(n) == 0 {
		return
	}
	c.chans.set(n, chanClosing)
	if !c.dead {
		c.push(n, &amqp.ChannelClose{ReplyCode: uint16(ev.Code), ReplyText: shortText(ev.Text), FailingClassID: ev.Method.Class, FailingMethodID: ev.Method.ID})
	}
}

func methodOf(m amqp.Method) engine.Method {
	return engine.Method{Class: m.ClassID(), ID: m.MethodID()}
}
