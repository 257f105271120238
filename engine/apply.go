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
func (b *Broker) Apply(c Command) Result {
	if b.cfg.RecordCommands {
		b.record(c)
	}
	if b.dlog != nil {
		b.dlog.noteCommand(c)
	}
	switch c := c.(type) {
	case CmdBasicPublish:
		return Result{Err: b.basicPublish(c.Channel, c.Publish)}
	case CmdBasicAck:
		return Result{Err: b.basicAck(c)}
	case CmdAdvanceTo:
		b.advanceTo(c.Time)
	case CmdOpenConnection:
		id, err := b.openConnection(c.Open)
		return Result{Conn: id, Err: err}
	case CmdCloseConnection:
		b.closeConnectionByID(c.Conn)
	case CmdForceCloseConnection:
		b.forceCloseConnection(c.Conn, c.Reason)
	case CmdForceCloseUserConnections:
		return Result{Count: b.forceCloseUserConnections(c.User, c.Reason)}
	case CmdPauseConnection:
		b.pauseConnection(c.Conn, c.Paused)
	case CmdOpenChannel:
		id, err := b.openChannel(c.Conn, c.Num)
		return Result{Channel: id, Err: err}
	case CmdCloseChannel:
		b.closeChannel(c.Channel)
	case CmdChannelException:
		b.channelException(c.Channel, c.Err)
	case CmdExchangeDeclare:
		return Result{Err: b.declareExchange(c.Channel, c.Declare)}
	case CmdExchangeDelete:
		return Result{Err: b.exchangeDelete(c.Channel, c.Delete)}
	case CmdExchangeBind:
		eb := c.Bind
		return Result{Err: b.bindAction(c.Channel, eb.Source, eb.Destination, eb.RoutingKey, eb.Args, MethodExchangeBind)}
	case CmdExchangeUnbind:
		eb := c.Bind
		return Result{Err: b.bindAction(c.Channel, eb.Source, eb.Destination, eb.RoutingKey, eb.Args, MethodExchangeUnbind)}
	case CmdQueueDeclare:
		ok, err := b.declareQueue(c.Channel, c.Declare)
		return Result{Declared: ok, Err: err}
	case CmdQueueDelete:
		n, err := b.queueDelete(c.Channel, c.Delete)
		return Result{Count: n, Err: err}
	case CmdQueueBind:
		qb := c.Bind
		return Result{Err: b.bindAction(c.Channel, qb.Exchange, qb.Queue, qb.RoutingKey, qb.Args, MethodQueueBind)}
	case CmdQueueUnbind:
		qb := c.Bind
		return Result{Err: b.bindAction(c.Channel, qb.Exchange, qb.Queue, qb.RoutingKey, qb.Args, MethodQueueUnbind)}
	case CmdQueuePurge:
		n, err := b.queuePurge(c.Channel, c.Queue)
		return Result{Count: n, Err: err}
	case CmdBasicQos:
		return Result{Err: b.basicQos(c.Channel, c.Qos)}
	case CmdBasicConsume:
		tag, err := b.basicConsume(c.Channel, c.Consume)
		return Result{ConsumerTag: tag, Err: err}
	case CmdBasicCancel:
		return Result{Err: b.basicCancel(c.Channel, c.ConsumerTag)}
	case retiredPublishTarget, retiredPublishDirect:
		return Result{Err: b.applyRetired(c)} // command_retired.go
	case CmdBasicGet:
		g, ok, err := b.basicGet(c.Channel, c.Get)
		return Result{Get: g, Got: ok, Err: err}
	case CmdBasicNack:
		return Result{Err: b.reject(c, MethodBasicNack)}
	case CmdBasicReject:
		return Result{Err: b.reject(CmdBasicNack{Channel: c.Channel, DeliveryTag: c.DeliveryTag, Requeue: c.Requeue}, MethodBasicReject)}
	case CmdBasicRecover:
		return Result{Err: b.recover(c.Channel, c.Requeue, MethodBasicRecover)}
	case CmdBasicRecoverAsync:
		return Result{Err: b.recover(c.Channel, c.Requeue, MethodBasicRecoverAsync)}
	case CmdConfirmSelect:
		return Result{Err: b.confirmSelect(c.Channel)}
	case CmdTxSelect:
		return Result{Err: b.txSelect(c.Channel)}
	case CmdTxCommit:
		return Result{Err: b.commitTx(c.Channel)}
	case CmdTxRollback:
		return Result{Err: b.rollbackTx(c.Channel)}
	case CmdSetPolicy:
		return Result{Err: b.setPolicy(c.Policy, c.Operator)}
	case CmdClearPolicy:
		return Result{Err: b.clearPolicy(c.Vhost, c.Name, c.Operator)}
	case CmdSetPermissions:
		b.setPermissions(c.User, c.Vhost, c.Perms)
	case CmdAddVhost:
		return Result{Err: b.createVhost(c.Name)}
	case CmdDeleteVhost:
		return Result{Err: b.deleteVhost(c.Name)}
	case CmdSettle:
		b.settle(c.Time)
	case CmdStep:
		t, fired := b.step()
		return Result{Time: t, Fired: fired}
	case CmdRestart:
		b.restart(c.At)
	case CmdPutUser:
		return Result{Err: b.putUser(c.User)}
	case CmdDeleteUser:
		return Result{Err: b.deleteUser(c.Name)}
	case CmdPutUserPermission:
		return Result{Err: b.putUserPermission(c.Permission)}
	case CmdClearUserPermission:
		return Result{Err: b.clearUserPermission(c.User, c.Vhost)}
	case CmdPutTopicPermission:
		return Result{Err: b.putTopicPermission(c.Permission)}
	case CmdClearTopicPermissions:
		return Result{Err: b.clearTopicPermissions(c.User, c.Vhost, c.Exchange)}
	case CmdDurablePut, CmdDurableTake, CmdDurableHold, CmdDurableDone, CmdDurableClock,
		CmdDurableQueue, CmdDurableQueueGone, CmdDurableExchange, CmdDurableExchangeGone, CmdDurableBind, CmdDurableUnbind, CmdDurableBuffer, CmdDurableDelay, CmdDurableRelease:
		b.applyDurable(c) // durable_replay.go
	case CmdSetLimits:
		b.cfg.MaxQueuesPerVhost, b.cfg.MaxMessagesPerVhost = c.Limits.MaxQueuesPerVhost, c.Limits.MaxMessagesPerVhost
	default:
		panic("engine: Apply of an unknown command")
	}
	return Result{}
}
