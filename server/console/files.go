package console

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"warren/engine"
	"warren/engine/script"
)

// scriptLine is one line of a script file and where it came from.
type scriptLine struct {
	num  int
	text string
	// fresh marks a scenario file's "new" directive: start again from a
	// fresh broker, as the test harness does.
	fresh bool
}

// readScript reads a script file. A file with a "----" line is a scenario
// test file (new/run, input lines, ----, expected output): its input lines
// run and its expected output is skipped. Any other file is plain lines.
func readScript(path string) ([]scriptLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxFileBytes)
	}
	text := string(data)
	var out []scriptLine
	if !isScenario(text) {
		for i, l := range strings.Split(text, "\n") {
			if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
				out = append(out, scriptLine{num: i + 1, text: l})
			}
		}
		return out, nil
	}
	cases, err := script.ParseCases(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range cases {
		if c.Directive == "new" {
			out = append(out, scriptLine{num: c.Line, text: "new", fresh: true})
		}
		for i, l := range c.Input {
			if strings.TrimSpace(l) != "" {
				out = append(out, scriptLine{num: c.Line + 1 + i, text: l})
			}
		}
	}
	return out, nil
}

func isScenario(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimRight(l, "\r") == "----" {
			return true
		}
	}
	return false
}

// load runs a script file's lines, each shown after a prompt as if typed.
// Errors are reported with the file and line, and do not stop the file.
func (c *Console) load(path string) {
	lines, err := readScript(path)
	if err != nil {
		c.failf("%v", err)
		return
	}
	for _, l := range lines {
		switch {
		case l.fresh:
			c.reset()
			c.write("new: a fresh broker at time 0s\n")
		case strings.HasPrefix(strings.TrimSpace(l.text), "#"):
			c.write(l.text + "\n")
		default:
			c.write(Prompt + l.text + "\n")
			c.write(c.catchUp())
			c.exec(l.text, path+":"+strconv.Itoa(l.num))
		}
	}
}

// save writes the session's history as a script that replays it.
func (c *Console) save(path string) {
	var sb strings.Builder
	sb.WriteString("# A Warren console session. Replay it with: warren run ")
	if c.opts.Seed != 0 {
		fmt.Fprintf(&sb, "--seed=%d ", c.opts.Seed)
	}
	sb.WriteString(path + "\n")
	n := len(c.history)
	for _, l := range c.history {
		sb.WriteString(l + "\n")
	}
	if now := c.r.B.Now(); now != c.recordedAt {
		// Time the wall clock moved after the last line.
		sb.WriteString("advance to " + engine.FormatDuration(int64(now)) + "\n")
		n++
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		c.failf("save: %v", err)
		return
	}
	c.write(fmt.Sprintf("saved %d lines to %s\n", n, path))
	if c.truncated {
		c.failf("save: the session passed %d lines; later lines were not kept", maxHistoryLines)
	}
}

// RunFiles runs script files one after another, each on a fresh broker, and
// writes each line and what it did to out, as the console shows a loaded
// file. It returns the number of script errors (unreadable files, parse
// errors, misuse, failed expectations); AMQP errors are output, not script
// errors.
func RunFiles(out io.Writer, seed uint64, paths []string) int {
	errs := 0
	for i, p := range paths {
		if len(paths) > 1 {
			if i > 0 {
				io.WriteString(out, "\n")
			}
			fmt.Fprintf(out, "# %s\n", p)
		}
		c := New(out, Options{Seed: seed})
		c.load(p)
		errs += c.Errors()
	}
	return errs
}
