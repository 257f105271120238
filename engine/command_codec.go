package engine

import (
	"math"
	"strconv"
)

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

// DecodeCommand decodes one record, which must be all of src. Bytes that
// are not a record give an error, never a panic; the command holds no
// reference to src.
func DecodeCommand(src []byte) (Command, error) {
	d := decoder{src: src}
	if v := d.byte1(); d.err == nil && v != CommandFormat {
		d.off = 0
		d.fail("unknown format " + strconv.Itoa(int(v)))
	}
	c := d.cmd()
	if d.err == nil && d.off != len(src) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return c, nil
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
	case CmdPublishTarget:
		e.tag(c.kind())
		e.channel(c.Channel)
		e.str(c.Exchange)
	case CmdPublishDirect:
		e.tag(c.kind())
		e.channel(c.From)
		e.channel(c.To)
		e.str(c.ConsumerTag)
		e.publish(c.Publish)
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

func (d *decoder) queueBind() QueueBind {
	return QueueBind{Queue: d.str(), Exchange: d.str(), RoutingKey: d.str(), Args: d.table(0)}
}

func (d *decoder) exchangeBind() ExchangeBind {
	return ExchangeBind{Destination: d.str(), Source: d.str(), RoutingKey: d.str(), Args: d.table(0)}
}

func (d *decoder) conn() ConnID { return ConnID(d.unsigned(1<<32 - 1)) }

func (d *decoder) tick() Time { return Time(d.varint()) }

// cmd decodes a command's kind and fields. Go evaluates a composite
// literal's fields in order, so each literal reads its fields in the order
// the encoder wrote them.
func (d *decoder) cmd() Command {
	k := CommandKind(d.byte1())
	if d.err != nil {
		return nil
	}
	switch k {
	case KindOpenConnection:
		o := ConnectionOpen{Vhost: d.str(), User: d.str(), Name: d.str(), ClientProperties: d.table(0)}
		o.Perms = d.perms()
		return CmdOpenConnection{Open: o}
	case KindCloseConnection:
		return CmdCloseConnection{Conn: d.conn()}
	case KindForceCloseConnection:
		return CmdForceCloseConnection{Conn: d.conn(), Reason: d.str()}
	case KindForceCloseUserConnections:
		return CmdForceCloseUserConnections{User: d.str(), Reason: d.str()}
	case KindPauseConnection:
		return CmdPauseConnection{Conn: d.conn(), Paused: d.boolean()}
	case KindOpenChannel:
		return CmdOpenChannel{Conn: d.conn(), Num: uint16(d.unsigned(1<<16 - 1))}
	case KindCloseChannel:
		return CmdCloseChannel{Channel: d.channel()}
	case KindChannelException:
		return CmdChannelException{Channel: d.channel(), Err: d.exception()}
	case KindExchangeDeclare:
		ch := d.channel()
		x := ExchangeDeclare{Exchange: d.str(), Type: d.str(), Passive: d.boolean(), Durable: d.boolean(),
			AutoDelete: d.boolean(), Internal: d.boolean(), Args: d.table(0)}
		return CmdExchangeDeclare{Channel: ch, Declare: x}
	case KindExchangeDelete:
		ch := d.channel()
		return CmdExchangeDelete{Channel: ch, Delete: ExchangeDelete{Exchange: d.str(), IfUnused: d.boolean()}}
	case KindExchangeBind:
		ch := d.channel()
		return CmdExchangeBind{Channel: ch, Bind: d.exchangeBind()}
	case KindExchangeUnbind:
		ch := d.channel()
		return CmdExchangeUnbind{Channel: ch, Bind: d.exchangeBind()}
	case KindQueueDeclare:
		ch := d.channel()
		q := QueueDeclare{Queue: d.str(), Passive: d.boolean(), Durable: d.boolean(), Exclusive: d.boolean(),
			AutoDelete: d.boolean(), Args: d.table(0)}
		return CmdQueueDeclare{Channel: ch, Declare: q}
	case KindQueueDelete:
		ch := d.channel()
		return CmdQueueDelete{Channel: ch, Delete: QueueDelete{Queue: d.str(), IfUnused: d.boolean(), IfEmpty: d.boolean()}}
	case KindQueueBind:
		ch := d.channel()
		return CmdQueueBind{Channel: ch, Bind: d.queueBind()}
	case KindQueueUnbind:
		ch := d.channel()
		return CmdQueueUnbind{Channel: ch, Bind: d.queueBind()}
	case KindQueuePurge:
		return CmdQueuePurge{Channel: d.channel(), Queue: d.str()}
	case KindBasicQos:
		ch := d.channel()
		q := BasicQos{PrefetchSize: uint32(d.unsigned(1<<32 - 1)), PrefetchCount: uint16(d.unsigned(1<<16 - 1)), Global: d.boolean()}
		return CmdBasicQos{Channel: ch, Qos: q}
	case KindBasicConsume:
		ch := d.channel()
		s := BasicConsume{Queue: d.str(), ConsumerTag: d.str(), NoLocal: d.boolean(), NoAck: d.boolean(),
			Exclusive: d.boolean(), Args: d.table(0)}
		return CmdBasicConsume{Channel: ch, Consume: s}
	case KindBasicCancel:
		return CmdBasicCancel{Channel: d.channel(), ConsumerTag: d.str()}
	case KindBasicPublish:
		ch := d.channel()
		return CmdBasicPublish{Channel: ch, Publish: d.publish()}
	case KindPublishTarget:
		return CmdPublishTarget{Channel: d.channel(), Exchange: d.str()}
	case KindPublishDirect:
		c := CmdPublishDirect{From: d.channel(), To: d.channel(), ConsumerTag: d.str()}
		c.Publish = d.publish()
		return c
	case KindBasicGet:
		ch := d.channel()
		return CmdBasicGet{Channel: ch, Get: BasicGet{Queue: d.str(), NoAck: d.boolean()}}
	case KindBasicAck:
		return CmdBasicAck{Channel: d.channel(), DeliveryTag: d.uvarint(), Multiple: d.boolean()}
	case KindBasicNack:
		return CmdBasicNack{Channel: d.channel(), DeliveryTag: d.uvarint(), Multiple: d.boolean(), Requeue: d.boolean()}
	case KindBasicReject:
		return CmdBasicReject{Channel: d.channel(), DeliveryTag: d.uvarint(), Requeue: d.boolean()}
	case KindBasicRecover:
		return CmdBasicRecover{Channel: d.channel(), Requeue: d.boolean()}
	case KindBasicRecoverAsync:
		return CmdBasicRecoverAsync{Channel: d.channel(), Requeue: d.boolean()}
	case KindConfirmSelect:
		return CmdConfirmSelect{Channel: d.channel()}
	case KindTxSelect:
		return CmdTxSelect{Channel: d.channel()}
	case KindTxCommit:
		return CmdTxCommit{Channel: d.channel()}
	case KindTxRollback:
		return CmdTxRollback{Channel: d.channel()}
	case KindSetPolicy:
		p := Policy{Vhost: d.str(), Name: d.str(), Pattern: d.str(), ApplyTo: d.str()}
		p.Priority = int(d.signed(math.MinInt, math.MaxInt))
		p.Definition = d.table(0)
		return CmdSetPolicy{Policy: p, Operator: d.boolean()}
	case KindClearPolicy:
		return CmdClearPolicy{Vhost: d.str(), Name: d.str(), Operator: d.boolean()}
	case KindSetPermissions:
		return CmdSetPermissions{User: d.str(), Vhost: d.str(), Perms: d.perms()}
	case KindAddVhost:
		return CmdAddVhost{Name: d.str()}
	case KindDeleteVhost:
		return CmdDeleteVhost{Name: d.str()}
	case KindAdvanceTo:
		return CmdAdvanceTo{Time: d.tick()}
	case KindSettle:
		return CmdSettle{Time: d.tick()}
	case KindStep:
		return CmdStep{}
	}
	d.off--
	d.fail("unknown command kind " + strconv.Itoa(int(k)))
	return nil
}
