package engine

// The durable log's records (durable.go): context-free changes of what a
// restart keeps, which the engine writes while durable logging is on
// (EnableDurableLog) and applies to a broker being recovered
// (BeginDurableReplay). They are commands like any other, so that the
// codec, the log and the generator are the ones every command has, but
// no driver makes them: each names its queue by vhost and name and its
// message copy by the queue's arrival number (entry.seq), never a channel
// that a restart forgets, so they replay on a broker that has none.
//
// An Entry is one message copy as a snapshot writes it (saver.entry):
// the message with its properties, body and death history, the binding
// that routed it, its arrival number and time, expiry, delivery count
// and priority.

// CmdDurablePut puts a kept message copy into the ready messages of
// queue Queue in Vhost: Return 0 at the back of its priority level, 1 among
// the returned copies by Key (a classic queue's requeue: Key is the
// arrival number), 2 among them by Key after every earlier return (a
// quorum queue's). A copy with the same arrival number that was held by a
// channel (CmdDurableHold) is no longer.
//
//engine:kind 50
type CmdDurablePut struct {
	Vhost, Queue string
	Return       int
	Key          uint64
	Entry        []byte
}

// CmdDurableTake takes the ready copy with arrival number Seq out of the
// queue: it was delivered, fetched, expired, dropped, purged or
// dead-lettered. A CmdDurableHold of the same copy may follow.
//
//engine:kind 51
type CmdDurableTake struct {
	Vhost, Queue string
	Seq          uint64
}

// CmdDurableHold records that the copy with arrival number Seq is held
// unacknowledged by a channel, as delivery Tag on Channel: a restart puts
// it back as that channel's closing would, in channel and tag order.
// Entry is empty when the copy is the one CmdDurableTake just took;
// otherwise (a copy handed to a consumer as it arrived) it is the copy.
//
//engine:kind 52
type CmdDurableHold struct {
	Vhost, Queue string
	Seq          uint64
	Channel      ChannelID
	Tag          uint64
	Entry        []byte
}

// CmdDurableDone ends a held copy: acknowledged, or rejected or returned
// past its delivery limit and dead-lettered, or its queue gone.
//
//engine:kind 53
type CmdDurableDone struct {
	Vhost, Queue string
	Seq          uint64
}

// CmdDurableClock moves the clock of a broker being recovered to Time
// without firing anything: the time of the durable changes that follow.
//
//engine:kind 54
type CmdDurableClock struct{ Time Time }

// CmdDurableQueue declares durable queue Name in Vhost, as a client's
// queue.declare did, unless it exists.
//
//engine:kind 55
type CmdDurableQueue struct {
	Vhost, Name string
	AutoDelete  bool
	Args        Table
	Quorum      bool
}

// CmdDurableQueueGone removes durable queue Name with its ready messages
// and the bindings to it, as its deletion did; what the deletion did
// besides (dead letters, exchanges auto-deleted) has records of its own.
//
//engine:kind 56
type CmdDurableQueueGone struct{ Vhost, Name string }

// CmdDurableExchange declares durable exchange Name in Vhost, routing as
// Route (Type's, or a delayed-message exchange's x-delayed-type), unless
// it exists.
//
//engine:kind 57
type CmdDurableExchange struct {
	Vhost, Name, Type, Route string
	AutoDelete, Internal     bool
	Args                     Table
}

// CmdDurableExchangeGone removes durable exchange Name and the bindings
// from and to it, as its deletion did.
//
//engine:kind 58
type CmdDurableExchangeGone struct{ Vhost, Name string }

// CmdDurableBind binds durable exchange Source to the durable queue (or
// with ToExchange the exchange) Destination, unless that binding exists.
//
//engine:kind 59
type CmdDurableBind struct {
	Vhost, Source, Destination string
	ToExchange                 bool
	Key                        string
	Args                       Table
}

// CmdDurableUnbind removes the binding CmdDurableBind made, if it is
// there.
//
//engine:kind 60
type CmdDurableUnbind struct {
	Vhost, Source, Destination string
	ToExchange                 bool
	Key                        string
	Args                       Table
}

// CmdDurableBuffer records that a held copy's acknowledgement is buffered
// in its channel's transaction (Buffered), or back to plain unacked by a
// rollback: a restart brings a channel's buffered copies back after its
// other ones, in the order they were buffered.
//
//engine:kind 61
type CmdDurableBuffer struct {
	Vhost, Queue string
	Seq          uint64
	Buffered     bool
}

// CmdDurableDelay holds a message in delayed-message exchange Exchange
// until At, as a publish to it did (every one survives a restart, the
// exchange durable or not). The exchange's definition comes with it: a
// transient one is gone from a recovered broker, and the message is
// routed by the exchange record it was held with.
//
//engine:kind 62
type CmdDurableDelay struct {
	Vhost, Exchange, Type, Route  string
	Durable, AutoDelete, Internal bool
	Args                          Table
	Delay                         int64
	Entry                         []byte
}

// CmdDurableRelease takes the delayed message ID out of Exchange: its
// delay ran out, and it was routed (its copies have records of their
// own).
//
//engine:kind 63
type CmdDurableRelease struct {
	Vhost, Exchange string
	ID              uint64
}

// CmdDurablePolicy sets Policy in its vhost, an operator policy with
// Operator, or with Clear removes the one of its vhost and name, as a
// policy's set or clear did, and does nothing else: no queue takes it up
// (each durable queue's CmdDurableRetime says when it did), and what it
// did to messages (expired, dropped, dead-lettered) has records of its
// own.
//
//engine:kind 64
type CmdDurablePolicy struct {
	Policy          Policy
	Operator, Clear bool
}

// CmdDurableRetime makes durable queue Queue in Vhost take up its vhost's
// policies as they are, as a policy change did when it reached the queue:
// its settings are resolved again and its ready copies re-timed by the
// message TTL they give. What expired or was dropped by the new settings
// follows as CmdDurableTake records (and what expired by the old ones,
// before it).
//
//engine:kind 65
type CmdDurableRetime struct{ Vhost, Queue string }

// CmdDurableVhostGone deletes vhost Name with everything in it, as its
// deletion did: queues with their ready and held copies, exchanges with
// the messages a delayed-message exchange holds, bindings, policies,
// limits and the permissions there. Nothing else changes (a vhost's
// deletion dead-letters nothing), and nothing of the vhost's deletion
// that follows has a record.
//
//engine:kind 66
type CmdDurableVhostGone struct{ Name string }
