package engine

// CommandFormat is the first byte of every command record: the version of
// the encoding below. A future format gets a new number, so a reader can
// tell which one a log (or one record of it) was written in, and refuse
// what it does not know rather than misread it.
//
// A record is: CommandFormat, the kind (CommandKind), then the command's
// fields in declaration order. Integers are varints (zig-zag for signed
// ones), strings and byte slices are length-prefixed, booleans are one
// byte 0 or 1; tables, properties and permissions are written as
// codec_values.go describes. Nothing depends on map order, the platform
// or the time, so the same command is the same bytes natively and in wasm.
const CommandFormat = 1

// AppendCommand appends c's record to dst and returns the extended slice.
// It fails only for a table value that is not an AMQP field value (see
// Table), or nesting deeper than 64; dst is then returned unchanged.
func AppendCommand(dst []byte, c Command) ([]byte, error) {
	e := encoder{buf: dst}
	e.buf = append(e.buf, CommandFormat)
	e.cmd(c)
	if e.err != nil {
		return dst, e.err
	}
	return e.buf, nil
}

func (e *encoder) cmd(c Command) {
	switch c := c.(type) {
	case CmdOpenConnection:
		e.tag(c.kind())
		o := c.Open
		e.str(o.Vhost)
		e.str(o.User)
		e.str(o.Name)
		e.table(o.ClientProperties, 0)
		e.perms(o.Perms)
	case CmdCloseConnection:
		e.tag(c.kind())
		e.uvarint(uint64(c.Conn))
	case CmdForceCloseConnection:
		e.tag(c.kind())
		e.uvarint(uint64(c.Conn))
		e.str(c.Reason)
	case CmdForceCloseUserConnections:
		e.tag(c.kind())
		e.str(c.User)
		e.str(c.Reason)
	case CmdPauseConnection:
		e.tag(c.kind())
		e.uvarint(uint64(c.Conn))
		e.boolean(c.Paused)
	case CmdOpenChannel:
		e.tag(c.kind())
		e.uvarint(uint64(c.Conn))
		e.uvarint(uint64(c.Num))
	case CmdCloseChannel:
		e.tag(c.kind())
		e.channel(c.Channel)
	case CmdChannelException:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.exception(c.Err)
	case CmdExchangeDeclare:
		e.tag(c.kind())
		e.channel(c.Channel)
		x := c.Declare
		e.str(x.Exchange)
		e.str(x.Type)
		e.boolean(x.Passive)
		e.boolean(x.Durable)
		e.boolean(x.AutoDelete)
		e.boolean(x.Internal)
		e.table(x.Args, 0)
	case CmdExchangeDelete:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.str(c.Delete.Exchange)
		e.boolean(c.Delete.IfUnused)
	case CmdExchangeBind:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.exchangeBind(c.Bind)
	case CmdExchangeUnbind:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.exchangeBind(c.Bind)
	case CmdQueueDeclare:
		e.tag(c.kind())
		e.channel(c.Channel)
		q := c.Declare
		e.str(q.Queue)
		e.boolean(q.Passive)
		e.boolean(q.Durable)
		e.boolean(q.Exclusive)
		e.boolean(q.AutoDelete)
		e.table(q.Args, 0)
	case CmdQueueDelete:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.str(c.Delete.Queue)
		e.boolean(c.Delete.IfUnused)
		e.boolean(c.Delete.IfEmpty)
	case CmdQueueBind:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.queueBind(c.Bind)
	case CmdQueueUnbind:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.queueBind(c.Bind)
	case CmdQueuePurge:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.str(c.Queue)
	case CmdBasicQos:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.uvarint(uint64(c.Qos.PrefetchSize))
		e.uvarint(uint64(c.Qos.PrefetchCount))
		e.boolean(c.Qos.Global)
	case CmdBasicConsume:
		e.tag(c.kind())
		e.channel(c.Channel)
		s := c.Consume
		e.str(s.Queue)
		e.str(s.ConsumerTag)
		e.boolean(s.NoLocal)
		e.boolean(s.NoAck)
		e.boolean(s.Exclusive)
		e.table(s.Args, 0)
	case CmdBasicCancel:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.str(c.ConsumerTag)
	case CmdBasicPublish:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.publish(c.Publish)
	case retiredPublishTarget, retiredPublishDirect:
		e.retired(c) // command_retired.go
	case CmdBasicGet:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.str(c.Get.Queue)
		e.boolean(c.Get.NoAck)
	case CmdBasicAck:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.uvarint(c.DeliveryTag)
		e.boolean(c.Multiple)
	case CmdBasicNack:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.uvarint(c.DeliveryTag)
		e.boolean(c.Multiple)
		e.boolean(c.Requeue)
	case CmdBasicReject:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.uvarint(c.DeliveryTag)
		e.boolean(c.Requeue)
	case CmdBasicRecover:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.boolean(c.Requeue)
	case CmdBasicRecoverAsync:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.boolean(c.Requeue)
	case CmdConfirmSelect:
		e.tag(c.kind())
		e.channel(c.Channel)
	case CmdTxSelect:
		e.tag(c.kind())
		e.channel(c.Channel)
	case CmdTxCommit:
		e.tag(c.kind())
		e.channel(c.Channel)
	case CmdTxRollback:
		e.tag(c.kind())
		e.channel(c.Channel)
	case CmdSetPolicy:
		e.tag(c.kind())
		p := c.Policy
		e.str(p.Vhost)
		e.str(p.Name)
		e.str(p.Pattern)
		e.str(p.ApplyTo)
		e.varint(int64(p.Priority))
		e.table(p.Definition, 0)
		e.boolean(c.Operator)
	case CmdClearPolicy:
		e.tag(c.kind())
		e.str(c.Vhost)
		e.str(c.Name)
		e.boolean(c.Operator)
	case CmdSetPermissions:
		e.tag(c.kind())
		e.str(c.User)
		e.str(c.Vhost)
		e.perms(c.Perms)
	case CmdAddVhost:
		e.tag(c.kind())
		e.str(c.Name)
	case CmdDeleteVhost:
		e.tag(c.kind())
		e.str(c.Name)
	case CmdAdvanceTo:
		e.tag(c.kind())
		e.varint(int64(c.Time))
	case CmdSettle:
		e.tag(c.kind())
		e.varint(int64(c.Time))
	case CmdStep:
		e.tag(c.kind())
	case CmdRestart:
		e.tag(c.kind())
		e.varint(int64(c.At))
	case CmdPutUser:
		e.tag(c.kind())
		e.str(c.User.Name)
		e.str(c.User.PasswordHash)
		e.str(c.User.HashingAlgorithm)
		e.uvarint(uint64(len(c.User.Tags)))
		for _, t := range c.User.Tags {
			e.str(t)
		}
	case CmdDeleteUser:
		e.tag(c.kind())
		e.str(c.Name)
	case CmdPutUserPermission:
		e.tag(c.kind())
		p := c.Permission
		e.str(p.User)
		e.str(p.Vhost)
		e.str(p.Configure)
		e.str(p.Write)
		e.str(p.Read)
	case CmdClearUserPermission:
		e.tag(c.kind())
		e.str(c.User)
		e.str(c.Vhost)
	case CmdPutTopicPermission:
		e.tag(c.kind())
		p := c.Permission
		e.str(p.User)
		e.str(p.Vhost)
		e.str(p.Exchange)
		e.str(p.Write)
		e.str(p.Read)
	case CmdClearTopicPermissions:
		e.tag(c.kind())
		e.str(c.User)
		e.str(c.Vhost)
		e.str(c.Exchange)
	case CmdSetLimits:
		e.tag(c.kind())
		e.varint(int64(c.Limits.MaxQueuesPerVhost))
		e.varint(c.Limits.MaxMessagesPerVhost)
	default:
		e.fail("not a command")
	}
}

// tag writes a command's kind. The callers call kind on the concrete type,
// statically: a call through the Command interface would make every
// command escape to the heap, an allocation per publish.
func (e *encoder) tag(k CommandKind) { e.buf = append(e.buf, byte(k)) }

func (e *encoder) queueBind(b QueueBind) {
	e.str(b.Queue)
	e.str(b.Exchange)
	e.str(b.RoutingKey)
	e.table(b.Args, 0)
}

func (e *encoder) exchangeBind(b ExchangeBind) {
	e.str(b.Destination)
	e.str(b.Source)
	e.str(b.RoutingKey)
	e.table(b.Args, 0)
}
