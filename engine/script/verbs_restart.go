package script

func init() {
	register(&verbSpec{name: "restart", minArgs: 0, maxArgs: 1,
		usage: "restart [DOWNTIME]   (the broker stops as in a crash and starts again DOWNTIME later, e.g. restart 1m)", run: runRestart})
}

// runRestart restarts the broker (engine.Broker.Restart) after DOWNTIME,
// none by default. Every connection is gone: the script's channels open
// again on their next use, as a client reconnects.
func runRestart(r *Runner, c *Command) error {
	var downMs int64
	value := "0s"
	if len(c.Args) == 1 {
		value = c.Args[0]
		ms, err := parseDuration(c.Args[0])
		if err != nil {
			return err
		}
		downMs = ms
	}
	at, err := advanceTarget(r.B.Now(), downMs, value)
	if err != nil {
		return err
	}
	r.B.Restart(at)
	for _, ch := range r.chans {
		ch.open = false
	}
	clear(r.conns)
	return nil
}
