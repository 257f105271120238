package engine

// Retired commands: kinds no driver produces any more, still decoded and
// applied as they were, so that a log written before they retired (a data
// directory's tail, a session's exported history) replays to the same
// broker. Their numbers stay theirs forever (command.go); they are not
// part of the engine's input, so their types are unexported. Like the
// Cmd structs, each is declared once, with its //engine:kind directive,
// and go generate writes its kind and its codec (command_gen.go).
//
// Kinds 22 and 23 retired when direct reply-to moved into the engine
// (replyto.go): the driver used to keep the reply consumers, run
// basic.publish's first checks with PublishTarget before its own, and
// hand a reply it had resolved to a channel and a consumer tag to
// PublishDirect. A log of that time holds no reply consumer (the driver
// kept them), so its replies must still go to the channel it names.

// retiredPublishTarget is kind 22: basic.publish's first checks (write
// permission, the exchange's existence, not internal), failing the
// channel as basic.publish would.
//
//engine:kind 22
type retiredPublishTarget struct {
	Channel  ChannelID
	Exchange string
}

// retiredPublishDirect is kind 23: a reply to channel To's consumer
// ConsumerTag, a zero To for an address the driver did not know.
//
//engine:kind 23
type retiredPublishDirect struct {
	From, To    ChannelID
	ConsumerTag string
	Publish     BasicPublish
}

// applyRetired applies a retired command as the engine did when it was
// current.
func (b *Broker) applyRetired(c Command) error {
	switch c := c.(type) {
	case retiredPublishTarget:
		ch, err := b.channelFor(c.Channel, MethodBasicPublish)
		if err != nil {
			return err
		}
		if _, e := ch.publishTarget(c.Exchange); e != nil {
			return b.fail(ch, e)
		}
	case retiredPublishDirect:
		p := c.Publish
		ch, err := b.channelFor(c.From, MethodBasicPublish)
		if err != nil {
			return err
		}
		if e := ch.conn.permitted(accessWrite, "exchange", p.Exchange, MethodBasicPublish); e != nil {
			return b.fail(ch, e)
		}
		msg, e := b.replyMessage(ch, &p)
		if e != nil {
			return b.fail(ch, e)
		}
		b.deliverReply(ch, c.To, c.ConsumerTag, msg, &p)
	}
	return nil
}
