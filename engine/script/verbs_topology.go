package script

import (
	"fmt"

	"warren/engine"
)

// queueShorthands map friendly option names to queue arguments.
var queueShorthands = map[string]string{
	"ttl":              "x-message-ttl",
	"message-ttl":      "x-message-ttl",
	"expires":          "x-expires",
	"max-length":       "x-max-length",
	"max-length-bytes": "x-max-length-bytes",
	"overflow":         "x-overflow",
	"dlx":              "x-dead-letter-exchange",
	"dlrk":             "x-dead-letter-routing-key",
	"max-priority":     "x-max-priority",
	"type":             "x-queue-type",
	"delivery-limit":   "x-delivery-limit",
}

// durationArgs are arguments whose script values may be durations.
var durationArgs = map[string]bool{"x-message-ttl": true, "x-expires": true}

func init() {
	register(&verbSpec{
		name: "declare queue", minArgs: 0, maxArgs: 1, anyOpt: true,
		flags: []string{"durable", "non-durable", "exclusive", "auto-delete", "passive", "sac"},
		usage: "declare queue [NAME] [durable|non-durable] [exclusive] [auto-delete] [passive] [sac] [ttl=5s] [expires=1m] [max-length=N] [max-length-bytes=N] [overflow=drop-head|reject-publish|reject-publish-dlx] [dlx=EXCHANGE] [dlrk=KEY] [max-priority=N] [type=classic|quorum] [delivery-limit=N] [x-any-argument=VALUE]",
		run:   runDeclareQueue,
	})
	register(&verbSpec{
		name: "declare exchange", minArgs: 1, maxArgs: 2, anyOpt: true,
		flags: []string{"durable", "auto-delete", "internal", "passive"},
		usage: "declare exchange NAME [direct|fanout|topic|headers|x-delayed-message] [durable] [auto-delete] [internal] [passive] [ae=EXCHANGE] [delayed-type=TYPE] [x-any-argument=VALUE]",
		run:   runDeclareExchange,
	})
	register(&verbSpec{
		name: "delete queue", minArgs: 1, maxArgs: 1, flags: []string{"if-unused", "if-empty"},
		usage: "delete queue NAME [if-unused] [if-empty]", run: runDeleteQueue,
	})
	register(&verbSpec{
		name: "delete exchange", minArgs: 1, maxArgs: 1, flags: []string{"if-unused"},
		usage: "delete exchange NAME [if-unused]", run: runDeleteExchange,
	})
	register(&verbSpec{
		name: "bind", minArgs: 2, maxArgs: 3, anyOpt: true,
		usage: "bind QUEUE EXCHANGE [ROUTING-KEY] [header-or-argument=VALUE ...]", run: runBind(false, true),
	})
	register(&verbSpec{
		name: "unbind", minArgs: 2, maxArgs: 3, anyOpt: true,
		usage: "unbind QUEUE EXCHANGE [ROUTING-KEY] [argument=VALUE ...]", run: runBind(false, false),
	})
	register(&verbSpec{
		name: "bind exchange", minArgs: 2, maxArgs: 3, anyOpt: true,
		usage: "bind exchange DESTINATION SOURCE [ROUTING-KEY] [argument=VALUE ...]", run: runBind(true, true),
	})
	register(&verbSpec{
		name: "unbind exchange", minArgs: 2, maxArgs: 3, anyOpt: true,
		usage: "unbind exchange DESTINATION SOURCE [ROUTING-KEY] [argument=VALUE ...]", run: runBind(true, false),
	})
	register(&verbSpec{
		name: "purge", minArgs: 1, maxArgs: 1, usage: "purge QUEUE", run: runPurge,
	})
}

// optValue converts an option to an argument value; durations are allowed
// for TTL-like arguments ("ttl=5s").
func optValue(key string, o Opt) (any, error) {
	if durationArgs[key] && !o.Quoted {
		if ms, err := parseDuration(o.Value); err == nil {
			return ms, nil
		}
	}
	return parseValue(o.Value, o.Quoted), nil
}

func runDeclareQueue(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	d := engine.QueueDeclare{Durable: c.Flags["durable"], Exclusive: c.Flags["exclusive"], AutoDelete: c.Flags["auto-delete"], Passive: c.Flags["passive"]}
	if len(c.Args) > 0 {
		d.Queue = c.Args[0]
	}
	args := engine.Table{}
	for _, o := range c.Opts {
		key := o.Key
		if full, ok := queueShorthands[key]; ok {
			key = full
		}
		v, err := optValue(key, o)
		if err != nil {
			return err
		}
		args[key] = v
	}
	if c.Flags["sac"] {
		args["x-single-active-consumer"] = true
	}
	if args["x-queue-type"] == "quorum" && !c.Flags["non-durable"] {
		// Quorum queues are always durable; the script spares the learner
		// from saying so ("non-durable" shows what a client that forgets
		// it gets).
		d.Durable = true
	}
	if len(args) > 0 {
		d.Args = args
	}
	ok, err := r.B.QueueDeclare(id, d)
	if err != nil {
		return err
	}
	if d.Queue == "" || d.Passive {
		fmt.Fprintf(&r.pendingOut, "queue %s messages=%d consumers=%d\n", ok.Queue, ok.MessageCount, ok.ConsumerCount)
	}
	return nil
}

func runDeclareExchange(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	d := engine.ExchangeDeclare{Exchange: c.Args[0], Type: "direct", Durable: c.Flags["durable"], AutoDelete: c.Flags["auto-delete"],
		Internal: c.Flags["internal"], Passive: c.Flags["passive"]}
	if len(c.Args) > 1 {
		d.Type = c.Args[1]
	}
	args := engine.Table{}
	for _, o := range c.Opts {
		key := o.Key
		switch key {
		case "ae", "alternate-exchange":
			key = "alternate-exchange"
		case "delayed-type":
			key = "x-delayed-type"
		}
		args[key] = parseValue(o.Value, o.Quoted)
	}
	if len(args) > 0 {
		d.Args = args
	}
	return r.B.ExchangeDeclare(id, d)
}

func runDeleteQueue(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	n, err := r.B.QueueDelete(id, engine.QueueDelete{Queue: c.Args[0], IfUnused: c.Flags["if-unused"], IfEmpty: c.Flags["if-empty"]})
	if err == nil {
		fmt.Fprintf(&r.pendingOut, "deleted messages=%d\n", n)
	}
	return err
}

func runDeleteExchange(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	return r.B.ExchangeDelete(id, engine.ExchangeDelete{Exchange: c.Args[0], IfUnused: c.Flags["if-unused"]})
}

func runBind(exchangeDest, add bool) func(r *Runner, c *Command) error {
	return func(r *Runner, c *Command) error {
		id, err := r.channel(c)
		if err != nil {
			return err
		}
		key := ""
		if len(c.Args) > 2 {
			key = c.Args[2]
		}
		var args engine.Table
		if len(c.Opts) > 0 {
			args = engine.Table{}
			for _, o := range c.Opts {
				args[o.Key] = parseValue(o.Value, o.Quoted)
			}
		}
		switch {
		case exchangeDest && add:
			return r.B.ExchangeBind(id, engine.ExchangeBind{Destination: c.Args[0], Source: c.Args[1], RoutingKey: key, Args: args})
		case exchangeDest:
			return r.B.ExchangeUnbind(id, engine.ExchangeBind{Destination: c.Args[0], Source: c.Args[1], RoutingKey: key, Args: args})
		case add:
			return r.B.QueueBind(id, engine.QueueBind{Queue: c.Args[0], Exchange: c.Args[1], RoutingKey: key, Args: args})
		default:
			return r.B.QueueUnbind(id, engine.QueueBind{Queue: c.Args[0], Exchange: c.Args[1], RoutingKey: key, Args: args})
		}
	}
}

func runPurge(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	n, err := r.B.QueuePurge(id, c.Args[0])
	if err == nil {
		fmt.Fprintf(&r.pendingOut, "purged messages=%d\n", n)
	}
	return err
}
