package console

import (
	"strings"

	"warren/engine/script"
)

// clockLine says how time moves in this console's mode.
func (c *Console) clockLine() string {
	if c.opts.Clock == nil {
		return "Clock: stepped. Time moves only when you say: advance 5s, step, run."
	}
	return "Clock: real. Timers fire as wall time passes; advance, step and run jump ahead."
}

// banner greets a newcomer with three lines to try.
func (c *Console) banner() string {
	return "Warren console: a RabbitMQ-semantics broker in memory, driven by script lines.\n" +
		c.clockLine() + "\n" +
		"Try:\n" +
		"  declare queue q ttl=5s\n" +
		"  publish q hello\n" +
		"  advance 6s\n" +
		"Type help for every command, quit to leave.\n"
}

// consoleHelp lists the commands the console adds to the script language.
const consoleHelp = `help [COMMAND]   every command, or those starting with COMMAND (help publish)
load FILE        run a script file: plain lines, or a test file with ---- blocks
save FILE        write the lines run so far as a script that replays the session
reset            start again with a fresh broker at time 0s
quit | exit      leave (Ctrl-D too)`

// help prints the overview of every command, or the usage of those named
// prefix or starting with it, from the script language and the console's.
func (c *Console) help(prefix string) {
	if prefix == "" {
		c.write("Script commands:\n" + indent(script.Help()) +
			"Console commands:\n" + indent(consoleHelp) + c.clockLine() + "\n")
		return
	}
	var sb strings.Builder
	if usage, err := script.HelpFor(prefix); err == nil {
		sb.WriteString(indent(usage))
	}
	for _, l := range strings.Split(consoleHelp, "\n") {
		if l == prefix || strings.HasPrefix(l, prefix+" ") {
			sb.WriteString("  " + l + "\n")
		}
	}
	if sb.Len() == 0 {
		c.failf("no command %q (type help for all of them)", prefix)
		return
	}
	c.write(sb.String())
}

// indent indents each line of a block by two spaces.
func indent(lines string) string {
	return "  " + strings.ReplaceAll(lines, "\n", "\n  ") + "\n"
}
