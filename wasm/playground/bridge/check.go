package bridge

import (
	"fmt"
	"strings"

	"warren/engine/script"
)

// CheckResult is what Check found: Passed when every line passed, and each
// line's outcome in order.
type CheckResult struct {
	Passed bool          `json:"passed"`
	Lines  []CheckedLine `json:"lines"`
}

// CheckedLine is one expect line and, when it failed, why: in English,
// and as data for the page to say in its reader's language (as in
// Result).
type CheckedLine struct {
	Line        string       `json:"line"`
	Error       string       `json:"error,omitempty"`
	ErrorDetail *ErrorDetail `json:"errorDetail,omitempty"`
}

// Check runs expect lines against the session as it is, without logging
// them: a lesson's "Check my work" asks about the state and must not become
// part of what a share link or a rewind replays. Every line runs, so the
// learner sees each one that fails. A line that is not an expect line is
// refused before any runs, since anything else could change the state.
func (s *Session) Check(lines []string) (CheckResult, error) {
	if s.live != nil {
		// An expect line settles the broker's time, which could fire a
		// timer in the replica alone.
		return CheckResult{}, fmt.Errorf("%s", s.errLive("check").Error)
	}
	cmds := make([]*script.Command, len(lines))
	for i, line := range lines {
		c, err := script.Parse(line)
		if err != nil {
			return CheckResult{}, fmt.Errorf("check: lines[%d]: %v", i, err)
		}
		if c == nil || !strings.HasPrefix(c.Verb, "expect") {
			return CheckResult{}, fmt.Errorf("check: lines[%d] %q is not an expect line", i, line)
		}
		cmds[i] = c
	}
	res := CheckResult{Passed: true, Lines: make([]CheckedLine, len(lines))}
	for i, c := range cmds {
		res.Lines[i].Line = c.Line
		if _, err := s.r.ExecCommand(c); err != nil {
			res.Lines[i].Error, res.Lines[i].ErrorDetail = err.Error(), detailOf(err)
			res.Passed = false
		}
	}
	return res, nil
}
