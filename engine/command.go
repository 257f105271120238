package engine

import "strconv"

//go:generate go run ./internal/cmdgen

// Command is one input to the engine as a value: everything a script line,
// the management API or an AMQP connection does, and every move of the
// clock. Broker.Apply is the one entry point that applies it; the
// per-method API (BasicPublish, AdvanceTo, ...) builds the command and
// calls Apply. Because inputs are data, a broker's history is a log:
// replaying the commands a broker applied, in order, on a fresh broker
// with the same Config gives the same broker and the same events, natively
// and in wasm (raft's lesson: state machines that apply the same log reach
// the same state). That is what durability and replicas are built on.
//
// Each command is a small struct named Cmd + the Broker method it stands
// for, holding that method's arguments as named fields. The set is closed
// (the unexported method): Apply, the codec and the log know every kind.
//
// The Cmd structs are the one definition of a command. go generate
// (internal/cmdgen, reading these declarations with go/ast) writes
// command_gen.go from them: the kind constants (unexported: a command is
// known by its Cmd type, its number is the records' business) and their
// names, the kind methods, and each command's case in the record encoder
// and decoder. Generated rather than kept as a table checked by a test, because the
// codec is the part that must never drift from the fields (a field added
// to a struct and forgotten in the encoder would vanish from every log);
// the generator derives it, and refuses a field type it has no codec for.
// The per-method wrappers (BasicPublish, QueueDeclare, ...) are not
// generated: each returns its own part of Result and carries the AMQP
// semantics in its doc, and a new command needs none, since Apply is the
// API. The commands whose wrappers took booleans by position (basic.ack,
// nack, reject, recover, recover-async; PauseConnection) have none:
// callers name the fields, as in
// Apply(CmdBasicNack{Channel: ch, DeliveryTag: tag, Requeue: true}).
//
// Adding a kind (for example a new mutating Broker method X):
//  1. Declare CmdX below with X's arguments as fields, ending its doc with
//     the directive //engine:kind N: the next unused number, never reused
//     or renumbered, since logs already written hold the old numbers. Add
//     X and N to recordedKinds (command_kinds_test.go), which pins them.
//  2. Run go generate ./engine. A field of a type the generator has no
//     codec for stops it: add the type to cmdgen's table.
//  3. Apply it in apply.go (TestApplyKnowsEveryKind fails until you do).
//  4. Give it a sample in command_test.go: the round-trip test fails for a
//     kind without one. Append it, and rewrite the golden records
//     (go test -run BytesArePinned -rewrite-golden): only the new line may
//     change.
//
// Retiring a kind: rename CmdX to retiredX and move it, directive and all,
// to command_retired.go, which applies it as it was applied; its number
// and its codec stay, since old logs hold it.
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

// CmdOpenConnection is OpenConnection.
//
//engine:kind 1
type CmdOpenConnection struct{ Open ConnectionOpen }

// CmdCloseConnection is CloseConnection.
//
//engine:kind 2
type CmdCloseConnection struct{ Conn ConnID }

// CmdForceCloseConnection is ForceCloseConnection.
//
//engine:kind 3
type CmdForceCloseConnection struct {
	Conn   ConnID
	Reason string
}

// CmdForceCloseUserConnections is ForceCloseUserConnections.
//
//engine:kind 4
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

// CmdOpenChannel is OpenChannel.
//
//engine:kind 6
type CmdOpenChannel struct {
	Conn ConnID
	Num  uint16
}

// CmdCloseChannel is CloseChannel.
//
//engine:kind 7
type CmdCloseChannel struct{ Channel ChannelID }

// CmdChannelException is ChannelException.
//
//engine:kind 8
type CmdChannelException struct {
	Channel ChannelID
	Err     *Error
}

// CmdExchangeDeclare is ExchangeDeclare.
//
//engine:kind 9
type CmdExchangeDeclare struct {
	Channel ChannelID
	Declare ExchangeDeclare
}

// CmdExchangeDelete is ExchangeDelete.
//
//engine:kind 10
type CmdExchangeDelete struct {
	Channel ChannelID
	Delete  ExchangeDelete
}

// CmdExchangeBind is ExchangeBind.
//
//engine:kind 11
type CmdExchangeBind struct {
	Channel ChannelID
	Bind    ExchangeBind
}

// CmdExchangeUnbind is ExchangeUnbind.
//
//engine:kind 12
type CmdExchangeUnbind struct {
	Channel ChannelID
	Bind    ExchangeBind
}

// CmdQueueDeclare is QueueDeclare.
//
//engine:kind 13
type CmdQueueDeclare struct {
	Channel ChannelID
	Declare QueueDeclare
}

// CmdQueueDelete is QueueDelete.
//
//engine:kind 14
type CmdQueueDelete struct {
	Channel ChannelID
	Delete  QueueDelete
}

// CmdQueueBind is QueueBind.
//
//engine:kind 15
type CmdQueueBind struct {
	Channel ChannelID
	Bind    QueueBind
}

// CmdQueueUnbind is QueueUnbind.
//
//engine:kind 16
type CmdQueueUnbind struct {
	Channel ChannelID
	Bind    QueueBind
}

// CmdQueuePurge is QueuePurge.
//
//engine:kind 17
type CmdQueuePurge struct {
	Channel ChannelID
	Queue   string
}

// CmdBasicQos is BasicQos.
//
//engine:kind 18
type CmdBasicQos struct {
	Channel ChannelID
	Qos     BasicQos
}

// CmdBasicConsume is BasicConsume.
//
//engine:kind 19
type CmdBasicConsume struct {
	Channel ChannelID
	Consume BasicConsume
}

// CmdBasicCancel is BasicCancel.
//
//engine:kind 20
type CmdBasicCancel struct {
	Channel     ChannelID
	ConsumerTag string
}

// CmdBasicPublish is BasicPublish.
//
//engine:kind 21
type CmdBasicPublish struct {
	Channel ChannelID
	Publish BasicPublish
}

// CmdBasicGet is BasicGet.
//
//engine:kind 24
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

// CmdConfirmSelect is ConfirmSelect.
//
//engine:kind 30
type CmdConfirmSelect struct{ Channel ChannelID }

// CmdTxSelect is TxSelect.
//
//engine:kind 31
type CmdTxSelect struct{ Channel ChannelID }

// CmdTxCommit is TxCommit.
//
//engine:kind 32
type CmdTxCommit struct{ Channel ChannelID }

// CmdTxRollback is TxRollback.
//
//engine:kind 33
type CmdTxRollback struct{ Channel ChannelID }

// CmdSetPolicy is SetPolicy, or SetOperatorPolicy when Operator is set.
//
//engine:kind 34
type CmdSetPolicy struct {
	Policy   Policy
	Operator bool
}

// CmdClearPolicy is ClearPolicy, or ClearOperatorPolicy when Operator is
// set.
//
//engine:kind 35
type CmdClearPolicy struct {
	Vhost, Name string
	Operator    bool
}

// CmdSetPermissions is SetPermissions.
//
//engine:kind 36
type CmdSetPermissions struct {
	User, Vhost string
	Perms       *Permissions
}

// CmdAddVhost is AddVhost.
//
//engine:kind 37
type CmdAddVhost struct{ Name string }

// CmdDeleteVhost is DeleteVhost.
//
//engine:kind 38
type CmdDeleteVhost struct{ Name string }

// CmdRestart is Restart: the node stopped (crashed) and came back at At.
//
//engine:kind 42
type CmdRestart struct{ At Time }

// CmdPutUser is PutUser.
//
//engine:kind 43
type CmdPutUser struct{ User User }

// CmdDeleteUser is DeleteUser.
//
//engine:kind 44
type CmdDeleteUser struct{ Name string }

// CmdPutUserPermission is PutUserPermission.
//
//engine:kind 45
type CmdPutUserPermission struct{ Permission UserPermission }

// CmdClearUserPermission is ClearUserPermission.
//
//engine:kind 46
type CmdClearUserPermission struct{ User, Vhost string }

// CmdPutTopicPermission is PutTopicPermission.
//
//engine:kind 47
type CmdPutTopicPermission struct{ Permission UserTopicPermission }

// CmdClearTopicPermissions is ClearTopicPermissions.
//
//engine:kind 48
type CmdClearTopicPermissions struct{ User, Vhost, Exchange string }

// CmdSetLimits is SetLimits.
//
//engine:kind 49
type CmdSetLimits struct{ Limits Limits }

// CmdAdvanceTo is AdvanceTo: time is an input like any other.
//
//engine:kind 39
type CmdAdvanceTo struct{ Time Time }

// CmdSettle is Settle.
//
//engine:kind 40
type CmdSettle struct{ Time Time }

// CmdStep is Step.
//
//engine:kind 41
type CmdStep struct{}
