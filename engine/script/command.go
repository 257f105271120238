package script

import (
	"sort"
	"strings"
)

// Command is one parsed script line.
type Command struct {
	Line    string
	Channel string   // from a leading @name; "" means the current channel
	Verb    string   // e.g. "declare queue", "publish", "advance"
	Args    []string // positional arguments
	Flags   map[string]bool
	Opts    []Opt // key=value options, in order
}

// Opt is one key=value option.
type Opt struct {
	Key    string
	Value  string
	Quoted bool
}

// Opt returns the value of option key and whether it was given.
func (c *Command) Opt(key string) (string, bool) {
	for _, o := range c.Opts {
		if o.Key == key {
			return o.Value, true
		}
	}
	return "", false
}

// verbSpec describes a verb's shape: positional arguments, flags, and which
// options it accepts (anyOpt: every key=value is passed through, as binding
// arguments or headers are).
type verbSpec struct {
	name    string
	minArgs int
	maxArgs int
	flags   []string
	opts    []string
	anyOpt  bool
	rawArgs bool // every word is positional (rabbitmqctl-style flags)
	// exact leaves the broker as the verb left it: no Settle after it,
	// which would run a backlog's batches the session being replayed
	// ran later (history verbs).
	exact bool
	usage string
	run   func(r *Runner, c *Command) error
}

var verbs = map[string]*verbSpec{}

func register(v *verbSpec) { verbs[v.name] = v }

// twoWordVerbs are verbs whose second word is part of the verb.
var twoWordVerbs = map[string][]string{
	"declare": {"queue", "exchange"},
	"delete":  {"queue", "exchange"},
	"bind":    {"exchange"},
	"unbind":  {"exchange"},
	"expect":  {"queue", "msg", "error", "event", "exists", "missing", "unacked", "time", "channel", "confirm", "returned"},
	"show":    {"queues", "queue", "exchanges", "bindings", "consumers", "channels", "timers", "msg", "policies", "time", "next"},
	"vhost":   {"add", "delete"},
	"tx":      {"select", "commit", "rollback"},
	"history": {"start", "entry", "hash"},
}

// Parse parses one line. It returns a nil Command for blank and comment
// lines.
func Parse(line string) (*Command, error) {
	toks, err := lex(line)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, nil
	}
	c := &Command{Line: strings.TrimSpace(line), Flags: map[string]bool{}}
	if t := toks[0]; strings.HasPrefix(t.text, "@") && !t.quoted {
		c.Channel = t.text[1:]
		if c.Channel == "" {
			return nil, newError(KeyEmptyChannel)
		}
		toks = toks[1:]
		if len(toks) == 0 {
			return nil, newError(KeyMissingCommand, "channel", c.Channel)
		}
	}
	c.Verb = toks[0].text
	toks = toks[1:]
	if seconds, ok := twoWordVerbs[c.Verb]; ok && len(toks) > 0 {
		for _, s := range seconds {
			if toks[0].text == s {
				c.Verb += " " + s
				toks = toks[1:]
				break
			}
		}
	}
	spec, ok := verbs[c.Verb]
	if !ok {
		if seconds, two := twoWordVerbs[c.Verb]; two {
			return nil, newError(KeyWhichVerb, "verb", c.Verb, "choices", strings.Join(seconds, ", "))
		}
		return nil, newError(KeyUnknownCommand, "command", quote(c.Verb))
	}
	isFlag := map[string]bool{}
	for _, f := range spec.flags {
		isFlag[f] = true
	}
	isOpt := map[string]bool{}
	for _, o := range spec.opts {
		isOpt[o] = true
	}
	for _, t := range toks {
		switch {
		case spec.rawArgs:
			c.Args = append(c.Args, t.text)
		case t.isKV() && (spec.anyOpt || isOpt[t.key()]):
			c.Opts = append(c.Opts, Opt{Key: t.key(), Value: t.value(), Quoted: t.quoted})
		case t.isKV():
			return nil, newError(KeyUnknownOption, "verb", c.Verb, "option", quote(t.key()), "options", strings.Join(sorted(spec.opts), ", "))
		case !t.quoted && isFlag[t.text]:
			c.Flags[t.text] = true
		default:
			c.Args = append(c.Args, t.text)
		}
	}
	if len(c.Args) < spec.minArgs || (spec.maxArgs >= 0 && len(c.Args) > spec.maxArgs) {
		return nil, usageError(spec)
	}
	return c, nil
}

func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}
