package lessons

import (
	"fmt"
	"reflect"
	"strings"

	"warren/engine"
	"warren/engine/script"
)

// Config is the broker a lesson runs on: seed 1 at time 0, the
// playground's own configuration, so what Check proves is what the page
// shows.
var Config = engine.Config{Seed: 1}

// Harmless are the lines Check runs after a step's try lines to make sure
// its checks judge the broker's state: show queues, which a learner runs
// to look around, and a passive declare of amq.direct, which exists in
// every vhost, so that the declare changes nothing either but is the
// previous command as far as expect event and expect error are concerned.
var Harmless = []string{"show queues", "declare exchange amq.direct passive"}

// checkLine says whether a line may appear under key.
func checkLine(key, line string) error {
	c, err := script.Parse(line)
	if err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("%s: %q is not a command", key, line)
	}
	if key == "check" && !strings.HasPrefix(c.Verb, "expect") {
		return fmt.Errorf("check: %q is not an expect line", line)
	}
	return nil
}

// Check runs a lesson in the engine as a learner who follows it would, and
// says what is wrong with it. For each step, its setup lines run, then its
// check lines must not all pass yet (else the step checks nothing), then
// its try lines run without script errors, then every check line must
// pass. State carries from step to step, as it does in the page.
//
// A learner does not run exactly the lines the step shows and nothing
// else, so a step's checks must judge the state the broker is in, not the
// last line run; Check proves it twice for every step, each time from the
// state the step's try lines left:
//
//  1. After the Harmless lines, every check line must still pass: looking
//     around, or running a line that changes nothing, does not undo a step.
//  2. Each try line is run once more; when that leaves the broker exactly
//     as it was (the same engine.Snapshot: queues and their messages,
//     exchanges, bindings, policies, channels and their unacknowledged
//     deliveries, timers, time), every check line must still pass. Running
//     a declare, a bind, a policy, confirm or tx select again, or
//     publishing again a message nothing routes or a full queue refuses,
//     changes nothing, so it cannot make a done step undone. A repeat
//     that does change the broker — one more message, time moved on — is
//     a different state, which a check may rightly judge as not done, and
//     needs no mark in the lesson.
//
// A check line that looks at the previous command (expect event, expect
// error) fails the first proof; what the publisher was told (expect
// confirm, expect returned) is state the script's client keeps, so it
// passes both.
func Check(l *Lesson) error {
	r := script.New(Config)
	run := func(i int, kind, line string) error {
		if _, err := r.Exec(line); err != nil {
			return fmt.Errorf("step %d (%s): %s %q: %w", i+1, l.Steps[i].Title, kind, line, err)
		}
		return nil
	}
	for i, s := range l.Steps {
		for _, line := range s.Setup {
			if err := run(i, "setup", line); err != nil {
				return err
			}
		}
		if len(s.Check) > 0 && len(s.Try) > 0 && failing(r, s.Check) == "" {
			return fmt.Errorf("step %d (%s): its check lines already pass before the try lines run: they check nothing", i+1, s.Title)
		}
		for _, line := range s.Try {
			if err := run(i, "try", line); err != nil {
				return err
			}
		}
		for _, line := range s.Check {
			if err := run(i, "check", line); err != nil {
				return err
			}
		}
		if err := checkState(l, i); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.Title, err)
		}
	}
	return nil
}

// checkState makes the two proofs of Check's doc comment for step i, whose
// check lines pass after its try lines. Each starts from a replay of the
// lesson up to the end of the step's try lines, which the engine, being
// deterministic, brings to the same state.
func checkState(l *Lesson, i int) error {
	s := l.Steps[i]
	if len(s.Check) == 0 {
		return nil
	}
	replay := func() *script.Runner {
		r := script.New(Config)
		for _, line := range append(l.Before(i), s.Try...) {
			r.Exec(line) // Check ran these lines already and stops at an error
		}
		return r
	}
	r := replay()
	for _, line := range Harmless {
		if _, err := r.Exec(line); err != nil {
			return fmt.Errorf("the harmless line %q fails: %w", line, err)
		}
	}
	if line := failing(r, s.Check); line != "" {
		return fmt.Errorf("check %q fails after the harmless lines %q: a check must judge the broker's state, not what the last line did", line, Harmless)
	}
	seen := map[string]bool{}
	for _, try := range s.Try {
		if seen[try] {
			continue
		}
		seen[try] = true
		r := replay()
		before := r.B.Snapshot()
		if _, err := r.Exec(try); err != nil || !reflect.DeepEqual(before, r.B.Snapshot()) {
			continue // not a repeat that leaves the broker as it was
		}
		if line := failing(r, s.Check); line != "" {
			return fmt.Errorf("check %q fails after the try line %q runs again, which leaves the broker as it was: a check must judge the broker's state, not what the last line did", line, try)
		}
	}
	return nil
}

// failing returns the first line that does not pass, or "". A line that
// fails for another reason than a failed expectation also counts as not
// passing; Check reports it when it runs the line after the try lines.
func failing(r *script.Runner, lines []string) string {
	for _, line := range lines {
		if _, err := r.Exec(line); err != nil {
			return line
		}
	}
	return ""
}
