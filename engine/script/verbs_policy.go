package script

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"warren/engine"
)

func init() {
	for _, op := range []bool{false, true} {
		prefix := ""
		if op {
			prefix = "operator_"
		}
		register(&verbSpec{name: "set_" + prefix + "policy", minArgs: 3, maxArgs: -1, rawArgs: true,
			usage: "set_" + prefix + "policy [-p VHOST] NAME PATTERN DEFINITION-JSON [--priority N] [--apply-to queues|exchanges|all|classic_queues|quorum_queues]   (rabbitmqctl syntax)",
			run:   runSetPolicy(op)})
		register(&verbSpec{name: "clear_" + prefix + "policy", minArgs: 1, maxArgs: 3, rawArgs: true,
			usage: "clear_" + prefix + "policy [-p VHOST] NAME", run: runClearPolicy(op)})
	}
	register(&verbSpec{name: "vhost add", minArgs: 1, maxArgs: 1, usage: "vhost add NAME", run: runVhost(true)})
	register(&verbSpec{name: "vhost delete", minArgs: 1, maxArgs: 1, usage: "vhost delete NAME", run: runVhost(false)})
}

// rabbitmqctlArgs splits rabbitmqctl-style arguments into positionals and
// the -p/--priority/--apply-to/--vhost flags (also written --flag=value).
func rabbitmqctlArgs(args []string) (pos []string, flags map[string]string, err error) {
	flags = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "p", "vhost":
			name = "vhost"
		case "priority", "apply-to":
		default:
			return nil, nil, newError(KeyUnknownFlag, "flag", a)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, newError(KeyFlagNeedsValue, "flag", a)
			}
			i++
			val = args[i]
		}
		flags[name] = val
	}
	return pos, flags, nil
}

// parseDefinition reads a policy definition as JSON, keeping integers as
// integers.
func parseDefinition(s string) (engine.Table, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, newError(KeyBadDefinition, "detail", err.Error())
	}
	return jsonTable(raw), nil
}

func jsonTable(m map[string]any) engine.Table {
	t := engine.Table{}
	for k, v := range m {
		t[k] = jsonValue(v)
	}
	return t
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		return jsonTable(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return v
}

func runSetPolicy(op bool) func(r *Runner, c *Command) error {
	return func(r *Runner, c *Command) error {
		pos, flags, err := rabbitmqctlArgs(c.Args)
		if err != nil {
			return err
		}
		if len(pos) != 3 {
			return usageError(verbs[c.Verb])
		}
		def, err := parseDefinition(pos[2])
		if err != nil {
			return err
		}
		p := engine.Policy{Vhost: "/", Name: pos[0], Pattern: pos[1], Definition: def, ApplyTo: "all"}
		if v, ok := flags["vhost"]; ok {
			p.Vhost = v
		}
		if v, ok := flags["apply-to"]; ok {
			p.ApplyTo = v
		}
		if v, ok := flags["priority"]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return newError(KeyBadPolicyPriority, "value", quote(v))
			}
			p.Priority = n
		}
		if op {
			return r.B.SetOperatorPolicy(p)
		}
		return r.B.SetPolicy(p)
	}
}

func runClearPolicy(op bool) func(r *Runner, c *Command) error {
	return func(r *Runner, c *Command) error {
		pos, flags, err := rabbitmqctlArgs(c.Args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usageError(verbs[c.Verb])
		}
		vh := "/"
		if v, ok := flags["vhost"]; ok {
			vh = v
		}
		if op {
			return r.B.ClearOperatorPolicy(vh, pos[0])
		}
		return r.B.ClearPolicy(vh, pos[0])
	}
}

func runVhost(add bool) func(r *Runner, c *Command) error {
	return func(r *Runner, c *Command) error {
		if add {
			return r.B.AddVhost(c.Args[0])
		}
		return r.B.DeleteVhost(c.Args[0])
	}
}
