package engine

import "sort"

// connection owns channels and exclusive queues. Authentication and the wire
// protocol live in the server; the engine only needs the vhost and a name.
type connection struct {
	id    ConnID
	vhost *vhost
	name  string
	user  string
	// clientProps are the client's own properties, kept to be shown.
	clientProps Table
	channels    map[uint16]*channel
	// exclusives are the exclusive queues the connection owns, by name,
	// deleted when it closes: looking them up among all the vhost's
	// queues would make every connection close cost O(queues).
	exclusives map[string]*queue
	// grants are the user's permissions, nil for none checked.
	grants *grants
	// listed is the connection's index in Broker.connRefs.
	listed int
	// paused stops deliveries to the connection's consumers while its
	// driver cannot keep up writing them (see PauseConnection).
	paused bool
}

// ConnectionOpen describes a connection being opened.
type ConnectionOpen struct {
	Vhost string
	User  string
	Name  string // the connection's name, for display and lookup
	// ClientProperties are the client-properties of connection.start-ok
	// (product, version, platform, capabilities, connection_name, ...),
	// kept only to be shown, as RabbitMQ's management API does. They
	// are plain data: a command log can hold them and a replay gets the
	// same connection.
	ClientProperties Table
	// Perms are the user's permissions in Vhost, checked on every
	// operation until SetPermissions replaces them; nil checks none.
	Perms *Permissions
}

func (b *Broker) openConnection(o ConnectionOpen) (ConnID, error) {
	v, ok := b.vhosts[o.Vhost]
	if !ok {
		return 0, connectionErr(NotAllowed, MethodConnectionOpen, "vhost %s not found", o.Vhost)
	}
	b.nextCon++
	c := &connection{id: b.nextCon, vhost: v, name: o.Name, user: o.User, clientProps: o.ClientProperties.Clone(), channels: map[uint16]*channel{},
		grants: compileGrants(o.Perms, o.User, o.Vhost)}
	b.conns[c.id] = c
	b.addConnection(c)
	b.emit(Event{Kind: EvConnectionOpened, Vhost: v.name, Channel: ChannelID{Conn: c.id}, Name: o.Name})
	return c.id, nil
}

func (b *Broker) closeConnectionByID(id ConnID) {
	if c, ok := b.conns[id]; ok {
		b.closeConnection(c, ReplySuccess, "", Method{})
		b.flush()
	}
}

func (b *Broker) closeConnection(c *connection, code int, text string, m Method) {
	nums := make([]int, 0, len(c.channels))
	for n := range c.channels {
		nums = append(nums, int(n))
	}
	sort.Ints(nums)
	for _, n := range nums {
		c.channels[uint16(n)].close(ReplySuccess, "", Method{})
	}
	names := make([]string, 0, len(c.exclusives))
	for name := range c.exclusives {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.exclusives[name].delete("owner-closed")
	}
	delete(b.conns, c.id)
	b.dropConnection(c)
	b.emit(Event{Kind: EvConnectionClosed, Vhost: c.vhost.name, Channel: ChannelID{Conn: c.id}, Code: code, Text: text, Method: m})
}

func (b *Broker) openChannel(conn ConnID, num uint16) (ChannelID, error) {
	c, ok := b.conns[conn]
	if !ok {
		return ChannelID{}, connectionErr(ChannelError, MethodChannelOpen, "no connection %d", conn)
	}
	id := ChannelID{Conn: conn, Num: num}
	if num == 0 {
		// Channel 0 is the connection's own: rabbit_reader answers any
		// channel method on it with this connection exception.
		err := connectionErr(ChannelError, MethodChannelOpen, "unexpected method in connection state running")
		b.closeConnection(c, err.Code, err.Text, err.Method)
		b.flush()
		return id, err
	}
	if _, dup := c.channels[num]; dup {
		b.closeConnection(c, ChannelError, "CHANNEL_ERROR - second 'channel.open' seen", MethodChannelOpen)
		b.flush()
		return id, connectionErr(ChannelError, MethodChannelOpen, "second 'channel.open' seen")
	}
	ch := &channel{b: b, conn: c, id: id, consumers: map[string]*consumer{}}
	ch.ackTimer.Value = timerRef{kind: timerAckTimeout, ch: ch}
	c.channels[num] = ch
	b.chans[id] = ch
	b.addChannel(ch)
	b.emit(Event{Kind: EvChannelOpened, Vhost: c.vhost.name, Channel: id})
	return id, nil
}

func (b *Broker) closeChannel(id ChannelID) {
	if ch, ok := b.chans[id]; ok {
		ch.close(ReplySuccess, "", Method{})
		b.flush()
	}
}

// channelFor finds an open channel; a command on a channel that is not open
// is the 504 CHANNEL_ERROR connection exception rabbit_channel raises for
// any method but channel.open on a channel not yet opened, naming the
// method.
func (b *Broker) channelFor(id ChannelID, m Method) (*channel, *Error) {
	if ch := b.lastChan; ch != nil && ch.id == id && !ch.closed {
		if ch.commit != nil {
			ch.finishCommit() // txcommit.go
		}
		return ch, nil
	}
	ch, ok := b.chans[id]
	if !ok {
		err := connectionErr(ChannelError, m, "expected 'channel.open'")
		if c, ok := b.conns[id.Conn]; ok {
			b.closeConnection(c, err.Code, err.Text, err.Method)
			b.flush()
		}
		return nil, err
	}
	b.lastChan = ch
	if ch.commit != nil {
		ch.finishCommit() // txcommit.go
	}
	return ch, nil
}

// ChannelIsOpen reports whether a channel is open. A driver that hands the
// engine several commands in one turn (pipelined publishes and acks) asks
// after each one: a command that closed its channel must make the driver
// discard the rest, as AMQP requires until the client's channel.close-ok,
// before the ChannelClosed event reaches it at the end of the turn.
func (b *Broker) ChannelIsOpen(id ChannelID) bool {
	if ch := b.lastChan; ch != nil && ch.id == id && !ch.closed {
		return true
	}
	_, ok := b.chans[id]
	return ok
}

// fail turns an exception into its effect: a channel exception closes the
// channel, a connection exception closes the connection. It returns err for
// the caller to hand back.
func (b *Broker) fail(ch *channel, err *Error) error {
	if err == nil {
		return nil
	}
	if ch != nil {
		if err.Connection {
			if c, ok := b.conns[ch.conn.id]; ok {
				b.closeConnection(c, err.Code, err.Text, err.Method)
			}
		} else if !ch.closed {
			ch.close(err.Code, err.Text, err.Method)
		}
	}
	b.flush()
	return err
}

func (b *Broker) pauseConnection(id ConnID, paused bool) {
	c, ok := b.conns[id]
	if !ok || c.paused == paused {
		return
	}
	c.paused = paused
	if paused {
		return
	}
	var seen queueSet
	for _, n := range sortedChannelNums(c) {
		for _, con := range c.channels[n].consumerOrder {
			if !con.q.deleted && seen.add(con.q) {
				con.q.dispatch()
			}
		}
	}
	b.flush()
}

func sortedChannelNums(c *connection) []uint16 {
	nums := make([]uint16, 0, len(c.channels))
	for n := range c.channels {
		nums = append(nums, n)
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	return nums
}

func (b *Broker) channelException(id ChannelID, err *Error) {
	if ch, ok := b.chans[id]; ok && !err.Connection {
		b.fail(ch, err)
	}
}

func (b *Broker) forceCloseUserConnections(user, reason string) int {
	var ids []ConnID
	for id, c := range b.conns {
		if c.user == user {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		b.closeConnection(b.conns[id], ConnectionForced, "CONNECTION_FORCED - "+reason, Method{})
	}
	b.flush()
	return len(ids)
}

func (b *Broker) forceCloseConnection(id ConnID, reason string) {
	if c, ok := b.conns[id]; ok {
		b.closeConnection(c, ConnectionForced, "CONNECTION_FORCED - "+reason, Method{})
		b.flush()
	}
}
