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

// compareFields fails when a wanted field differs: an expectation that
// failed because of an error of key, with args (name, value pairs) saying
// what was compared, and the fields that differ.
func compareFields(have map[string]string, want []Opt, key string, args ...string) error {
	if bad := mismatches(have, want); len(bad) > 0 {
		e := newError(key, args...)
		e.Mismatches = bad
		return fail(e)
	}
	return nil
}

// mismatches lists the wanted fields that differ, none when all match. A
// field that is not there compares as "(absent)", so that a check can say
// a header or x-death field is missing.
func mismatches(have map[string]string, want []Opt) []Mismatch {
	var bad []Mismatch
	for _, o := range want {
		got, ok := have[o.Key]
		if !ok && o.Value == errorTemplates[KeyAbsent] {
			continue
		}
		if !ok || got != o.Value {
			bad = append(bad, Mismatch{Field: o.Key, Got: got, Want: o.Value, Absent: !ok})
		}
	}
	return bad
}

func runExpectQueue(r *Runner, c *Command) error {
	q, ok := findQueue(r.state(1), c.Args[0])
	if !ok {
		return fail(newError(KeyNoQueue, "queue", c.Args[0]))
	}
	return compareFields(queueFields(q), c.Opts, KeyQueueDiffers, "queue", q.Name)
}

func runExpectMsg(r *Runner, c *Command) error {
	m, extra, err := r.msgAt(c.Args[0], c.Args[1])
	if err != nil {
		return fail(err)
	}
	f := msgFields(m)
	for k, v := range extra {
		f[k] = v
	}
	return compareFields(f, c.Opts, KeyMsgDiffers, "queue", c.Args[0], "index", c.Args[1])
}

func runExpectError(r *Runner, c *Command) error {
	want := c.Args[0]
	if want == "none" {
		if r.lastErr != nil {
			return fail(newError(KeyUnexpectedError, "code", strconv.Itoa(r.lastErr.Code), "text", r.lastErr.Text))
		}
		return nil
	}
	code, err := strconv.Atoi(want)
	if err != nil {
		return newError(KeyBadErrorCode, "value", quote(want))
	}
	if r.lastErr == nil {
		return fail(newError(KeyNoError, "want", strconv.Itoa(code)))
	}
	if r.lastErr.Code != code {
		return fail(newError(KeyWrongError, "code", strconv.Itoa(r.lastErr.Code), "text", r.lastErr.Text, "want", strconv.Itoa(code)))
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
		return newError(KeyUnknownEvent, "kind", quote(kind))
	}
	for _, e := range r.lastEvents {
		if e.Kind.String() != kind {
			continue
		}
		if len(mismatches(eventFields(r, e), c.Opts)) == 0 {
			return nil
		}
	}
	return fail(newError(KeyNoEvent, "kind", kind, "fields", fmt.Sprint(c.Opts)))
}

func runExpectExists(want bool) func(r *Runner, c *Command) error {
	return func(r *Runner, c *Command) error {
		s := r.state(1)
		var have bool
		missing, exists := KeyQueueMissing, KeyQueueExists
		switch c.Args[0] {
		case "queue":
			_, have = findQueue(s, c.Args[1])
		case "exchange":
			have = findExchange(s, c.Args[1])
			missing, exists = KeyExchangeMissing, KeyExchangeExists
		default:
			return newError(KeyBadExistsWhat, "value", quote(c.Args[0]))
		}
		switch {
		case have == want:
			return nil
		case want:
			return fail(newError(missing, "name", c.Args[1]))
		}
		return fail(newError(exists, "name", c.Args[1]))
	}
}

func runExpectTime(r *Runner, c *Command) error {
	ms, err := parseDuration(c.Args[0])
	if err != nil {
		return err
	}
	if int64(r.B.Now()) != ms {
		return fail(newError(KeyWrongTime, "now", engine.FormatDuration(int64(r.B.Now())), "want", c.Args[0]))
	}
	return nil
}
