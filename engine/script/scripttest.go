package script

import (
	"bufio"
	"fmt"
	"strings"

	"warren/engine"
)

// Case is one scenario block of a script test file:
//
//	# comments (kept)
//	new                 <- "new" starts a fresh broker, "run" continues
//	declare queue q ttl=5s
//	advance 6s
//	----
//	expected output, ending at a blank line or end of file
type Case struct {
	Line      int      // line number of the directive
	Comments  []string // comment lines before the directive
	Directive string   // "new" or "run"
	Input     []string
	Expected  string
}

// ParseCases reads a scenario file.
func ParseCases(text string) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	var comments []string
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			if len(comments) > 0 {
				comments = append(comments, "")
			}
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			comments = append(comments, line)
			continue
		}
		if trimmed != "new" && trimmed != "run" {
			return nil, fmt.Errorf("line %d: expected directive new or run, got %q", n, line)
		}
		for len(comments) > 0 && comments[len(comments)-1] == "" {
			comments = comments[:len(comments)-1]
		}
		c := Case{Line: n, Comments: comments, Directive: trimmed}
		comments = nil
		sep := false
		for sc.Scan() {
			n++
			l := sc.Text()
			if l == "----" {
				sep = true
				break
			}
			c.Input = append(c.Input, l)
		}
		if !sep {
			return nil, fmt.Errorf("line %d: case has no ---- separator", c.Line)
		}
		var exp []string
		for sc.Scan() {
			n++
			l := sc.Text()
			if l == "" {
				break
			}
			exp = append(exp, l)
		}
		if len(exp) > 0 {
			c.Expected = strings.Join(exp, "\n") + "\n"
		}
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

// RunCases runs the cases in order and returns each one's actual output.
// A "new" case starts from a fresh broker made by cfg.
func RunCases(cases []Case, cfg engine.Config) []string {
	var r *Runner
	out := make([]string, len(cases))
	for i, c := range cases {
		if c.Directive == "new" || r == nil {
			r = New(cfg)
		}
		var sb strings.Builder
		for _, line := range c.Input {
			o, err := r.Exec(line)
			sb.WriteString(o)
			if err != nil {
				fmt.Fprintf(&sb, "script error: %v\n", err)
			}
		}
		out[i] = sb.String()
	}
	return out
}

// FormatCases writes cases back with the given outputs (for -rewrite).
func FormatCases(cases []Case, outputs []string) string {
	var sb strings.Builder
	for i, c := range cases {
		if i > 0 {
			sb.WriteString("\n")
		}
		for _, cm := range c.Comments {
			sb.WriteString(cm + "\n")
		}
		sb.WriteString(c.Directive + "\n")
		for _, l := range c.Input {
			sb.WriteString(l + "\n")
		}
		sb.WriteString("----\n")
		sb.WriteString(outputs[i])
	}
	return sb.String()
}
