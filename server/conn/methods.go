package conn

import (
	"errors"

	"warren/engine"
	"warren/engine/amqp"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// handle processes one inbound command. It reports whether the connection
// is over.
func (c *conn) handle(cmd command) (bool, error) {
	if !c.opened {
		return c.handshake(cmd)
	}
	if cmd.channel == 0 {
		switch cmd.method.(type) {
		case *amqp.ConnectionClose:
			c.clientClosed()
			return false, nil
		case *amqp.ConnectionCloseOk:
			if c.closeSent.Load() {
				return true, nil // the answer to the server's close
			}
		case *amqp.ConnectionUpdateSecret:
			c.out.push(outItem{method: &amqp.ConnectionUpdateSecretOk{}})
			return false, nil
		}
		// rabbit_reader's handle_method0 for any other method while
		// the connection runs.
		c.connectionError(engine.ChannelError, "CHANNEL_ERROR - unexpected method in connection state running", methodOf(cmd.method))
		return false, nil
	}
	if pipelined(cmd) {
		c.handleBatch([]command{cmd})
		return false, nil
	}
	c.writeInline(func() {
		c.b.Do(func(e *engine.Broker) { c.apply(e, cmd) })
	})
	return false, nil
}

// pipelined reports whether a command has no synchronous reply, so the
// connection need not wait for the broker to run it: basic.publish and the
// acknowledgements. Their errors reach the client as channel.close through
// the event sink either way.
func pipelined(cmd command) bool {
	if cmd.channel == 0 {
		return false
	}
	switch cmd.method.(type) {
	case *amqp.BasicPublish, *amqp.BasicAck, *amqp.BasicNack, *amqp.BasicReject:
		return true
	}
	return false
}

// handleBatch runs pipelined commands in one request to the backend, in
// order, with DoAsync: a client that streams publishes pays one request
// per batch rather than per message, and does not wait on a backend that
// queues requests (a shared session's). Publishes wait first while the
// memory alarm is on.
func (c *conn) handleBatch(batch []command) {
	for _, cmd := range batch {
		if _, isPublish := cmd.method.(*amqp.BasicPublish); isPublish {
			if !c.home.Alarm.waitPublish(c.writerGone) {
				return // the peer is gone; the connection is ending
			}
			break
		}
	}
	// Acks from a client with deliveries in hand let the next read wait
	// for more (acks.go). Only where DoAsync runs f at once, on this
	// goroutine, whose transport's read state f may then touch.
	pace := c.ackPace != nil && maybeAckBatch(batch) && runsInline(c.b)
	c.writeInline(func() {
		c.b.DoAsync(func(e *engine.Broker) {
			for _, cmd := range batch {
				c.apply(e, cmd)
			}
			if pace && c.acksInHand(e, batch) {
				c.ackPace.acksHeld()
			}
		})
	})
}

func (c *conn) push(ch uint16, m amqp.Method) { c.out.push(outItem{channel: ch, method: m}) }

// call runs one channel command on the engine and queues its reply. An
// engine error needs no handling here: the engine has closed the channel
// or connection and the sink turns that event into channel.close or
// connection.close.
func (c *conn) call(e *engine.Broker, id engine.ChannelID, cmd command) {
	n := cmd.channel
	switch m := cmd.method.(type) {
	case *amqp.ChannelOpen:
		if c.chans.count() >= int(c.channelMax) && c.chans.get(n) == 0 {
			// rabbit_reader refuses a channel past the negotiated
			// channel_max with a connection error that names no
			// method; channels awaiting close-ok still count.
			c.failConnection(e, engine.NotAllowed, "NOT_ALLOWED - number of channels opened ("+itoa(c.chans.count())+") has reached the negotiated channel_max ("+itoa(int(c.channelMax))+")", engine.Method{})
			return
		}
		if _, err := e.OpenChannel(c.id, n); err == nil {
			c.chans.set(n, chanOpen)
			c.push(n, &amqp.ChannelOpenOk{})
		}
	case *amqp.ChannelFlow:
		if !m.Active {
			// RabbitMQ never implemented a client stopping the
			// server's deliveries this way (rabbit_channel).
			c.failConnection(e, engine.NotImplemented, "NOT_IMPLEMENTED - active=false", methodOf(m))
			return
		}
		c.push(n, &amqp.ChannelFlowOk{Active: true})
	case *amqp.AccessRequest:
		// Access tickets are long gone from AMQP; RabbitMQ still
		// answers with ticket 1.
		c.push(n, &amqp.AccessRequestOk{Ticket: 1})
	case *amqp.ExchangeDeclare:
		err := e.ExchangeDeclare(id, engine.ExchangeDeclare{Exchange: m.Exchange, Type: m.Type, Passive: m.Passive, Durable: m.Durable,
			AutoDelete: m.AutoDelete, Internal: m.Internal, Args: toEngineTable(m.Arguments)})
		c.ok(n, err, m.NoWait, &amqp.ExchangeDeclareOk{})
	case *amqp.ExchangeDelete:
		err := e.ExchangeDelete(id, engine.ExchangeDelete{Exchange: m.Exchange, IfUnused: m.IfUnused})
		c.ok(n, err, m.NoWait, &amqp.ExchangeDeleteOk{})
	case *amqp.ExchangeBind:
		err := e.ExchangeBind(id, engine.ExchangeBind{Destination: m.Destination, Source: m.Source, RoutingKey: m.RoutingKey, Args: toEngineTable(m.Arguments)})
		c.ok(n, err, m.NoWait, &amqp.ExchangeBindOk{})
	case *amqp.ExchangeUnbind:
		err := e.ExchangeUnbind(id, engine.ExchangeBind{Destination: m.Destination, Source: m.Source, RoutingKey: m.RoutingKey, Args: toEngineTable(m.Arguments)})
		c.ok(n, err, m.NoWait, &amqp.ExchangeUnbindOk{})
	case *amqp.QueueDeclare:
		ok, err := e.QueueDeclare(id, engine.QueueDeclare{Queue: m.Queue, Passive: m.Passive, Durable: m.Durable, Exclusive: m.Exclusive,
			AutoDelete: m.AutoDelete, Args: toEngineTable(m.Arguments)})
		c.ok(n, err, m.NoWait, &amqp.QueueDeclareOk{Queue: ok.Queue, MessageCount: uint32(ok.MessageCount), ConsumerCount: uint32(ok.ConsumerCount)})
	case *amqp.QueueBind:
		err := e.QueueBind(id, engine.QueueBind{Queue: m.Queue, Exchange: m.Exchange, RoutingKey: m.RoutingKey, Args: toEngineTable(m.Arguments)})
		c.ok(n, err, m.NoWait, &amqp.QueueBindOk{})
	case *amqp.QueueUnbind:
		err := e.QueueUnbind(id, engine.QueueBind{Queue: m.Queue, Exchange: m.Exchange, RoutingKey: m.RoutingKey, Args: toEngineTable(m.Arguments)})
		c.ok(n, err, false, &amqp.QueueUnbindOk{})
	case *amqp.QueuePurge:
		count, err := e.QueuePurge(id, m.Queue)
		c.ok(n, err, m.NoWait, &amqp.QueuePurgeOk{MessageCount: uint32(count)})
	case *amqp.QueueDelete:
		count, err := e.QueueDelete(id, engine.QueueDelete{Queue: m.Queue, IfUnused: m.IfUnused, IfEmpty: m.IfEmpty})
		c.ok(n, err, m.NoWait, &amqp.QueueDeleteOk{MessageCount: uint32(count)})
	case *amqp.BasicQos:
		err := e.BasicQos(id, engine.BasicQos{PrefetchSize: m.PrefetchSize, PrefetchCount: m.PrefetchCount, Global: m.Global})
		c.ok(n, err, false, &amqp.BasicQosOk{})
	case *amqp.BasicConsume:
		tag, err := e.BasicConsume(id, engine.BasicConsume{Queue: m.Queue, ConsumerTag: m.ConsumerTag, NoLocal: m.NoLocal, NoAck: m.NoAck,
			Exclusive: m.Exclusive, Args: toEngineTable(m.Arguments)})
		c.ok(n, err, m.NoWait, &amqp.BasicConsumeOk{ConsumerTag: tag})
	case *amqp.BasicCancel:
		err := e.BasicCancel(id, m.ConsumerTag)
		c.ok(n, err, m.NoWait, &amqp.BasicCancelOk{ConsumerTag: m.ConsumerTag})
	case *amqp.BasicPublish:
		p := engine.BasicPublish{Exchange: m.Exchange, RoutingKey: m.RoutingKey, Mandatory: m.Mandatory, Immediate: m.Immediate,
			Props: toEngineProps(cmd.props), Body: cmd.body}
		e.BasicPublish(id, p)
	case *amqp.BasicGet:
		_, ok, err := e.BasicGet(id, engine.BasicGet{Queue: m.Queue, NoAck: m.NoAck})
		if err == nil && !ok {
			c.push(n, &amqp.BasicGetEmpty{})
		}
	case *amqp.BasicAck:
		e.Apply(engine.CmdBasicAck{Channel: id, DeliveryTag: m.DeliveryTag, Multiple: m.Multiple})
	case *amqp.BasicNack:
		e.Apply(engine.CmdBasicNack{Channel: id, DeliveryTag: m.DeliveryTag, Multiple: m.Multiple, Requeue: m.Requeue})
	case *amqp.BasicReject:
		e.Apply(engine.CmdBasicReject{Channel: id, DeliveryTag: m.DeliveryTag, Requeue: m.Requeue})
	case *amqp.BasicRecover:
		err := e.Apply(engine.CmdBasicRecover{Channel: id, Requeue: m.Requeue}).Err
		c.ok(n, err, false, &amqp.BasicRecoverOk{})
	case *amqp.BasicRecoverAsync:
		e.Apply(engine.CmdBasicRecoverAsync{Channel: id, Requeue: m.Requeue})
	case *amqp.ConfirmSelect:
		err := e.ConfirmSelect(id)
		c.ok(n, err, m.NoWait, &amqp.ConfirmSelectOk{})
	case *amqp.TxSelect:
		c.ok(n, e.TxSelect(id), false, &amqp.TxSelectOk{})
	case *amqp.TxCommit:
		// tx.commit-ok goes out on the TxCommitted event, after the
		// last of a large commit's batches (engine/txcommit.go).
		e.TxCommit(id)
	case *amqp.TxRollback:
		c.ok(n, e.TxRollback(id), false, &amqp.TxRollbackOk{})
	default:
		// A method a client must not send (a server-side method such as
		// basic.deliver, or channel.close-ok on an open channel):
		// rabbit_channel's last handle_method clause.
		c.failConnection(e, engine.CommandInvalid, "COMMAND_INVALID - unimplemented method", methodOf(cmd.method))
	}
}

// ok queues a method's -ok reply unless it failed or the client asked for
// nowait.
func (c *conn) ok(n uint16, err error, nowait bool, reply amqp.Method) {
	if err == nil && !nowait {
		c.push(n, reply)
	}
}
