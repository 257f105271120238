package amqpconn

import (
	"warren/engine"
	"warren/engine/amqp"
)

// channelCommand maps one command on a channel, as rabbit_reader and
// rabbit_channel would for the channel's state.
func (m *Machine) channelCommand(in amqp.Command) {
	if m.dead || m.gone {
		return // the connection is closing: everything is discarded
	}
	n := in.Channel
	switch m.chans.get(n) {
	case chanClosing:
		switch in.Method.(type) {
		case *amqp.ChannelCloseOk:
			m.chans.forget(n) // the number may be opened again
		case *amqp.ChannelClose:
			// Both sides closed at once: answer, and still wait for
			// the close-ok (rabbit_channel in state closing).
			m.sendMethod(n, &amqp.ChannelCloseOk{})
		}
		return
	case chanOpen:
		if _, ok := in.Method.(*amqp.ChannelClose); ok {
			m.command(engine.CmdCloseChannel{Channel: m.channel(n)}, m.entry(in, effectForget, okReply(&amqp.ChannelCloseOk{})))
			return
		}
	default:
		if _, ok := in.Method.(*amqp.ChannelOpen); !ok {
			// rabbit_channel in state starting.
			m.failInOrder(in, engine.ChannelError, "CHANNEL_ERROR - expected 'channel.open'", methodOf(in.Method))
			return
		}
	}
	m.call(in)
}

func (m *Machine) channel(n uint16) engine.ChannelID { return engine.ChannelID{Conn: m.id, Num: n} }

// entry is the pending entry of an input whose command replies.
func (m *Machine) entry(in amqp.Command, effect chanEffect, reply func(*engine.Result) amqp.Method) pending {
	return pending{kind: pendReply, in: in, has: true, sync: !Pipelined(in), reply: reply, channel: in.Channel, effect: effect}
}

// okReply replies with a fixed method.
func okReply(meth amqp.Method) func(*engine.Result) amqp.Method {
	return func(*engine.Result) amqp.Method { return meth }
}

// unlessNoWait replies with meth unless the client asked for nowait.
func unlessNoWait(noWait bool, meth amqp.Method) func(*engine.Result) amqp.Method {
	if noWait {
		return nil
	}
	return okReply(meth)
}

// call maps one channel method to its engine command and the reply its
// result makes. An engine error needs no reply: the engine has closed the
// channel or connection and its event becomes channel.close or
// connection.close.
func (m *Machine) call(in amqp.Command) {
	n := in.Channel
	id := m.channel(n)
	switch meth := in.Method.(type) {
	case *amqp.ChannelOpen:
		if m.chans.count() >= int(m.channelMax) && m.chans.get(n) == 0 {
			// rabbit_reader refuses a channel past the negotiated
			// channel_max with a connection error that names no
			// method; channels awaiting close-ok still count.
			m.failInOrder(in, engine.NotAllowed, "NOT_ALLOWED - number of channels opened ("+itoa(m.chans.count())+") has reached the negotiated channel_max ("+itoa(int(m.channelMax))+")", engine.Method{})
			return
		}
		m.command(engine.CmdOpenChannel{Conn: m.id, Num: n}, m.entry(in, effectOpen, okReply(&amqp.ChannelOpenOk{})))
	case *amqp.ChannelFlow:
		if !meth.Active {
			// RabbitMQ never implemented a client stopping the
			// server's deliveries this way (rabbit_channel).
			m.failInOrder(in, engine.NotImplemented, "NOT_IMPLEMENTED - active=false", methodOf(meth))
			return
		}
		m.sendMethod(n, &amqp.ChannelFlowOk{Active: true})
	case *amqp.AccessRequest:
		// Access tickets are long gone from AMQP; RabbitMQ still
		// answers with ticket 1.
		m.sendMethod(n, &amqp.AccessRequestOk{Ticket: 1})
	case *amqp.ExchangeDeclare:
		m.command(engine.CmdExchangeDeclare{Channel: id, Declare: engine.ExchangeDeclare{Exchange: meth.Exchange, Type: meth.Type, Passive: meth.Passive, Durable: meth.Durable,
			AutoDelete: meth.AutoDelete, Internal: meth.Internal, Args: ToEngineTable(meth.Arguments)}}, m.entry(in, effectNone, unlessNoWait(meth.NoWait, &amqp.ExchangeDeclareOk{})))
	case *amqp.ExchangeDelete:
		m.command(engine.CmdExchangeDelete{Channel: id, Delete: engine.ExchangeDelete{Exchange: meth.Exchange, IfUnused: meth.IfUnused}},
			m.entry(in, effectNone, unlessNoWait(meth.NoWait, &amqp.ExchangeDeleteOk{})))
	case *amqp.ExchangeBind:
		m.command(engine.CmdExchangeBind{Channel: id, Bind: engine.ExchangeBind{Destination: meth.Destination, Source: meth.Source, RoutingKey: meth.RoutingKey, Args: ToEngineTable(meth.Arguments)}},
			m.entry(in, effectNone, unlessNoWait(meth.NoWait, &amqp.ExchangeBindOk{})))
	case *amqp.ExchangeUnbind:
		m.command(engine.CmdExchangeUnbind{Channel: id, Bind: engine.ExchangeBind{Destination: meth.Destination, Source: meth.Source, RoutingKey: meth.RoutingKey, Args: ToEngineTable(meth.Arguments)}},
			m.entry(in, effectNone, unlessNoWait(meth.NoWait, &amqp.ExchangeUnbindOk{})))
	case *amqp.QueueDeclare:
		var reply func(*engine.Result) amqp.Method
		if !meth.NoWait {
			reply = func(r *engine.Result) amqp.Method {
				return &amqp.QueueDeclareOk{Queue: r.Declared.Queue, MessageCount: uint32(r.Declared.MessageCount), ConsumerCount: uint32(r.Declared.ConsumerCount)}
			}
		}
		m.command(engine.CmdQueueDeclare{Channel: id, Declare: engine.QueueDeclare{Queue: meth.Queue, Passive: meth.Passive, Durable: meth.Durable, Exclusive: meth.Exclusive,
			AutoDelete: meth.AutoDelete, Args: ToEngineTable(meth.Arguments)}}, m.entry(in, effectNone, reply))
	case *amqp.QueueBind:
		m.command(engine.CmdQueueBind{Channel: id, Bind: engine.QueueBind{Queue: meth.Queue, Exchange: meth.Exchange, RoutingKey: meth.RoutingKey, Args: ToEngineTable(meth.Arguments)}},
			m.entry(in, effectNone, unlessNoWait(meth.NoWait, &amqp.QueueBindOk{})))
	case *amqp.QueueUnbind:
		m.command(engine.CmdQueueUnbind{Channel: id, Bind: engine.QueueBind{Queue: meth.Queue, Exchange: meth.Exchange, RoutingKey: meth.RoutingKey, Args: ToEngineTable(meth.Arguments)}},
			m.entry(in, effectNone, okReply(&amqp.QueueUnbindOk{})))
	case *amqp.QueuePurge:
		m.command(engine.CmdQueuePurge{Channel: id, Queue: meth.Queue}, m.entry(in, effectNone, countReply(meth.NoWait, func(c uint32) amqp.Method { return &amqp.QueuePurgeOk{MessageCount: c} })))
	case *amqp.QueueDelete:
		m.command(engine.CmdQueueDelete{Channel: id, Delete: engine.QueueDelete{Queue: meth.Queue, IfUnused: meth.IfUnused, IfEmpty: meth.IfEmpty}},
			m.entry(in, effectNone, countReply(meth.NoWait, func(c uint32) amqp.Method { return &amqp.QueueDeleteOk{MessageCount: c} })))
	case *amqp.BasicQos:
		m.command(engine.CmdBasicQos{Channel: id, Qos: engine.BasicQos{PrefetchSize: meth.PrefetchSize, PrefetchCount: meth.PrefetchCount, Global: meth.Global}},
			m.entry(in, effectNone, okReply(&amqp.BasicQosOk{})))
	case *amqp.BasicConsume:
		var reply func(*engine.Result) amqp.Method
		if !meth.NoWait {
			reply = func(r *engine.Result) amqp.Method { return &amqp.BasicConsumeOk{ConsumerTag: r.ConsumerTag} }
		}
		m.command(engine.CmdBasicConsume{Channel: id, Consume: engine.BasicConsume{Queue: meth.Queue, ConsumerTag: meth.ConsumerTag, NoLocal: meth.NoLocal, NoAck: meth.NoAck,
			Exclusive: meth.Exclusive, Args: ToEngineTable(meth.Arguments)}}, m.entry(in, effectNone, reply))
	case *amqp.BasicCancel:
		m.command(engine.CmdBasicCancel{Channel: id, ConsumerTag: meth.ConsumerTag}, m.entry(in, effectNone, unlessNoWait(meth.NoWait, &amqp.BasicCancelOk{ConsumerTag: meth.ConsumerTag})))
	case *amqp.BasicPublish:
		m.pubs = append(m.pubs, engine.CmdBasicPublish{Channel: id, Publish: engine.BasicPublish{Exchange: meth.Exchange, RoutingKey: meth.RoutingKey, Mandatory: meth.Mandatory,
			Immediate: meth.Immediate, Props: ToEngineProps(in.Props), Body: in.Body}})
		m.command(&m.pubs[len(m.pubs)-1], m.plain(in))
	case *amqp.BasicGet:
		// basic.get-ok comes as the Delivered event; the result says
		// only whether the queue was empty.
		m.command(engine.CmdBasicGet{Channel: id, Get: engine.BasicGet{Queue: meth.Queue, NoAck: meth.NoAck}}, m.entry(in, effectNone, getEmpty))
	case *amqp.BasicAck:
		m.acks = append(m.acks, engine.CmdBasicAck{Channel: id, DeliveryTag: meth.DeliveryTag, Multiple: meth.Multiple})
		m.command(&m.acks[len(m.acks)-1], m.plain(in))
	case *amqp.BasicNack:
		m.command(engine.CmdBasicNack{Channel: id, DeliveryTag: meth.DeliveryTag, Multiple: meth.Multiple, Requeue: meth.Requeue}, m.plain(in))
	case *amqp.BasicReject:
		m.command(engine.CmdBasicReject{Channel: id, DeliveryTag: meth.DeliveryTag, Requeue: meth.Requeue}, m.plain(in))
	case *amqp.BasicRecover:
		m.command(engine.CmdBasicRecover{Channel: id, Requeue: meth.Requeue}, m.entry(in, effectNone, okReply(&amqp.BasicRecoverOk{})))
	case *amqp.BasicRecoverAsync:
		m.command(engine.CmdBasicRecoverAsync{Channel: id, Requeue: meth.Requeue}, m.entry(in, effectNone, nil))
	case *amqp.ConfirmSelect:
		m.command(engine.CmdConfirmSelect{Channel: id}, m.entry(in, effectNone, unlessNoWait(meth.NoWait, &amqp.ConfirmSelectOk{})))
	case *amqp.TxSelect:
		m.command(engine.CmdTxSelect{Channel: id}, m.entry(in, effectNone, okReply(&amqp.TxSelectOk{})))
	case *amqp.TxCommit:
		// tx.commit-ok goes out on the TxCommitted event, after the
		// last of a large commit's batches (engine/txcommit.go).
		m.command(engine.CmdTxCommit{Channel: id}, m.entry(in, effectNone, nil))
	case *amqp.TxRollback:
		m.command(engine.CmdTxRollback{Channel: id}, m.entry(in, effectNone, okReply(&amqp.TxRollbackOk{})))
	default:
		// A method a client must not send (a server-side method such as
		// basic.deliver, or channel.close-ok on an open channel):
		// rabbit_channel's last handle_method clause.
		m.failInOrder(in, engine.CommandInvalid, "COMMAND_INVALID - unimplemented method", methodOf(in.Method))
	}
}

// plain is the entry of a pipelined command: no reply, and no closure
// made per message.
func (m *Machine) plain(in amqp.Command) pending {
	return pending{kind: pendNone, in: in, has: true, channel: in.Channel}
}

// countReply replies with a message count unless nowait.
func countReply(noWait bool, mk func(uint32) amqp.Method) func(*engine.Result) amqp.Method {
	if noWait {
		return nil
	}
	return func(r *engine.Result) amqp.Method { return mk(uint32(r.Count)) }
}

// getEmpty answers a basic.get that found the queue empty.
func getEmpty(r *engine.Result) amqp.Method {
	if r.Got {
		return nil
	}
	return &amqp.BasicGetEmpty{}
}
