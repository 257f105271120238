package lessons

import (
	"fmt"
	"strings"

	"warren/engine"
	"warren/engine/script"
)

// Config is the broker a lesson runs on: seed 1 at time 0, the
// playground's own configuration, so what Check proves is what the page
// shows.
var Config = engine.Config{Seed: 1}

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
// says what is wrong with it: for each step, its setup lines run, then its
// check lines must not all pass yet (else the step checks nothing), then
// its try lines run without script errors, then every check line must
// pass. State carries from step to step, as it does in the page.
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
		if len(s.Check) > 0 && len(s.Try) > 0 && passes(r, s.Check) {
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
	}
	return nil
}

// passes says whether every line passes. A line that fails for another
// reason than a failed expectation also counts as not passing; Check
// reports it when it runs the line again after the try lines.
func passes(r *script.Runner, lines []string) bool {
	for _, line := range lines {
		if _, err := r.Exec(line); err != nil {
			return false
		}
	}
	return true
}
