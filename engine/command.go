package engine

import "strconv"

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
// for, holding that method's arguments. The set is closed (the unexported
// method): Apply, the codec and the log know every kind.
//
// Adding a kind (for example a new mutating Broker method X):
//  1. Declare CmdX below with X's arguments as fields and a kind method
//     returning a new constant KindX: the next unused number, never reused
//     or renumbered, since logs already written hold the old numbers. Add
//     its name to commandNames.
//  2. Encode its fields in encoder.cmd (command_codec.go) and decode them
//     in decoder.cmd (command_decode.go), in the same order, with the
//     existing helpers.
//  3. Apply it in apply.go, and make X a one-line wrapper over Apply.
//  4. Give it a sample in command_test.go: the round-trip test fails for a
//     kind without one.
type Command interface {
	kind() CommandKind
}

// CommandKind is a command's tag in the binary encoding.
type CommandKind uint8

// The command kinds. The numbers are the encoding's: fixed forever.
const (
	KindOpenConnection            CommandKind = 1
	KindCloseConnection           CommandKind = 2
	KindForceCloseConnection      CommandKind = 3
	KindForceCloseUserConnections CommandKind = 4
	KindPauseConnection           CommandKind = 5
	KindOpenChannel               CommandKind = 6
	KindCloseChannel              CommandKind = 7
	KindChannelException          CommandKind = 8
	KindExchangeDeclare           CommandKind = 9
	KindExchangeDelete            CommandKind = 10
	KindExchangeBind              CommandKind = 11
	KindExchangeUnbind            CommandKind = 12
	KindQueueDeclare              CommandKind = 13
	KindQueueDelete               CommandKind = 14
	KindQueueBind                 CommandKind = 15
	KindQueueUnbind               CommandKind = 16
	KindQueuePurge                CommandKind = 17
	KindBasicQos                  CommandKind = 18
	KindBasicConsume              CommandKind = 19
	KindBasicCancel               CommandKind = 20
	KindBasicPublish              CommandKind = 21 // 22, 23: retired (command_retired.go)
	KindBasicGet                  CommandKind = 24
	KindBasicAck                  CommandKind = 25
	KindBasicNack                 CommandKind = 26
	KindBasicReject               CommandKind = 27
	KindBasicRecover              CommandKind = 28
	KindBasicRecoverAsync         CommandKind = 29
	KindConfirmSelect             CommandKind = 30
	KindTxSelect                  CommandKind = 31
	KindTxCommit                  CommandKind = 32
	KindTxRollback                CommandKind = 33
	KindSetPolicy                 CommandKind = 34
	KindClearPolicy               CommandKind = 35
	KindSetPermissions            CommandKind = 36
	KindAddVhost                  CommandKind = 37
	KindDeleteVhost               CommandKind = 38
	KindAdvanceTo                 CommandKind = 39
	KindSettle                    CommandKind = 40
	KindStep                      CommandKind = 41
	KindRestart                   CommandKind = 42
	KindPutUser                   CommandKind = 43
	KindDeleteUser                CommandKind = 44
	KindPutUserPermission         CommandKind = 45
	KindClearUserPermission       CommandKind = 46
	KindPutTopicPermission        CommandKind = 47
	KindClearTopicPermissions     CommandKind = 48
	KindSetLimits                 CommandKind = 49
)

// commandNames names the kinds, for errors and tests; its length bounds
// the kinds the decoder accepts.
var commandNames = [...]string{
	KindOpenConnection: "OpenConnection", KindCloseConnection: "CloseConnection",
	KindForceCloseConnection: "ForceCloseConnection", KindForceCloseUserConnections: "ForceCloseUserConnections",
	KindPauseConnection: "PauseConnection", KindOpenChannel: "OpenChannel", KindCloseChannel: "CloseChannel",
	KindChannelException: "ChannelException", KindExchangeDeclare: "ExchangeDeclare", KindExchangeDelete: "ExchangeDelete",
	KindExchangeBind: "ExchangeBind", KindExchangeUnbind: "ExchangeUnbind", KindQueueDeclare: "QueueDeclare",
	KindQueueDelete: "QueueDelete", KindQueueBind: "QueueBind", KindQueueUnbind: "QueueUnbind", KindQueuePurge: "QueuePurge",
	KindBasicQos: "BasicQos", KindBasicConsume: "BasicConsume", KindBasicCancel: "BasicCancel",
	KindBasicPublish: "BasicPublish", kindRetiredPublishTarget: "PublishTarget", kindRetiredPublishDirect: "PublishDirect",
	KindBasicGet: "BasicGet", KindBasicAck: "BasicAck", KindBasicNack: "BasicNack", KindBasicReject: "BasicReject",
	KindBasicRecover: "BasicRecover", KindBasicRecoverAsync: "BasicRecoverAsync", KindConfirmSelect: "ConfirmSelect",
	KindTxSelect: "TxSelect", KindTxCommit: "TxCommit", KindTxRollback: "TxRollback", KindSetPolicy: "SetPolicy",
	KindClearPolicy: "ClearPolicy", KindSetPermissions: "SetPermissions", KindAddVhost: "AddVhost",
	KindDeleteVhost: "DeleteVhost", KindAdvanceTo: "AdvanceTo", KindSettle: "Settle", KindStep: "Step",
	KindRestart: "Restart", KindPutUser: "PutUser", KindDeleteUser: "DeleteUser",
	KindPutUserPermission: "PutUserPermission", KindClearUserPermission: "ClearUserPermission",
	KindPutTopicPermission: "PutTopicPermission", KindClearTopicPermissions: "ClearTopicPermissions",
	KindSetLimits: "SetLimits",
}

func (k CommandKind) String() string {
	if int(k) < len(commandNames) && commandNames[k] != "" {
		return commandNames[k]
	}
	return "CommandKind(" + strconv.Itoa(int(k)) + ")"
}

// KindOf returns c's kind.
func KindOf(c Command) CommandKind { return c.kind() }

// CmdOpenConnection is OpenConnection.
type CmdOpenConnection struct{ Open ConnectionOpen }

// CmdCloseConnection is CloseConnection.
type CmdCloseConnection struct{ Conn ConnID }

// CmdForceCloseConnection is ForceCloseConnection.
type CmdForceCloseConnection struct {
	Conn   ConnID
	Reason string
}

// CmdForceCloseUserConnections is ForceCloseUserConnections.
type CmdForceCloseUserConnections struct{ User, Reason string }

// CmdPauseConnection is PauseConnection.
type CmdPauseConnection struct {
	Conn   ConnID
	Paused bool
}

// CmdOpenChannel is OpenChannel.
type CmdOpenChannel struct {
	Conn ConnID
	Num  uint16
}

// CmdCloseChannel is CloseChannel.
type CmdCloseChannel struct{ Channel ChannelID }

// CmdChannelException is ChannelException.
type CmdChannelException struct {
	Channel ChannelID
	Err     *Error
}

// CmdExchangeDeclare is ExchangeDeclare.
type CmdExchangeDeclare struct {
	Channel ChannelID
	Declare ExchangeDeclare
}

// CmdExchangeDelete is ExchangeDelete.
type CmdExchangeDelete struct {
	Channel ChannelID
	Delete  ExchangeDelete
}

// CmdExchangeBind is ExchangeBind.
type CmdExchangeBind struct {
	Channel ChannelID
	Bind    ExchangeBind
}

// CmdExchangeUnbind is ExchangeUnbind.
type CmdExchangeUnbind struct {
	Channel ChannelID
	Bind    ExchangeBind
}

// CmdQueueDeclare is QueueDeclare.
type CmdQueueDeclare struct {
	Channel ChannelID
	Declare QueueDeclare
}

// CmdQueueDelete is QueueDelete.
type CmdQueueDelete struct {
	Channel ChannelID
	Delete  QueueDelete
}

// CmdQueueBind is QueueBind.
type CmdQueueBind struct {
	Channel ChannelID
	Bind    QueueBind
}

// CmdQueueUnbind is QueueUnbind.
type CmdQueueUnbind struct {
	Channel ChannelID
	Bind    QueueBind
}

// CmdQueuePurge is QueuePurge.
type CmdQueuePurge struct {
	Channel ChannelID
	Queue   string
}

// CmdBasicQos is BasicQos.
type CmdBasicQos struct {
	Channel ChannelID
	Qos     BasicQos
}

// CmdBasicConsume is BasicConsume.
type CmdBasicConsume struct {
	Channel ChannelID
	Consume BasicConsume
}

// CmdBasicCancel is BasicCancel.
type CmdBasicCancel struct {
	Channel     ChannelID
	ConsumerTag string
}

// CmdBasicPublish is BasicPublish.
type CmdBasicPublish struct {
	Channel ChannelID
	Publish BasicPublish
}

// CmdBasicGet is BasicGet.
type CmdBasicGet struct {
	Channel ChannelID
	Get     BasicGet
}

// CmdBasicAck is BasicAck.
type CmdBasicAck struct {
	Channel     ChannelID
	DeliveryTag uint64
	Multiple    bool
}

// CmdBasicNack is BasicNack.
type CmdBasicNack struct {
	Channel     ChannelID
	DeliveryTag uint64
	Multiple    bool
	Requeue     bool
}

// CmdBasicReject is BasicReject.
type CmdBasicReject struct {
	Channel     ChannelID
	DeliveryTag uint64
	Requeue     bool
}

// CmdBasicRecover is BasicRecover.
type CmdBasicRecover struct {
	Channel ChannelID
	Requeue bool
}

// CmdBasicRecoverAsync is BasicRecoverAsync.
type CmdBasicRecoverAsync struct {
	Channel ChannelID
	Requeue bool
}

// CmdConfirmSelect is ConfirmSelect.
type CmdConfirmSelect struct{ Channel ChannelID }

// CmdTxSelect is TxSelect.
type CmdTxSelect struct{ Channel ChannelID }

// CmdTxCommit is TxCommit.
type CmdTxCommit struct{ Channel ChannelID }

// CmdTxRollback is TxRollback.
type CmdTxRollback struct{ Channel ChannelID }

// CmdSetPolicy is SetPolicy, or SetOperatorPolicy when Operator is set.
type CmdSetPolicy struct {
	Policy   Policy
	Operator bool
}

// CmdClearPolicy is ClearPolicy, or ClearOperatorPolicy when Operator is
// set.
type CmdClearPolicy struct {
	Vhost, Name string
	Operator    bool
}

// CmdSetPermissions is SetPermissions.
type CmdSetPermissions struct {
	User, Vhost string
	Perms       *Permissions
}

// CmdAddVhost is AddVhost.
type CmdAddVhost struct{ Name string }

// CmdDeleteVhost is DeleteVhost.
type CmdDeleteVhost struct{ Name string }

// CmdRestart is Restart: the node stopped (crashed) and came back at At.
type CmdRestart struct{ At Time }

// CmdPutUser is PutUser.
type CmdPutUser struct{ User User }

// CmdDeleteUser is DeleteUser.
type CmdDeleteUser struct{ Name string }

// CmdPutUserPermission is PutUserPermission.
type CmdPutUserPermission struct{ Permission UserPermission }

// CmdClearUserPermission is ClearUserPermission.
type CmdClearUserPermission struct{ User, Vhost string }

// CmdPutTopicPermission is PutTopicPermission.
type CmdPutTopicPermission struct{ Permission UserTopicPermission }

// CmdClearTopicPermissions is ClearTopicPermissions.
type CmdClearTopicPermissions struct{ User, Vhost, Exchange string }

// CmdSetLimits is SetLimits.
type CmdSetLimits struct{ Limits Limits }

// CmdAdvanceTo is AdvanceTo: time is an input like any other.
type CmdAdvanceTo struct{ Time Time }

// CmdSettle is Settle.
type CmdSettle struct{ Time Time }

// CmdStep is Step.
type CmdStep struct{}

func (CmdOpenConnection) kind() CommandKind            { return KindOpenConnection }
func (CmdCloseConnection) kind() CommandKind           { return KindCloseConnection }
func (CmdForceCloseConnection) kind() CommandKind      { return KindForceCloseConnection }
func (CmdForceCloseUserConnections) kind() CommandKind { return KindForceCloseUserConnections }
func (CmdPauseConnection) kind() CommandKind           { return KindPauseConnection }
func (CmdOpenChannel) kind() CommandKind               { return KindOpenChannel }
func (CmdCloseChannel) kind() CommandKind              { return KindCloseChannel }
func (CmdChannelException) kind() CommandKind          { return KindChannelException }
func (CmdExchangeDeclare) kind() CommandKind           { return KindExchangeDeclare }
func (CmdExchangeDelete) kind() CommandKind            { return KindExchangeDelete }
func (CmdExchangeBind) kind() CommandKind              { return KindExchangeBind }
func (CmdExchangeUnbind) kind() CommandKind            { return KindExchangeUnbind }
func (CmdQueueDeclare) kind() CommandKind              { return KindQueueDeclare }
func (CmdQueueDelete) kind() CommandKind               { return KindQueueDelete }
func (CmdQueueBind) kind() CommandKind                 { return KindQueueBind }
func (CmdQueueUnbind) kind() CommandKind               { return KindQueueUnbind }
func (CmdQueuePurge) kind() CommandKind                { return KindQueuePurge }
func (CmdBasicQos) kind() CommandKind                  { return KindBasicQos }
func (CmdBasicConsume) kind() CommandKind              { return KindBasicConsume }
func (CmdBasicCancel) kind() CommandKind               { return KindBasicCancel }
func (CmdBasicPublish) kind() CommandKind              { return KindBasicPublish }
func (CmdBasicGet) kind() CommandKind                  { return KindBasicGet }
func (CmdBasicAck) kind() CommandKind                  { return KindBasicAck }
func (CmdBasicNack) kind() CommandKind                 { return KindBasicNack }
func (CmdBasicReject) kind() CommandKind               { return KindBasicReject }
func (CmdBasicRecover) kind() CommandKind              { return KindBasicRecover }
func (CmdBasicRecoverAsync) kind() CommandKind         { return KindBasicRecoverAsync }
func (CmdConfirmSelect) kind() CommandKind             { return KindConfirmSelect }
func (CmdTxSelect) kind() CommandKind                  { return KindTxSelect }
func (CmdTxCommit) kind() CommandKind                  { return KindTxCommit }
func (CmdTxRollback) kind() CommandKind                { return KindTxRollback }
func (CmdSetPolicy) kind() CommandKind                 { return KindSetPolicy }
func (CmdClearPolicy) kind() CommandKind               { return KindClearPolicy }
func (CmdSetPermissions) kind() CommandKind            { return KindSetPermissions }
func (CmdAddVhost) kind() CommandKind                  { return KindAddVhost }
func (CmdDeleteVhost) kind() CommandKind               { return KindDeleteVhost }
func (CmdAdvanceTo) kind() CommandKind                 { return KindAdvanceTo }
func (CmdRestart) kind() CommandKind                   { return KindRestart }
func (CmdPutUser) kind() CommandKind                   { return KindPutUser }
func (CmdDeleteUser) kind() CommandKind                { return KindDeleteUser }
func (CmdPutUserPermission) kind() CommandKind         { return KindPutUserPermission }
func (CmdClearUserPermission) kind() CommandKind       { return KindClearUserPermission }
func (CmdPutTopicPermission) kind() CommandKind        { return KindPutTopicPermission }
func (CmdClearTopicPermissions) kind() CommandKind     { return KindClearTopicPermissions }
func (CmdSetLimits) kind() CommandKind                 { return KindSetLimits }
func (CmdSettle) kind() CommandKind                    { return KindSettle }
func (CmdStep) kind() CommandKind                      { return KindStep }
