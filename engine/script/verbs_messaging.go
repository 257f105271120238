package script

import (
	"strconv"
	"strings"

	"warren/engine"
)

func init() {
	register(&verbSpec{
		name: "publish", minArgs: 1, maxArgs: 3, anyOpt: true, flags: []string{"mandatory", "persistent", "immediate"},
		usage: "publish [EXCHANGE] ROUTING-KEY [BODY] [mandatory] [persistent] [expiration=MS] [priority=N] [delay=MS] [cc=k1,k2] [bcc=k1,k2] [count=N] [id=ID] [type=T] [reply-to=Q] [correlation-id=ID] [content-type=T] [content-encoding=E] [app-id=A] [user-id=U] [cluster-id=C] [timestamp=S] [delivery-mode=N] [headers={}] [header.NAME=VALUE ...]",
		run:   runPublish,
	})
	register(&verbSpec{
		name: "consume", minArgs: 1, maxArgs: 1, flags: []string{"no-ack", "exclusive"}, opts: []string{"tag", "priority", "prefetch"},
		usage: "consume QUEUE [tag=TAG] [no-ack] [exclusive] [priority=N] [prefetch=N]", run: runConsume,
	})
	register(&verbSpec{name: "cancel", minArgs: 1, maxArgs: 1, usage: "cancel CONSUMER-TAG", run: runCancel})
	register(&verbSpec{name: "qos", minArgs: 1, maxArgs: 1, flags: []string{"global"}, opts: []string{"size"}, usage: "qos PREFETCH-COUNT [global] [size=PREFETCH-SIZE]", run: runQos})
	register(&verbSpec{name: "get", minArgs: 1, maxArgs: 1, flags: []string{"no-ack"}, usage: "get QUEUE [no-ack]", run: runGet})
	register(&verbSpec{name: "ack", minArgs: 1, maxArgs: 1, flags: []string{"multiple"}, usage: "ack TAG|last|all [multiple]", run: runAck})
	register(&verbSpec{name: "nack", minArgs: 1, maxArgs: 1, flags: []string{"multiple"}, opts: []string{"requeue"}, usage: "nack TAG|last|all [multiple] [requeue=false]", run: runNack})
	register(&verbSpec{name: "reject", minArgs: 1, maxArgs: 1, opts: []string{"requeue"}, usage: "reject TAG|last [requeue=false]", run: runReject})
	register(&verbSpec{name: "recover", maxArgs: 0, opts: []string{"requeue"}, usage: "recover [requeue=false]", run: runRecover})
	register(&verbSpec{name: "confirm", maxArgs: 0, usage: "confirm   (confirm.select on the channel)", run: runConfirm})
	register(&verbSpec{name: "tx select", maxArgs: 0, usage: "tx select|commit|rollback", run: runTx("select")})
	register(&verbSpec{name: "tx commit", maxArgs: 0, usage: "tx commit", run: runTx("commit")})
	register(&verbSpec{name: "tx rollback", maxArgs: 0, usage: "tx rollback", run: runTx("rollback")})
	register(&verbSpec{name: "open", minArgs: 1, maxArgs: 1, opts: []string{"vhost"}, usage: "open CHANNEL [vhost=V]   (CHANNEL is CONN or CONN.N; also selects it)", run: runOpen})
	register(&verbSpec{name: "use", minArgs: 1, maxArgs: 1, usage: "use CHANNEL   (select the channel later commands run on)", run: runUse})
	register(&verbSpec{name: "close", minArgs: 0, maxArgs: 1, usage: "close [CHANNEL]", run: runClose})
	register(&verbSpec{name: "disconnect", minArgs: 0, maxArgs: 1, usage: "disconnect [CONNECTION]", run: runDisconnect})
}

// publishProps maps publish options to basic properties. Each option
// makes its property present, with whatever value it gives, empty or zero
// included (content-type="" or priority=0), as an AMQP client sends it.
func publishProps(c *Command) (*engine.Properties, int, error) {
	p := &engine.Properties{}
	set := false
	count := 1
	headers := engine.Table{}
	for _, o := range c.Opts {
		if f, ok := propertyOptions[o.Key]; ok {
			p.Present |= f
		}
		switch {
		case o.Key == "headers":
			// Headers present and empty; named headers are header.NAME.
			if o.Value != "{}" {
				return nil, 0, newError(KeyBadHeaders, "value", quote(o.Value), "empty", "{}")
			}
		case o.Key == "delivery-mode":
			n, err := strconv.Atoi(o.Value)
			if err != nil || n < 0 || n > 255 {
				return nil, 0, newError(KeyBadDeliveryMode, "value", quote(o.Value))
			}
			p.DeliveryMode = uint8(n)
		case o.Key == "cluster-id":
			p.ClusterID = o.Value
		case o.Key == "expiration":
			p.Expiration = o.Value
			if !o.Quoted {
				if ms, err := parseDuration(o.Value); err == nil && !isPlainInt(o.Value) {
					p.Expiration = strconv.FormatInt(ms, 10)
				}
			}
		case o.Key == "priority":
			n, err := strconv.Atoi(o.Value)
			if err != nil || n < 0 || n > 255 {
				return nil, 0, newError(KeyBadPriority, "value", quote(o.Value))
			}
			p.Priority = uint8(n)
		case o.Key == "delay":
			ms, err := parseDuration(o.Value)
			if err != nil {
				return nil, 0, err
			}
			headers["x-delay"] = ms
		case o.Key == "cc" || o.Key == "bcc":
			arr := []any{}
			for _, k := range strings.Split(o.Value, ",") {
				arr = append(arr, k)
			}
			headers[strings.ToUpper(o.Key)] = arr
		case o.Key == "count":
			n, err := strconv.Atoi(o.Value)
			if err != nil || n < 1 || n > 1_000_000 {
				return nil, 0, newError(KeyBadCount, "value", quote(o.Value))
			}
			count = n
			continue
		case o.Key == "id" || o.Key == "message-id":
			p.MessageID = o.Value
		case o.Key == "type":
			p.Type = o.Value
		case o.Key == "reply-to":
			p.ReplyTo = o.Value
		case o.Key == "correlation-id":
			p.CorrelationID = o.Value
		case o.Key == "content-type":
			p.ContentType = o.Value
		case o.Key == "content-encoding":
			p.ContentEncoding = o.Value
		case o.Key == "app-id":
			p.AppID = o.Value
		case o.Key == "user-id":
			p.UserID = o.Value
		case o.Key == "timestamp":
			n, err := strconv.ParseInt(o.Value, 10, 64)
			if err != nil {
				return nil, 0, newError(KeyBadTimestamp, "value", quote(o.Value))
			}
			p.Timestamp = engine.Timestamp(n)
		case strings.HasPrefix(o.Key, "header.") || strings.HasPrefix(o.Key, "h."):
			name := o.Key[strings.IndexByte(o.Key, '.')+1:]
			headers[name] = parseValue(o.Value, o.Quoted)
		default:
			return nil, 0, newError(KeyPublishOption, "option", quote(o.Key))
		}
		set = true
	}
	if c.Flags["persistent"] {
		p.DeliveryMode = 2
		p.Present |= engine.FlagDeliveryMode
		set = true
	}
	if len(headers) > 0 {
		p.Headers = headers
		p.Present |= engine.FlagHeaders
		set = true
	}
	if !set {
		return nil, count, nil
	}
	return p, count, nil
}

// propertyOptions are the publish options that set one basic property
// each (header.NAME, delay, cc and bcc make headers present through the
// table they fill).
var propertyOptions = map[string]engine.PropertyFlags{
	"content-type": engine.FlagContentType, "content-encoding": engine.FlagContentEncoding, "headers": engine.FlagHeaders,
	"delivery-mode": engine.FlagDeliveryMode, "priority": engine.FlagPriority, "correlation-id": engine.FlagCorrelationID,
	"reply-to": engine.FlagReplyTo, "expiration": engine.FlagExpiration, "id": engine.FlagMessageID, "message-id": engine.FlagMessageID,
	"timestamp": engine.FlagTimestamp, "type": engine.FlagType, "user-id": engine.FlagUserID, "app-id": engine.FlagAppID,
	"cluster-id": engine.FlagClusterID,
}

func isPlainInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func runPublish(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	var ex, key, body string
	switch len(c.Args) {
	case 1:
		key = c.Args[0]
	case 2:
		key, body = c.Args[0], c.Args[1]
	case 3:
		ex, key, body = c.Args[0], c.Args[1], c.Args[2]
	}
	props, count, err := publishProps(c)
	if err != nil {
		return err
	}
	for i := 0; i < count; i++ {
		err := r.B.BasicPublish(id, engine.BasicPublish{Exchange: ex, RoutingKey: key, Mandatory: c.Flags["mandatory"], Immediate: c.Flags["immediate"], Props: props, Body: []byte(body)})
		if err != nil {
			return err
		}
	}
	return nil
}

func runConsume(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	if v, ok := c.Opt("prefetch"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 65535 {
			return newError(KeyBadPrefetch, "value", quote(v))
		}
		if err := r.B.BasicQos(id, engine.BasicQos{PrefetchCount: uint16(n)}); err != nil {
			return err
		}
	}
	bc := engine.BasicConsume{Queue: c.Args[0], NoAck: c.Flags["no-ack"], Exclusive: c.Flags["exclusive"]}
	bc.ConsumerTag, _ = c.Opt("tag")
	if v, ok := c.Opt("priority"); ok {
		bc.Args = engine.Table{"x-priority": parseValue(v, false)}
	}
	_, err = r.B.BasicConsume(id, bc)
	return err
}

func runCancel(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	return r.B.BasicCancel(id, c.Args[0])
}

func runQos(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Args[0])
	if err != nil || n < 0 || n > 65535 {
		return newError(KeyBadPrefetchCount, "value", quote(c.Args[0]))
	}
	var size uint64
	if v, ok := c.Opt("size"); ok {
		if size, err = strconv.ParseUint(v, 10, 32); err != nil {
			return newError(KeyBadPrefetchSize, "value", quote(v))
		}
	}
	return r.B.BasicQos(id, engine.BasicQos{PrefetchSize: uint32(size), PrefetchCount: uint16(n), Global: c.Flags["global"]})
}

func runGet(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	_, ok, err := r.B.BasicGet(id, engine.BasicGet{Queue: c.Args[0], NoAck: c.Flags["no-ack"]})
	if err == nil && !ok {
		r.pendingOut.WriteString("get-empty\n")
	}
	return err
}

// tagArg reads a delivery tag: a number, "last" (the last delivery seen)
// or "all" (0 with multiple).
func (r *Runner) tagArg(s string) (uint64, bool, error) {
	switch s {
	case "last":
		return r.lastTag, false, nil
	case "all":
		return 0, true, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false, newError(KeyBadDeliveryTag, "value", quote(s))
	}
	return n, false, nil
}

func requeueOpt(c *Command) (bool, error) {
	v, ok := c.Opt("requeue")
	if !ok {
		return true, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, newError(KeyBadRequeue, "value", quote(v))
	}
	return b, nil
}

func runAck(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	tag, all, err := r.tagArg(c.Args[0])
	if err != nil {
		return err
	}
	return r.B.Apply(engine.CmdBasicAck{Channel: id, DeliveryTag: tag, Multiple: all || c.Flags["multiple"]}).Err
}

func runNack(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	tag, all, err := r.tagArg(c.Args[0])
	if err != nil {
		return err
	}
	rq, err := requeueOpt(c)
	if err != nil {
		return err
	}
	return r.B.Apply(engine.CmdBasicNack{Channel: id, DeliveryTag: tag, Multiple: all || c.Flags["multiple"], Requeue: rq}).Err
}

func runReject(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	tag, _, err := r.tagArg(c.Args[0])
	if err != nil {
		return err
	}
	rq, err := requeueOpt(c)
	if err != nil {
		return err
	}
	return r.B.Apply(engine.CmdBasicReject{Channel: id, DeliveryTag: tag, Requeue: rq}).Err
}

func runRecover(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	rq, err := requeueOpt(c)
	if err != nil {
		return err
	}
	return r.B.Apply(engine.CmdBasicRecover{Channel: id, Requeue: rq}).Err
}

func runConfirm(r *Runner, c *Command) error {
	id, err := r.channel(c)
	if err != nil {
		return err
	}
	return r.B.ConfirmSelect(id)
}

func runTx(what string) func(r *Runner, c *Command) error {
	return func(r *Runner, c *Command) error {
		id, err := r.channel(c)
		if err != nil {
			return err
		}
		switch what {
		case "select":
			return r.B.TxSelect(id)
		case "commit":
			return r.B.TxCommit(id)
		}
		return r.B.TxRollback(id)
	}
}

func runOpen(r *Runner, c *Command) error {
	vh, ok := c.Opt("vhost")
	if !ok {
		vh = "/"
	}
	name := c.Args[0]
	if ch, exists := r.chans[name]; exists && ch.open {
		return newError(KeyChannelAlreadyOpen, "channel", name)
	}
	if ch, exists := r.chans[name]; exists {
		ch.vhost = vh
	}
	if _, err := r.ensureChannel(name, vh); err != nil {
		return err
	}
	r.current = name
	return nil
}

func runUse(r *Runner, c *Command) error {
	r.current = c.Args[0]
	return nil
}

func runClose(r *Runner, c *Command) error {
	name := r.current
	if len(c.Args) > 0 {
		name = c.Args[0]
	}
	ch, ok := r.chans[name]
	if !ok || !ch.open {
		return newError(KeyChannelNotOpen, "channel", name)
	}
	r.B.CloseChannel(ch.id)
	return nil
}

func runDisconnect(r *Runner, c *Command) error {
	name := r.current
	if len(c.Args) > 0 {
		name = c.Args[0]
	}
	if ch, ok := r.chans[name]; ok {
		name = ch.conn
	}
	id, ok := r.conns[name]
	if !ok {
		return newError(KeyConnectionNotOpen, "connection", name)
	}
	r.B.CloseConnection(id)
	return nil
}
