package engine

// Result is what applying a command returns: the union of what the
// per-method API returns. Each field is set only by the commands that
// return it; the rest stay zero.
type Result struct {
	// Err is the command's AMQP exception (an *Error) or nil, as the
	// per-method API returns it.
	Err error
	// Conn is OpenConnection's new connection.
	Conn ConnID
	// Channel is OpenChannel's channel.
	Channel ChannelID
	// ConsumerTag is BasicConsume's tag, chosen by the server when the
	// client left it empty.
	ConsumerTag string
	// Declared is QueueDeclare's queue.declare-ok.
	Declared QueueDeclareOk
	// Count is how many messages QueueDelete or QueuePurge removed, or
	// how many connections ForceCloseUserConnections closed.
	Count int
	// Get and Got are BasicGet's basic.get-ok; Got is false for
	// basic.get-empty.
	Get GetOk
	Got bool
	// Time and Fired are Step's: the time it moved to, and whether a
	// deadline fired.
	Time  Time
	Fired bool
}

// Apply applies one command: the single entry point every driver's input
// goes through (the per-method API is a set of wrappers over it). With
// Config.RecordCommands on, the command's record is logged first, for
// DrainCommands (command_log.go).
//
// Each case sets the fields of the named result r rather than returning a
// Result literal, which would be built and then copied (176 bytes) on
// every command. The wrappers call Apply too: a wrapper that made the
// case's call itself measured faster, but only for callers of the
// wrappers (tests, tools); the drivers hand over Command values, and one
// entry point is what keeps recording, the durable log and replay whole.
//
// A command may be given by pointer (Apply(&CmdBasicPublish{...})): it is
// the same command, and a driver that reuses the commands' storage
// (engine/amqpconn) then allocates nothing to hand one over, where a
// command value converted to Command is copied to the heap. Apply keeps
// neither: the storage is the caller's again when Apply returns. A
// publish or an ack by pointer is copied into c, on Apply's stack (c does
// not escape); any other goes through applyRef, which applies its value
// (a second call, and a copy of the Result, that the per-message commands
// are spared).
func (b *Broker) Apply(c Command) (r Result) {
	b.apply(c, &r)
	return r
}

// apply is Apply, writing the result into r, which the caller has zeroed.
// Apply is small enough to be inlined, so r is the caller's own variable:
// a Result (176 bytes) returned from the switch below was zeroed, then
// copied to the caller, on every command.
//
// A publish or an ack with no command log to write (the hot path) goes
// straight to its case: by pointer without a copy (nothing keeps the
// command, and the durable log has no record of either: durable.go's
// hooks see what they change).
func (b *Broker) apply(c Command, r *Result) {
	switch p := c.(type) {
	case *CmdBasicPublish:
		if !b.cfg.RecordCommands {
			r.Err = b.basicPublish(p.Channel, &p.Publish)
			return
		}
		c = *p
	case *CmdBasicAck:
		if !b.cfg.RecordCommands {
			r.Err = b.basicAck(*p)
			return
		}
		c = *p
	case CmdBasicPublish:
		if !b.cfg.RecordCommands {
			r.Err = b.basicPublish(p.Channel, &p.Publish)
			return
		}
	case CmdBasicAck:
		if !b.cfg.RecordCommands {
			r.Err = b.basicAck(p)
			return
		}
	default:
		if ref, ok := b.applyRef(c); ok { // command_gen.go
			*r = ref
			return
		}
	}
	if b.cfg.RecordCommands {
		b.record(c)
	}
	if b.dlog != nil {
		b.dlog.noteCommand(c)
	}
	switch c := c.(type) {
	case CmdBasicPublish:
		r.Err = b.basicPublish(c.Channel, &c.Publish)
	case CmdBasicAck:
		r.Err = b.basicAck(c)
	case CmdAdvanceTo:
		b.advanceTo(c.Time)
	case CmdOpenConnection:
		id, err := b.openConnection(c.Open)
		r.Conn, r.Err = id, err
	case CmdCloseConnection:
		b.closeConnectionByID(c.Conn)
	case CmdForceCloseConnection:
		b.forceCloseConnection(c.Conn, c.Reason)
	case CmdForceCloseUserConnections:
		r.Count = b.forceCloseUserConnections(c.User, c.Reason)
	case CmdPauseConnection:
		b.pauseConnection(c.Conn, c.Paused)
	case CmdOpenChannel:
		id, err := b.openChannel(c.Conn, c.Num)
		r.Channel, r.Err = id, err
	case CmdCloseChannel:
		b.closeChannel(c.Channel)
	case CmdChannelException:
		b.channelException(c.Channel, c.Err)
	case CmdExchangeDeclare:
		r.Err = b.declareExchange(c.Channel, c.Declare)
	case CmdExchangeDelete:
		r.Err = b.exchangeDelete(c.Channel, c.Delete)
	case CmdExchangeBind:
		eb := c.Bind
		r.Err = b.bindAction(c.Channel, eb.Source, eb.Destination, eb.RoutingKey, eb.Args, MethodExchangeBind)
	case CmdExchangeUnbind:
		eb := c.Bind
		r.Err = b.bindAction(c.Channel, eb.Source, eb.Destination, eb.RoutingKey, eb.Args, MethodExchangeUnbind)
	case CmdQueueDeclare:
		ok, err := b.declareQueue(c.Channel, c.Declare)
		r.Declared, r.Err = ok, err
	case CmdQueueDelete:
		n, err := b.queueDelete(c.Channel, c.Delete)
		r.Count, r.Err = n, err
	case CmdQueueBind:
		qb := c.Bind
		r.Err = b.bindAction(c.Channel, qb.Exchange, qb.Queue, qb.RoutingKey, qb.Args, MethodQueueBind)
	case CmdQueueUnbind:
		qb := c.Bind
		r.Err = b.bindAction(c.Channel, qb.Exchange, qb.Queue, qb.RoutingKey, qb.Args, MethodQueueUnbind)
	case CmdQueuePurge:
		n, err := b.queuePurge(c.Channel, c.Queue)
		r.Count, r.Err = n, err
	case CmdBasicQos:
		r.Err = b.basicQos(c.Channel, c.Qos)
	case CmdBasicConsume:
		tag, err := b.basicConsume(c.Channel, c.Consume)
		r.ConsumerTag, r.Err = tag, err
	case CmdBasicCancel:
		r.Err = b.basicCancel(c.Channel, c.ConsumerTag)
	case retiredPublishTarget, retiredPublishDirect:
		r.Err = b.applyRetired(c) // command_retired.go
	case CmdBasicGet:
		g, ok, err := b.basicGet(c.Channel, c.Get)
		r.Get, r.Got, r.Err = g, ok, err
	case CmdBasicNack:
		r.Err = b.reject(c, MethodBasicNack)
	case CmdBasicReject:
		r.Err = b.reject(CmdBasicNack{Channel: c.Channel, DeliveryTag: c.DeliveryTag, Requeue: c.Requeue}, MethodBasicReject)
	case CmdBasicRecover:
		r.Err = b.recover(c.Channel, c.Requeue, MethodBasicRecover)
	case CmdBasicRecoverAsync:
		r.Err = b.recover(c.Channel, c.Requeue, MethodBasicRecoverAsync)
	case CmdConfirmSelect:
		r.Err = b.confirmSelect(c.Channel)
	case CmdTxSelect:
		r.Err = b.txSelect(c.Channel)
	case CmdTxCommit:
		r.Err = b.commitTx(c.Channel)
	case CmdTxRollback:
		r.Err = b.rollbackTx(c.Channel)
	case CmdSetPolicy:
		r.Err = b.setPolicy(c.Policy, c.Operator)
	case CmdClearPolicy:
		r.Err = b.clearPolicy(c.Vhost, c.Name, c.Operator)
	case CmdSetPermissions:
		b.setPermissions(c.User, c.Vhost, c.Perms)
	case CmdAddVhost:
		r.Err = b.createVhost(c.Name)
	case CmdDeleteVhost:
		r.Err = b.deleteVhost(c.Name)
	case CmdSettle:
		b.settle(c.Time)
	case CmdStep:
		t, fired := b.step()
		r.Time, r.Fired = t, fired
	case CmdRestart:
		b.restart(c.At)
	case CmdPutUser:
		r.Err = b.putUser(c.User)
	case CmdDeleteUser:
		r.Err = b.deleteUser(c.Name)
	case CmdPutUserPermission:
		r.Err = b.putUserPermission(c.Permission)
	case CmdClearUserPermission:
		r.Err = b.clearUserPermission(c.User, c.Vhost)
	case CmdPutTopicPermission:
		r.Err = b.putTopicPermission(c.Permission)
	case CmdClearTopicPermissions:
		r.Err = b.clearTopicPermissions(c.User, c.Vhost, c.Exchange)
	case CmdDurablePut, CmdDurableTake, CmdDurableHold, CmdDurableDone, CmdDurableClock,
		CmdDurableQueue, CmdDurableQueueGone, CmdDurableExchange, CmdDurableExchangeGone, CmdDurableBind, CmdDurableUnbind, CmdDurableBuffer, CmdDurableDelay, CmdDurableRelease,
		CmdDurablePolicy, CmdDurableRetime, CmdDurableVhostGone:
		b.applyDurable(c) // durable_replay.go
	case CmdSetLimits:
		b.cfg.MaxQueuesPerVhost, b.cfg.MaxMessagesPerVhost = c.Limits.MaxQueuesPerVhost, c.Limits.MaxMessagesPerVhost
	default:
		panic("engine: Apply of an unknown command")
	}
}
