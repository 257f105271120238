package script

import "warren/engine"

func init() {
	register(&verbSpec{name: "reload", maxArgs: 0, exact: true,
		usage: "reload   (save the broker's whole state and load it back, as a snapshot keeps it: nothing changes)", run: runReload})
}

// runReload replaces the broker with engine.Load(Save()). A snapshot keeps
// everything (connections, channels and consumers included), so the
// script's channels stay open and what the script shows after it is what
// it showed before: the verb exists to show that, for properties present
// but empty, x-death histories and the rest. A broker others share is
// not the runner's to replace.
func runReload(r *Runner, c *Command) error {
	if !r.ownsBroker {
		return newError(KeyReloadShared, "verb", c.Verb)
	}
	if r.B.PendingCommands() > 0 {
		// Its driver takes the records after each line; Save needs them
		// taken.
		return newError(KeyReloadPending)
	}
	b, err := engine.Load(r.B.Save())
	if err != nil {
		panic("script: reload: the broker's own snapshot does not load: " + err.Error()) // a bug in Save or Load
	}
	r.B = b
	return nil
}
