package engine

import (
	"strings"

	"warren/engine/topic"
)

// Exchange types.
const (
	KindDirect  = "direct"
	KindFanout  = "fanout"
	KindTopic   = "topic"
	KindHeaders = "headers"
	KindDelayed = "x-delayed-message"
)

// exchange routes messages to queues and other exchanges through its
// bindings, indexed per type: a map for direct, a trie for topic.
type exchange struct {
	vhost      *vhost
	name       string
	kind       string
	durable    bool
	autoDelete bool
	internal   bool
	args       Table
	// route is the type whose rules route messages: kind, or for a
	// delayed-message exchange its x-delayed-type.
	route   string
	deleted bool

	bindings []*binding // as source, in creation order
	// byDest has the same bindings by destination, each list in creation
	// order: a bind looks for its duplicate among the bindings to its
	// destination (findBinding), a deleted queue for its own, not among
	// all 100,000 of a fanout (indexDest).
	byDest map[dest][]*binding
	direct map[string][]*binding
	// directMemo remembers the last key routed and its bindings: map
	// lookups hash in software under WebAssembly, and a publisher usually
	// repeats its key. Any binding change forgets it.
	directMemo routeMemo[[]*binding]
	topic      topic.Trie[*binding]

	visit uint64 // routing generation, for loop detection without a map
	// listed is the exchange's index in its vhost's counts.exchangeNames.
	listed int

	// held lists a delayed-message exchange's waiting messages in publish
	// order; a released one leaves a nil (see unhold).
	held     []*delayedMsg
	heldGone int // nils in held
}

// dest is a binding destination: a queue or an exchange.
type dest struct {
	q *queue
	x *exchange
}

func (d dest) name() string {
	if d.q != nil {
		return d.q.name
	}
	return d.x.name
}

// binding is one source → destination binding.
type binding struct {
	src *exchange
	dst dest
	// viaDirect and viaAlt show the binding in enqueued events, reached
	// directly or through an alternate exchange (via.go). viaDirect sits
	// beside dst, which routing reads with it.
	viaDirect, viaAlt *Via
	key               string
	args              Table
	xmatch            string // headers exchanges: all, any, all-with-x, any-with-x
	// serial orders bindings by creation, broker-wide, so that an
	// exchange's bindings list is sorted by it (see BindingCursor).
	serial uint64
}

func newExchange(v *vhost, name, kind string) *exchange {
	return &exchange{vhost: v, name: name, kind: kind, route: kind, direct: map[string][]*binding{}}
}

// ExchangeDeclare is exchange.declare.
type ExchangeDeclare struct {
	Exchange   string
	Type       string
	Passive    bool
	Durable    bool
	AutoDelete bool
	Internal   bool
	Args       Table
}

func validExchangeType(t string) bool {
	switch t {
	case KindDirect, KindFanout, KindTopic, KindHeaders, KindDelayed:
		return true
	}
	return false
}

// atomTypeNames are type names observed (RabbitMQ 3.10.8) to be reported as
// "invalid" rather than "unknown": see checkExchangeType.
var atomTypeNames = map[string]bool{"": true, "foo": true, "Direct": true, "queue": true, "match": true,
	"true": true, "false": true, "undefined": true, "ok": true, "error": true}

// checkExchangeType is rabbit_exchange:check_type/1: a type that is not
// registered is connection error 503. RabbitMQ says "invalid exchange type"
// when the name is already an Erlang atom in the broker and "unknown
// exchange type" otherwise ('bogus', 'topics', 'DIRECT', 'x-foo' were
// unknown); the engine cannot know the atom table, so it treats the names
// observed as atoms, and a few certain ones, as invalid.
func checkExchangeType(t string, m Method) *Error {
	if validExchangeType(t) {
		return nil
	}
	if atomTypeNames[t] {
		return connectionErr(CommandInvalid, m, "invalid exchange type '%s'", t)
	}
	return connectionErr(CommandInvalid, m, "unknown exchange type '%s'", t)
}

func (b *Broker) declareExchange(id ChannelID, d ExchangeDeclare) error {
	ch, err := b.channelFor(id, MethodExchangeDeclare)
	if err != nil {
		return err
	}
	return b.fail(ch, b.exchangeDeclare(ch, d))
}

func (b *Broker) exchangeDeclare(ch *channel, d ExchangeDeclare) *Error {
	v := ch.conn.vhost
	m := MethodExchangeDeclare
	if d.Passive {
		// Even a passive declare of the default exchange is refused
		// (observed, RabbitMQ 3.10.8).
		if d.Exchange == "" {
			return channelErr(AccessRefused, m, "operation not permitted on the default exchange")
		}
		// access-control.md, "How Permissions Work": "exchange.declare
		// (passive=true)" needs no permission; the type is not compared
		// either (observed, RabbitMQ 3.10.8: a user whose patterns all
		// miss the name gets declare-ok, or 404 for a missing exchange,
		// whatever type it names).
		if _, ok := v.exchanges[d.Exchange]; !ok {
			return channelErr(NotFound, m, "no %s", rs("exchange", d.Exchange, v.name))
		}
		return nil
	}
	if e := checkExchangeType(d.Type, m); e != nil {
		return e
	}
	if d.Exchange == "" {
		return channelErr(AccessRefused, m, "operation not permitted on the default exchange")
	}
	if e := ch.conn.permitted(accessConfigure, "exchange", d.Exchange, m); e != nil {
		return e
	}
	x, exists := v.exchanges[d.Exchange]
	if !exists {
		if p := ShortStringProblem(d.Exchange); p != "" {
			return badName(m, "exchange name", d.Exchange, p)
		}
		if strings.HasPrefix(d.Exchange, "amq.") {
			return channelErr(AccessRefused, m, "exchange name '%s' contains reserved prefix 'amq.*'", d.Exchange)
		}
		if ae, ok := d.Args["alternate-exchange"]; ok {
			name, isStr := ae.(string)
			if !isStr {
				return channelErr(PreconditionFailed, m, "invalid type '%s' for arg 'alternate-exchange' in %s", typeName(ae), rs("exchange", d.Exchange, v.name))
			}
			// It names an exchange, and no exchange can have a name
			// that is not a short string: say so now rather than
			// route to nothing.
			if p := ShortStringProblem(name); p != "" {
				return channelErr(PreconditionFailed, m, "invalid arg 'alternate-exchange' for %s: %s", rs("exchange", d.Exchange, v.name), p)
			}
			// access-control.md: exchange.declare with an AE needs read
			// on the exchange and write on the AE; rabbit_channel checks
			// them only when the exchange is being created.
			if e := ch.conn.permitted(accessRead, "exchange", d.Exchange, m); e != nil {
				return e
			}
			if e := ch.conn.permitted(accessWrite, "exchange", name, m); e != nil {
				return e
			}
		}
		route := d.Type
		if d.Type == KindDelayed {
			// The plugin's validate/1: the delayed type must be a string
			// naming a registered type other than itself.
			dt, isStr := d.Args["x-delayed-type"].(string)
			switch {
			case !isStr:
				return channelErr(PreconditionFailed, m, "Invalid argument, 'x-delayed-type' must be an existing exchange type")
			case dt == KindDelayed:
				return channelErr(PreconditionFailed, m, "Invalid argument, 'x-delayed-message' can't be used for 'x-delayed-type'")
			}
			if e := checkExchangeType(dt, m); e != nil {
				return e
			}
			route = dt
		}
		x = newExchange(v, d.Exchange, d.Type)
		x.durable, x.autoDelete, x.internal, x.args, x.route = d.Durable, d.AutoDelete, d.Internal, d.Args.Clone(), route
		v.addExchange(x)
		b.emit(Event{Kind: EvExchangeDeclared, Vhost: v.name, Channel: ch.id, Exchange: x.name, Detail: &EventDetail{ExchangeType: x.kind, Features: x.describe()}})
		return nil
	}
	r := rs("exchange", x.name, v.name)
	switch {
	case x.kind != d.Type:
		return channelErr(PreconditionFailed, m, "inequivalent arg 'type' for %s: received '%s' but current is '%s'", r, d.Type, x.kind)
	case x.durable != d.Durable:
		return channelErr(PreconditionFailed, m, "inequivalent arg 'durable' for %s: received '%s' but current is '%s'", r, boolText(d.Durable), boolText(x.durable))
	case x.autoDelete != d.AutoDelete:
		return channelErr(PreconditionFailed, m, "inequivalent arg 'auto_delete' for %s: received '%s' but current is '%s'", r, boolText(d.AutoDelete), boolText(x.autoDelete))
	case x.internal != d.Internal:
		return channelErr(PreconditionFailed, m, "inequivalent arg 'internal' for %s: received '%s' but current is '%s'", r, boolText(d.Internal), boolText(x.internal))
	}
	// rabbit_exchange:assert_args_equivalence compares alternate-exchange
	// only; the delayed-message type delegates to its x-delayed-type's
	// module, which does the same, so x-delayed-type is never compared.
	if e := argEquivalence("alternate-exchange", x.args, d.Args, x.name, v.name); e != nil {
		e.Text = strings.Replace(e.Text, "for queue ", "for exchange ", 1)
		e.Method = m
		return e
	}
	return nil
}

func (x *exchange) describe() string {
	var parts []string
	if x.durable {
		parts = append(parts, "durable")
	}
	if x.autoDelete {
		parts = append(parts, "auto-delete")
	}
	if x.internal {
		parts = append(parts, "internal")
	}
	for _, k := range x.args.Keys() {
		parts = append(parts, k+"="+FormatTyped(x.args[k]))
	}
	return strings.Join(parts, " ")
}

// alternate returns the alternate exchange name: the argument, or else the
// policy's alternate-exchange key (the argument takes precedence).
func (x *exchange) alternate() string {
	if ae, ok := x.args["alternate-exchange"].(string); ok {
		return ae
	}
	if p := x.vhost.policyFor(x.name, false, false); p != nil {
		if ae, ok := p.Definition["alternate-exchange"].(string); ok {
			return ae
		}
	}
	return ""
}

// ExchangeDelete is exchange.delete.
type ExchangeDelete struct {
	Exchange string
	IfUnused bool
}

func (b *Broker) exchangeDelete(id ChannelID, d ExchangeDelete) error {
	ch, err := b.channelFor(id, MethodExchangeDelete)
	if err != nil {
		return err
	}
	v := ch.conn.vhost
	m := MethodExchangeDelete
	if d.Exchange == "" {
		return b.fail(ch, channelErr(AccessRefused, m, "operation not permitted on the default exchange"))
	}
	if strings.HasPrefix(d.Exchange, "amq.") {
		return b.fail(ch, channelErr(AccessRefused, m, "deletion of system %s not allowed", rs("exchange", d.Exchange, v.name)))
	}
	if e := ch.conn.permitted(accessConfigure, "exchange", d.Exchange, m); e != nil {
		return b.fail(ch, e)
	}
	x, ok := v.exchanges[d.Exchange]
	if !ok {
		return nil
	}
	if d.IfUnused && len(x.bindings) > 0 {
		return b.fail(ch, channelErr(PreconditionFailed, m, "%s in use", rs("exchange", x.name, v.name)))
	}
	x.delete()
	b.flush()
	return nil
}

func (x *exchange) delete() {
	if x.deleted {
		return
	}
	x.deleted = true
	v := x.vhost
	for _, bd := range append([]*binding(nil), x.bindings...) {
		v.removeBinding(bd)
	}
	v.dropExchange(x)
	v.b.emit(Event{Kind: EvExchangeDeleted, Vhost: v.name, Exchange: x.name})
	// Removing the bindings to x may auto-delete their sources in turn.
	v.unbindDestination(dest{x: x})
	// Messages a delayed-message exchange holds stay scheduled: the plugin
	// does not remove them (see releaseDelayed).
}
