package engine

import "strconv"

//go:generate go run warren/server/cmd/cmdgen

// Command is one input to the engine as a value: everything a script line,
// the management API or an AMQP connection does, and every move of the
// clock. Broker.Apply is the one entry point that applies it; the
// per-method API (BasicPublish, AdvanceTo, ..., in wrappers_gen.go)
// applies the command as Apply does: it does what Apply does before its
// switch (records it when recording), then makes the call Apply's case
// makes, both copied from apply.go by cmdgen (so the two cannot drift), or
// calls Apply where the case is more than one call. Because inputs are data, a
// broker's history is a log: replaying the commands a broker applied, in
// order, on a fresh broker with the same Config gives the same broker and
// the same events, natively and in wasm (raft's lesson: state machines
// that apply the same log reach the same state). That is what durability and replicas are built on.
//
// Each command is a small struct named Cmd + the Broker method it stands
// for, holding that method's arguments as named fields. The set is closed
// (the unexported method): Apply, the codec and the log know every kind.
//
// The Cmd structs are the one definition of a command, and its doc is the
// command's. go generate (server/cmd/cmdgen, reading these declarations
// with go/ast) writes command_gen.go from them: the kind constants
// (unexported: a command is known by its Cmd type, its number is the
// records' business) and their names, the kind methods, and each
// command's case in the record encoder and decoder. Generated rather than
// kept as a table checked by a test, because the codec is the part that
// must never drift from the fields (a field added to a struct and
// forgotten in the encoder would vanish from every log); the generator
// derives it, and refuses a field type it has no codec for.
//
// It writes wrappers_gen.go too: the per-method API (QueueDeclare,
// BasicPublish, ...). A struct whose doc carries //engine:returns
// <Result fields> gets a Broker method that takes the struct's fields as
// parameters, in order, applies the command and returns those fields of
// Result; //engine:wrapper <Method> <Field>=<value> names a method that
// fixes a field instead (CmdSetPolicy is SetPolicy and
// SetOperatorPolicy). The method's doc is the struct's first sentence
// and a pointer to it, so the AMQP semantics are written once, on the
// struct. No wrapper is written by hand: cmdgen's
// TestWrappersAreComplete fails on a Broker method that builds a command
// with a generated wrapper. The commands whose wrappers took booleans by
// position (basic.ack, nack, reject, recover, recover-async;
// PauseConnection) have none, and the test lists them: callers name the
// fields, as in Apply(CmdBasicNack{Channel: ch, DeliveryTag: tag,
// Requeue: true}).
//
// Adding a kind (for example a new mutating Broker method X):
//  1. Declare CmdX below with X's arguments as fields, its doc saying what
//     X does (starting "CmdX ..."), and end the doc with the directive
//     //engine:kind N: the next unused number, never reused or
//     renumbered, since logs already written hold the old numbers. Add X
//     and N to recordedKinds (command_kinds_test.go), which pins them.
//     For a method b.X, add //engine:returns with the Result fields it
//     returns (none: the directive alone), adding a field to Result if X
//     returns something new.
//  2. Run go generate ./engine. A field of a type the generator has no
//     codec for stops it: add the type to cmdgen's table.
//  3. Apply it in apply.go (TestApplyKnowsEveryKind fails until you do),
//     setting the Result fields the directive names.
//  4. Give it a sample in command_test.go: the round-trip test fails for a
//     kind without one. Append it, and rewrite the golden records
//     (go test -run BytesArePinned -rewrite-golden): only the new line may
//     change.
//
// Retiring a kind: rename CmdX to retiredX and move it, directive and all,
// to command_retired.go, which applies it as it was applied; its number
// and its codec stay, since old logs hold it.
//
// A pointer to a command is a Command too, and Apply applies it as the
// command it points to (apply.go): a driver that reuses its commands'
// storage so hands them over without an allocation each.
type Command interface {
	kind() CommandKind
}

// CommandKind is a command's tag in the binary encoding; its String is
// the command's name (KindOf(CmdBasicAck{}).String() is "BasicAck").
type CommandKind uint8

func (k CommandKind) String() string {
	if int(k) < len(commandNames) && commandNames[k] != "" {
		return commandNames[k]
	}
	return "CommandKind(" + strconv.Itoa(int(k)) + ")"
}

// KindOf returns c's kind.
func KindOf(c Command) CommandKind { return c.kind() }

// CmdOpenConnection opens a connection to a vhost. An unknown vhost is
// the 530 NOT_ALLOWED connection error RabbitMQ sends in reply to
// connection.open.
//
//engine:kind 1
//engine:returns Conn, Err
type CmdOpenConnection struct{ Open ConnectionOpen }

// CmdCloseConnection closes a connection as a client's connection.close
// or a dropped socket does: every channel closes (requeueing its unacked
// messages) and its exclusive queues are deleted.
//
//engine:kind 2
//engine:returns
type CmdCloseConnection struct{ Conn ConnID }

// CmdForceCloseConnection closes a connection from the server side, as
// the management API's DELETE /api/connections/{name} does: the client is
// told 320 CONNECTION_FORCED with Reason, then everything closes as for
// CloseConnection.
//
//engine:kind 3
//engine:returns
type CmdForceCloseConnection struct {
	Conn   ConnID
	Reason string
}

// CmdForceCloseUserConnections force-closes every connection of User, in
// the order they were opened, as RabbitMQ does when the user is deleted
// (observed, RabbitMQ 3.10.8: 320 "CONNECTION_FORCED - user 'app' is
// deleted"). It reports how many it closed.
//
//engine:kind 4
//engine:returns Count
type CmdForceCloseUserConnections struct{ User, Reason string }

// CmdPauseConnection stops (Paused) or resumes deliveries to a
// connection's consumers. It is the engine's side of back-pressure: a
// driver whose socket writer falls behind pauses the connection rather than
// buffer without bound, as RabbitMQ's credit flow holds back its queues.
// Messages wait ready in their queues meanwhile; basic.get still works.
//
//engine:kind 5
type CmdPauseConnection struct {
	Conn   ConnID
	Paused bool
}

// CmdOpenChannel opens channel number Num on a connection. Reopening an
// open channel is RabbitMQ's 504 CHANNEL_ERROR connection exception.
//
//engine:kind 6
//engine:returns Channel, Err
type CmdOpenChannel struct {
	Conn ConnID
	Num  uint16
}

// CmdCloseChannel closes a channel as the client's channel.close does.
//
//engine:kind 7
//engine:returns
type CmdCloseChannel struct{ Channel ChannelID }

// CmdChannelException closes a channel for a protocol-level reason the
// driver found (a message over the size limit, a malformed content
// header): the same as a channel exception raised by a command, so unacked
// messages are requeued and ChannelClosed carries Err's code, text and
// method.
//
//engine:kind 8
//engine:returns
type CmdChannelException struct {
	Channel ChannelID
	Err     *Error
}

// CmdExchangeDeclare declares (or with Passive checks) an exchange. It
// follows rabbit_channel's order of checks: type (503), default exchange
// (403), configure permission (403), reserved amq. prefix for new
// exchanges (403), then equivalence (406). A passive declare checks only
// that the exchange exists (404), needing no permission.
//
//engine:kind 9
//engine:returns Err
type CmdExchangeDeclare struct {
	Channel ChannelID
	Declare ExchangeDeclare
}

// CmdExchangeDelete deletes an exchange and every binding to or from it.
// Deleting a missing exchange succeeds, as in RabbitMQ.
//
//engine:kind 10
//engine:returns Err
type CmdExchangeDelete struct {
	Channel ChannelID
	Delete  ExchangeDelete
}

// CmdExchangeBind binds an exchange to an exchange.
//
//engine:kind 11
//engine:returns Err
type CmdExchangeBind struct {
	Channel ChannelID
	Bind    ExchangeBind
}

// CmdExchangeUnbind removes an exchange-to-exchange binding.
//
//engine:kind 12
//engine:returns Err
type CmdExchangeUnbind struct {
	Channel ChannelID
	Bind    ExchangeBind
}

// CmdQueueDeclare declares (or with Passive checks) a queue.
//
//engine:kind 13
//engine:returns Declared, Err
type CmdQueueDeclare struct {
	Channel ChannelID
	Declare QueueDeclare
}

// CmdQueueDelete deletes a queue and returns how many ready messages it
// held. Deleting a queue that does not exist succeeds with 0, as in
// RabbitMQ.
//
//engine:kind 14
//engine:returns Count, Err
type CmdQueueDelete struct {
	Channel ChannelID
	Delete  QueueDelete
}

// CmdQueueBind binds a queue to an exchange.
//
//engine:kind 15
//engine:returns Err
type CmdQueueBind struct {
	Channel ChannelID
	Bind    QueueBind
}

// CmdQueueUnbind removes a binding; removing a missing binding succeeds.
//
//engine:kind 16
//engine:returns Err
type CmdQueueUnbind struct {
	Channel ChannelID
	Bind    QueueBind
}

// CmdQueuePurge removes every ready message (unacked ones stay) and
// returns how many were removed.
//
//engine:kind 17
//engine:returns Count, Err
type CmdQueuePurge struct {
	Channel ChannelID
	Queue   string
}

// CmdBasicQos applies basic.qos. RabbitMQ does not implement
// prefetch-size: a non-zero value is refused with 540 NOT_IMPLEMENTED.
//
//engine:kind 18
//engine:returns Err
type CmdBasicQos struct {
	Channel ChannelID
	Qos     BasicQos
}

// CmdBasicConsume starts a consumer and returns its tag (server-generated
// amq.ctag-… when empty).
//
//engine:kind 19
//engine:returns ConsumerTag, Err
type CmdBasicConsume struct {
	Channel ChannelID
	Consume BasicConsume
}

// CmdBasicCancel cancels a consumer. Unacked messages it received stay
// unacked on the channel. Cancelling an unknown tag is not an error.
//
//engine:kind 20
//engine:returns Err
type CmdBasicCancel struct {
	Channel     ChannelID
	ConsumerTag string
}

// CmdBasicPublish publishes a message. With confirms on, a Confirmed or
// Nacked event follows (after any Returned event for the same message);
// in a transaction the message waits for TxCommit.
//
//engine:kind 21
//engine:returns Err
type CmdBasicPublish struct {
	Channel ChannelID
	Publish BasicPublish
}

// CmdBasicGet fetches one message synchronously. Result.Got (the
// wrapper's bool) is false for basic.get-empty; otherwise Result.Get is
// the basic.get-ok. It renews the queue's x-expires lease.
//
//engine:kind 24
//engine:returns Get, Got, Err
type CmdBasicGet struct {
	Channel ChannelID
	Get     BasicGet
}

// CmdBasicAck is basic.ack: it acknowledges one delivery, or with
// Multiple every delivery up to and including DeliveryTag (0 meaning all).
//
//engine:kind 25
type CmdBasicAck struct {
	Channel     ChannelID
	DeliveryTag uint64
	Multiple    bool
}

// CmdBasicNack is basic.nack: it rejects one or (with Multiple) several
// deliveries; Requeue puts them back in their queues, otherwise they are
// dead-lettered or dropped.
//
//engine:kind 26
type CmdBasicNack struct {
	Channel     ChannelID
	DeliveryTag uint64
	Multiple    bool
	Requeue     bool
}

// CmdBasicReject is basic.reject: a basic.nack of one delivery.
//
//engine:kind 27
type CmdBasicReject struct {
	Channel     ChannelID
	DeliveryTag uint64
	Requeue     bool
}

// CmdBasicRecover is basic.recover: it redelivers every unacked message
// of the channel. RabbitMQ supports only requeue=true semantics: the
// messages are requeued and may go to any consumer; Requeue false is
// refused with the connection exception 540 "NOT_IMPLEMENTED -
// requeue=false" (rabbit_channel).
//
//engine:kind 28
type CmdBasicRecover struct {
	Channel ChannelID
	Requeue bool
}

// CmdBasicRecoverAsync is basic.recover-async, the deprecated form of
// basic.recover without a reply; it behaves the same.
//
//engine:kind 29
type CmdBasicRecoverAsync struct {
	Channel ChannelID
	Requeue bool
}

// CmdConfirmSelect puts the channel in confirm mode.
//
//engine:kind 30
//engine:returns Err
type CmdConfirmSelect struct{ Channel ChannelID }

// CmdTxSelect puts the channel in transactional mode.
//
//engine:kind 31
//engine:returns Err
type CmdTxSelect struct{ Channel ChannelID }

// CmdTxCommit applies the buffered publishes and acknowledgements, in
// order: the first batch now, the rest in later calls (txcommit.go). Its
// TxCommitted event, after the last of them, is tx.commit-ok.
//
//engine:kind 32
//engine:returns Err
type CmdTxCommit struct{ Channel ChannelID }

// CmdTxRollback discards buffered publishes and returns buffered
// acknowledgements' deliveries to the unacked list.
//
//engine:kind 33
//engine:returns Err
type CmdTxRollback struct{ Channel ChannelID }

// CmdSetPolicy creates or replaces a policy, or with Operator an operator
// policy (SetPolicy, SetOperatorPolicy). A policy takes effect on existing
// queues and exchanges at once; an operator policy's numeric limits cap
// those of user policies and queue arguments.
//
//engine:kind 34
//engine:returns Err
//engine:wrapper SetPolicy Operator=false
//engine:wrapper SetOperatorPolicy Operator=true
type CmdSetPolicy struct {
	Policy   Policy
	Operator bool
}

// CmdClearPolicy removes a policy, or with Operator an operator policy
// (ClearPolicy, ClearOperatorPolicy).
//
//engine:kind 35
//engine:returns Err
//engine:wrapper ClearPolicy Operator=false
//engine:wrapper ClearOperatorPolicy Operator=true
type CmdClearPolicy struct {
	Vhost, Name string
	Operator    bool
}

// CmdSetPermissions replaces the permissions that User's open connections
// to Vhost are checked against, as when an administrator changes them:
// RabbitMQ checks each operation against the user's current permissions
// (observed, RabbitMQ 3.10.8: after clear_permissions an open channel's
// next queue.declare is 403). Each channel's cached publish check is
// dropped, so a revoked write permission applies to the next publish. A
// connection opened unrestricted (nil permissions) stays so.
//
//engine:kind 36
//engine:returns
type CmdSetPermissions struct {
	User, Vhost string
	Perms       *Permissions
}

// CmdAddVhost creates a vhost; adding an existing one is a no-op, as in
// rabbitmqctl add_vhost (observed on 3.10.8: exit status 0, no change).
//
//engine:kind 37
//engine:returns Err
type CmdAddVhost struct{ Name string }

// CmdDeleteVhost deletes a vhost and everything in it, the users'
// permissions in it included, closing its connections with 320
// CONNECTION_FORCED as RabbitMQ does. The vhost is gone at once; its
// queues and delayed messages go a batch per call (queuewalk.go).
//
//engine:kind 38
//engine:returns Err
type CmdDeleteVhost struct{ Name string }

// CmdRestart stops the broker as a crash does and starts it again at time
// At (no earlier than Now): afterwards it holds what a RabbitMQ node holds
// after a restart (see restart.go's file comment). Timers that fell due
// while it was down fire in the next AdvanceTo, with the clock at the
// start, as RabbitMQ finds them due when it boots.
//
//engine:kind 42
//engine:returns
type CmdRestart struct{ At Time }

// CmdPutUser creates a user, or replaces the record of an existing one
// keeping their permissions, as the management API's PUT
// /api/users/{name} and a definitions import do. The name must be a
// non-empty AMQP short string: a publisher's user-id property, a short
// string, has to be able to equal it. If the change gives or takes away
// the impersonator tag, the user's open connections are checked against
// the new tags from their next operation on.
//
//engine:kind 43
//engine:returns Err
type CmdPutUser struct{ User User }

// CmdDeleteUser deletes a user with all their permissions and topic
// permissions, as rabbitmqctl delete_user does. The user's open
// connections are the driver's to close (ForceCloseUserConnections):
// RabbitMQ closes them, with a reason the driver words.
//
//engine:kind 44
//engine:returns Err
type CmdDeleteUser struct{ Name string }

// CmdPutUserPermission sets a user's permissions in a vhost, replacing
// any they had there; the user must exist and the expressions must
// compile. The vhost need not exist yet (a users file loaded at start may
// name one a later definitions import creates); deleting a vhost deletes
// the permissions in it. The user's open connections to the vhost are
// checked against the new permissions from their next operation on, as
// RabbitMQ checks each operation against the user's current permissions.
//
//engine:kind 45
//engine:returns Err
type CmdPutUserPermission struct{ Permission UserPermission }

// CmdClearUserPermission removes a user's permissions in a vhost, as
// rabbitmqctl clear_permissions does; it is NOT_FOUND when there are none.
//
//engine:kind 46
//engine:returns Err
type CmdClearUserPermission struct{ User, Vhost string }

// CmdPutTopicPermission sets a user's topic permission on an exchange in
// a vhost, replacing any on that exchange; the user must exist and both
// expressions must compile. As for PutUserPermission, the vhost need not
// exist, and the user's open connections to it take the change up at
// once.
//
//engine:kind 47
//engine:returns Err
type CmdPutTopicPermission struct{ Permission UserTopicPermission }

// CmdClearTopicPermissions removes a user's topic permissions in a vhost:
// the one on Exchange, or with Exchange "" all of them, as rabbitmqctl
// clear_topic_permissions does. It is NOT_FOUND when the user has none in
// the vhost; clearing an exchange without one, when the user has others
// there, succeeds and changes nothing.
//
//engine:kind 48
//engine:returns Err
type CmdClearTopicPermissions struct{ User, Vhost, Exchange string }

// CmdSetLimits changes the limits from the next command on; what is
// already held past a lowered limit stays (RabbitMQ's vhost limits, too,
// refuse only new queues and messages).
//
//engine:kind 49
//engine:returns
type CmdSetLimits struct{ Limits Limits }

// CmdAdvanceTo moves virtual time forward to Time, firing every due timer
// in (deadline, arming order) order; each fires with the clock at its own
// deadline. Time is an input like any other, and never moves backwards:
// an earlier Time only fires what is due now.
//
// A timer armed already due is a continuation: a queue with more to
// deliver or expire than one call does (backlog.go). When the next timer
// is a continuation this call armed, AdvanceTo returns, leaving it armed
// and the clock where it is, short of Time: NextDeadline then reports a
// deadline no later than Now, and the driver calls AdvanceTo again, after
// serving other commands if it has any. Settle does that until nothing is
// due. A Time past MaxTime moves the clock to MaxTime: time never wraps.
//
//engine:kind 39
//engine:returns
type CmdAdvanceTo struct{ Time Time }

// CmdSettle moves the clock to Time as AdvanceTo does, repeated until
// nothing is due by then, continuations included: it all completes in
// this one call, as if there were no batches. Drivers that
// step time by hand use it after every command (Settle(Now())) and to
// move time, so that a command's effects are whole when the next line
// runs: the script runner, and through it the playground, the lessons and
// the console. The server's broker (server/broker) does not: it calls
// AdvanceTo, letting go of its lock between calls, so that a backlog never
// holds up other connections.
//
//engine:kind 40
//engine:returns
type CmdSettle struct{ Time Time }

// CmdStep advances to the next deadline, if any, and reports the time it
// moved to and whether a deadline fired.
//
//engine:kind 41
//engine:returns Time, Fired
type CmdStep struct{}
