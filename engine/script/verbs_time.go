package script

import (
	"fmt"
	"strconv"

	"warren/engine"
)

func init() {
	register(&verbSpec{name: "advance", minArgs: 1, maxArgs: 2, usage: "advance DURATION | advance to TIME   (e.g. advance 5s, advance to 1m)", run: runAdvance})
	register(&verbSpec{name: "step", minArgs: 0, maxArgs: 1, usage: "step [N]   (jump to the next N timer deadlines)", run: runStep})
	register(&verbSpec{name: "run", minArgs: 0, maxArgs: 0, usage: "run   (step until no timer is pending)", run: runRun})
}

func runAdvance(r *Runner, c *Command) error {
	var target engine.Time
	switch {
	case len(c.Args) == 2 && c.Args[0] == "to":
		ms, err := parseDuration(c.Args[1])
		if err != nil {
			return err
		}
		now := r.B.Now()
		if engine.Time(ms) < now {
			return newError(KeyBackInTime, "target", engine.FormatDuration(ms), "now", engine.FormatDuration(int64(now)))
		}
		if target, err = advanceTarget(now, ms-int64(now), c.Args[1]); err != nil {
			return err
		}
	case len(c.Args) == 1:
		ms, err := parseDuration(c.Args[0])
		if err != nil {
			return err
		}
		if target, err = advanceTarget(r.B.Now(), ms, c.Args[0]); err != nil {
			return err
		}
	default:
		return usageError(verbs["advance"])
	}
	r.B.Settle(target)
	r.noteTime()
	return nil
}

// advanceTarget is where a move of ms from now lands, or KeyAdvanceTooFar
// for a move past engine.MaxAdvanceMs or engine.MaxTime (value is what the
// script wrote).
func advanceTarget(now engine.Time, ms int64, value string) (engine.Time, error) {
	target, ok := engine.AdvanceTarget(now, ms)
	if !ok {
		return now, newError(KeyAdvanceTooFar, "value", quote(value), "max", engine.FormatDuration(engine.MaxAdvanceMs),
			"end", engine.FormatDuration(int64(engine.MaxTime)), "now", engine.FormatDuration(int64(now)))
	}
	return target, nil
}

// noteTime prints the clock when time moved without any event to show it.
func (r *Runner) noteTime() {
	if r.B.PendingEvents() == 0 && r.B.Now() != r.printedAt {
		fmt.Fprintf(&r.pendingOut, "@%s\n", engine.FormatDuration(int64(r.B.Now())))
		r.printedAt = r.B.Now()
	}
}

func runStep(r *Runner, c *Command) error {
	n := 1
	if len(c.Args) == 1 {
		var err error
		// At most MaxSteps, as run: a step fires one deadline, and a
		// count from a console or a page is a number like any other.
		if n, err = strconv.Atoi(c.Args[0]); err != nil || n < 1 || n > r.MaxSteps {
			return newError(KeyBadStepCount, "value", quote(c.Args[0]), "max", strconv.Itoa(r.MaxSteps))
		}
	}
	for i := 0; i < n; i++ {
		if !r.step() {
			r.pendingOut.WriteString("nothing scheduled\n")
			break
		}
	}
	r.noteTime()
	return nil
}

func runRun(r *Runner, c *Command) error {
	for i := 0; ; i++ {
		if i >= r.MaxSteps {
			return newError(KeyRunBusy, "steps", strconv.Itoa(r.MaxSteps))
		}
		if !r.step() {
			break
		}
	}
	r.noteTime()
	return nil
}

// step jumps to the next timer deadline and fires everything due then,
// continuations included (engine.Broker.Settle), and reports whether
// anything was scheduled. A backlog's batches are one step, not hundreds.
func (r *Runner) step() bool {
	t, ok := r.B.Step()
	if ok {
		r.B.Settle(t)
	}
	return ok
}
