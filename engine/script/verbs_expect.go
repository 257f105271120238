package script

import (
	"fmt"
	"strconv"
	"strings"

	"warren/engine"
)

func init() {
	register(&verbSpec{name: "expect queue", minArgs: 1, maxArgs: 1, anyOpt: true,
		usage: "expect queue NAME [ready=N] [unacked=N] [consumers=N] [expired=N] [bytes=N] [messages=N] [type=T] [policy=P]", run: runExpectQueue})
	register(&verbSpec{name: "expect msg", minArgs: 2, maxArgs: 2, anyOpt: true,
		usage: "expect msg QUEUE INDEX [body=B] [priority=N] [expiration=E] [redelivered=true] [header.NAME=V] [x-death=N] [x-death.0.reason=expired] ...", run: runExpectMsg})
	register(&verbSpec{name: "expect error", minArgs: 1, maxArgs: 1, usage: "expect error CODE|none   (the previous command's AMQP error)", run: runExpectError})
	register(&verbSpec{name: "expect event", minArgs: 1, maxArgs: 1, anyOpt: true,
		usage: "expect event KIND [field=VALUE ...]   (among the previous command's events)", run: runExpectEvent})
	register(&verbSpec{name: "expect exists", minArgs: 2, maxArgs: 2, usage: "expect exists queue|exchange NAME", run: runExpectExists(true)})
	register(&verbSpec{name: "expect missing", minArgs: 2, maxArgs: 2, usage: "expect missing queue|exchange NAME", run: runExpectExists(false)})
	register(&verbSpec{name: "expect time", minArgs: 1, maxArgs: 1, usage: "expect time DURATION", run: runExpectTime})
}

func fail(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrExpectation, fmt.Sprintf(format, args...))
}

func compareFields(what string, have map[string]string, want []Opt) error {
	if bad := mismatch(have, want); bad != "" {
		return fail("%s: %s", what, bad)
	}
	return nil
}

// mismatch lists the wanted fields that differ, as "key=got (want value)",
// or returns "" when all match.
func mismatch(have map[string]string, want []Opt) string {
	var bad []string
	for _, o := range want {
		got, ok := have[o.Key]
		if !ok {
			got = "(absent)"
		}
		if got != o.Value {
			bad = append(bad, fmt.Sprintf("%s=%s (want %s)", o.Key, got, o.Value))
		}
	}
	return strings.Join(bad, ", ")
}

func runExpectQueue(r *Runner, c *Command) error {
	q, ok := findQueue(r.state(1), c.Args[0])
	if !ok {
		return fail("no queue %s", c.Args[0])
	}
	return compareFields("queue "+q.Name, queueFields(q), c.Opts)
}

func runExpectMsg(r *Runner, c *Command) error {
	m, extra, err := r.msgAt(c.Args[0], c.Args[1])
	if err != nil {
		return fail("%v", err)
	}
	f := msgFields(m)
	for k, v := range extra {
		f[k] = v
	}
	return compareFields(fmt.Sprintf("msg %s[%s]", c.Args[0], c.Args[1]), f, c.Opts)
}

func runExpectError(r *Runner, c *Command) error {
	want := c.Args[0]
	if want == "none" {
		if r.lastErr != nil {
			return fail("unexpected error %d %s", r.lastErr.Code, r.lastErr.Text)
		}
		return nil
	}
	code, err := strconv.Atoi(want)
	if err != nil {
		return fmt.Errorf("expect error: want a reply code or none, got %q", want)
	}
	if r.lastErr == nil {
		return fail("no error, want %d", code)
	}
	if r.lastErr.Code != code {
		return fail("error %d %s, want %d", r.lastErr.Code, r.lastErr.Text, code)
	}
	return nil
}

// eventFields flattens an event for matching, using the trace's names.
func eventFields(r *Runner, e engine.Event) map[string]string {
	f := map[string]string{}
	for _, part := range splitTrace(r.describe(e))[1:] {
		if k, v, ok := strings.Cut(part, "="); ok {
			if uq, err := strconv.Unquote(v); err == nil {
				v = uq
			}
			f[k] = v
		}
	}
	return f
}

// splitTrace splits a trace line into words, keeping quoted values whole.
func splitTrace(s string) []string {
	toks, err := lex(s)
	if err != nil {
		return strings.Fields(s)
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.text
	}
	return out
}

func runExpectEvent(r *Runner, c *Command) error {
	kind := c.Args[0]
	if _, ok := engine.EventKindByName(kind); !ok {
		return fmt.Errorf("expect event: unknown event kind %q", kind)
	}
	for _, e := range r.lastEvents {
		if e.Kind.String() != kind {
			continue
		}
		if compareFields("", eventFields(r, e), c.Opts) == nil {
			return nil
		}
	}
	return fail("no %s event matching %v in the previous command's events", kind, c.Opts)
}

func runExpectExists(want bool) func(r *Runner, c *Command) error {
	return func(r *Runner, c *Command) error {
		s := r.state(1)
		var have bool
		switch c.Args[0] {
		case "queue":
			_, have = findQueue(s, c.Args[1])
		case "exchange":
			have = findExchange(s, c.Args[1])
		default:
			return fmt.Errorf("expect exists/missing: queue or exchange, got %q", c.Args[0])
		}
		if have != want {
			if want {
				return fail("%s %s does not exist", c.Args[0], c.Args[1])
			}
			return fail("%s %s still exists", c.Args[0], c.Args[1])
		}
		return nil
	}
}

func runExpectTime(r *Runner, c *Command) error {
	ms, err := parseDuration(c.Args[0])
	if err != nil {
		return err
	}
	if int64(r.B.Now()) != ms {
		return fail("time is %s, want %s", engine.FormatDuration(int64(r.B.Now())), c.Args[0])
	}
	return nil
}
