package engine

import (
	"math"
	"strconv"
)

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
	case kindRetiredPublishTarget, kindRetiredPublishDirect:
		return d.retired(k) // command_retired.go
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
	case KindRestart:
		return CmdRestart{At: d.tick()}
	case KindPutUser:
		u := User{Name: d.str(), PasswordHash: d.str(), HashingAlgorithm: d.str()}
		// Each tag takes at least one byte.
		if n := d.uvarint(); n > uint64(d.left()) {
			d.fail("user tags longer than the record")
		} else if n > 0 {
			u.Tags = make([]string, n)
			for i := range u.Tags {
				u.Tags[i] = d.str()
			}
		}
		return CmdPutUser{User: u}
	case KindDeleteUser:
		return CmdDeleteUser{Name: d.str()}
	case KindPutUserPermission:
		return CmdPutUserPermission{Permission: UserPermission{User: d.str(), Vhost: d.str(), Configure: d.str(), Write: d.str(), Read: d.str()}}
	case KindClearUserPermission:
		return CmdClearUserPermission{User: d.str(), Vhost: d.str()}
	case KindPutTopicPermission:
		return CmdPutTopicPermission{Permission: UserTopicPermission{User: d.str(), Vhost: d.str(), Exchange: d.str(), Write: d.str(), Read: d.str()}}
	case KindClearTopicPermissions:
		return CmdClearTopicPermissions{User: d.str(), Vhost: d.str(), Exchange: d.str()}
	case KindSetLimits:
		return CmdSetLimits{Limits: Limits{MaxQueuesPerVhost: int(d.signed(math.MinInt, math.MaxInt)), MaxMessagesPerVhost: d.varint()}}
	}
	d.off--
	d.fail("unknown command kind " + strconv.Itoa(int(k)))
	return nil
}
