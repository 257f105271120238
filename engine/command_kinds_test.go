package engine

import (
	"strings"
	"testing"
)

// recordedKinds are the command kinds' numbers as logs on disk hold them.
// They are written here by hand, apart from the //engine:kind directives
// that command_gen.go is generated from, so that renumbering a kind fails
// this test: a kind may be added (with a new number), never renumbered,
// and a removed kind's number is never used again.
var recordedKinds = map[string]CommandKind{
	"OpenConnection":            1,
	"CloseConnection":           2,
	"ForceCloseConnection":      3,
	"ForceCloseUserConnections": 4,
	"PauseConnection":           5,
	"OpenChannel":               6,
	"CloseChannel":              7,
	"ChannelException":          8,
	"ExchangeDeclare":           9,
	"ExchangeDelete":            10,
	"ExchangeBind":              11,
	"ExchangeUnbind":            12,
	"QueueDeclare":              13,
	"QueueDelete":               14,
	"QueueBind":                 15,
	"QueueUnbind":               16,
	"QueuePurge":                17,
	"BasicQos":                  18,
	"BasicConsume":              19,
	"BasicCancel":               20,
	"BasicPublish":              21,
	"PublishTarget":             22,
	"PublishDirect":             23,
	"BasicGet":                  24,
	"BasicAck":                  25,
	"BasicNack":                 26,
	"BasicReject":               27,
	"BasicRecover":              28,
	"BasicRecoverAsync":         29,
	"ConfirmSelect":             30,
	"TxSelect":                  31,
	"TxCommit":                  32,
	"TxRollback":                33,
	"SetPolicy":                 34,
	"ClearPolicy":               35,
	"SetPermissions":            36,
	"AddVhost":                  37,
	"DeleteVhost":               38,
	"AdvanceTo":                 39,
	"Settle":                    40,
	"Step":                      41,
	"Restart":                   42,
	"PutUser":                   43,
	"DeleteUser":                44,
	"PutUserPermission":         45,
	"ClearUserPermission":       46,
	"PutTopicPermission":        47,
	"ClearTopicPermissions":     48,
	"SetLimits":                 49,
	"DurablePut":                50,
	"DurableTake":               51,
	"DurableHold":               52,
	"DurableDone":               53,
	"DurableClock":              54,
	"DurableQueue":              55,
	"DurableQueueGone":          56,
	"DurableExchange":           57,
	"DurableExchangeGone":       58,
	"DurableBind":               59,
	"DurableUnbind":             60,
	"DurableBuffer":             61,
	"DurableDelay":              62,
	"DurableRelease":            63,
	"DurablePolicy":             64,
	"DurableRetime":             65,
	"DurableVhostGone":          66,
}

func TestCommandKindNumbersArePinned(t *testing.T) {
	for k := CommandKind(1); int(k) < len(commandNames); k++ {
		name := commandNames[k]
		if name == "" {
			continue
		}
		want, ok := recordedKinds[name]
		if !ok {
			t.Errorf("kind %s (%d) is not in recordedKinds: add it, with its number", name, k)
		} else if want != k {
			t.Errorf("kind %s is %d, logs on disk hold it as %d", name, k, want)
		}
	}
	for name, k := range recordedKinds {
		if int(k) >= len(commandNames) || commandNames[k] != name {
			t.Errorf("kind %s (%d) is gone: logs on disk still hold it", name, k)
		}
	}
}

// TestApplyKnowsEveryKind applies a sample of every kind to a new broker:
// Apply panics on a kind it has no case for.
func TestApplyKnowsEveryKind(t *testing.T) {
	for _, c := range commandSamples() {
		func() {
			defer func() {
				if p := recover(); p != nil {
					if s, ok := p.(string); ok && strings.Contains(s, "unknown command") {
						t.Errorf("%v: %v", KindOf(c), p)
					}
				}
			}()
			New(Config{Seed: 1}).Apply(c)
		}()
	}
}
