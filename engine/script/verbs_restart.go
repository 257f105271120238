package script

import "warren/engine"

func init() {
	register(&verbSpec{name: "restart", minArgs: 0, maxArgs: 1,
		usage: "restart [DOWNTIME]   (the broker stops as in a crash and starts again DOWNTIME later, e.g. restart 1m)", run: runRestart})
}

// runRestart restarts the broker (engine.Broker.Restart) after DOWNTIME,
// none by default. Every connection is gone: the script's channels open
// again on their next use, as a client reconnects.
func runRestart(r *Runner, c *Command) error {
	var downMs int64
	if len(c.Args) == 1 {
		ms, err := parseDuration(c.Args[0])
		if err != nil {
			return err
		}
		downMs = ms
	}
	r.B.Restart(r.B.Now() + engine.Time(downMs))
	for _, ch := range r.chans {
		ch.open = false
	}
	clear(r.conns)
	return nil
}
