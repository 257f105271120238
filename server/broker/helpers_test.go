package broker

import (
	"testing"

	"warren/engine"
)

// mustApply applies cmds in one turn, as a driver does, and fails the
// test on any command's error.
func mustApply(t *testing.T, b *Broker, cmds ...engine.Command) []engine.Result {
	t.Helper()
	res, err := b.Apply(cmds, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", engine.KindOf(cmds[i]), r.Err)
		}
	}
	return res
}

// openChannel opens a connection to "/" and its channel 1.
func openChannel(t *testing.T, b *Broker) engine.ChannelID {
	t.Helper()
	conn := mustApply(t, b, engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/"}})[0].Conn
	return mustApply(t, b, engine.CmdOpenChannel{Conn: conn, Num: 1})[0].Channel
}
