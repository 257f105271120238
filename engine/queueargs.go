package engine

import (
	"fmt"
	"strconv"
)

// maxExpiryMs is the largest TTL RabbitMQ accepts, for x-message-ttl,
// x-expires and the expiration property alike: ten years in milliseconds
// (observed, RabbitMQ 3.10.8: 315360000000 accepted, 315360000001 refused
// with {value_too_large,315360000001}).
const maxExpiryMs = 315360000000

// maxPriority is RabbitMQ's ?MAX_SUPPORTED_PRIORITY.
const maxPriority = 255

// argCheck validates one queue argument. It returns RabbitMQ's error term
// (printed with ~p in the 406 text), or "" when the value is acceptable.
type argCheck func(v any, args Table) string

// queueArgChecks are the queue.declare arguments RabbitMQ validates, in the
// order it checks them (observed, RabbitMQ 3.10.8: x-queue-type first, then
// rabbit_amqqueue:declare_args/0's order; with several bad arguments only
// the first is reported). Unknown arguments are accepted and ignored.
var queueArgChecks = []struct {
	key   string
	check argCheck
}{
	{"x-queue-type", checkQueueType},
	{"x-expires", queueArgInts.expires},
	{"x-message-ttl", queueArgInts.messageTTL},
	{"x-dead-letter-exchange", checkShortName},
	{"x-dead-letter-routing-key", checkDLRK},
	{"x-max-length", queueArgInts.nonNegative},
	{"x-max-length-bytes", queueArgInts.nonNegative},
	{"x-max-priority", queueArgInts.maxPriority},
	{"x-overflow", checkOverflow},
	{"x-queue-mode", checkQueueMode},
	{"x-single-active-consumer", checkBool},
	{"x-dead-letter-strategy", checkDLXStrategy},
}

// equivalenceArgs are compared on redeclare, in this order; a difference
// is a 406 (observed order, RabbitMQ 3.10.8). x-delivery-limit is compared
// only for quorum queues: a classic queue ignores it on redeclare.
var equivalenceArgs = []string{
	"x-expires", "x-message-ttl", "x-dead-letter-exchange", "x-dead-letter-routing-key",
	"x-max-length", "x-max-length-bytes", "x-max-priority", "x-overflow",
	"x-single-active-consumer", "x-queue-type", "x-delivery-limit",
}

// typeRefusedArgs are the arguments a queue type refuses whatever their
// value. They are not validated generically; the refusal comes after the
// generic checks (observed, RabbitMQ 3.10.8).
func typeRefusedArgs(quorum bool) []string {
	if quorum {
		return []string{"x-max-priority"}
	}
	return []string{"x-delivery-limit", "x-dead-letter-strategy"}
}

// intRules are the integer checks, parameterised by how a value of the
// wrong type is reported: queue arguments and policy definitions word it
// differently in RabbitMQ.
type intRules struct{ wrongType func(v any) string }

// queueArgInts: RabbitMQ 3.10.8 reports a non-integer queue argument as the
// Erlang string "expected integer, got TYPE", quotes included (consumer
// x-priority uses the same text).
var queueArgInts = intRules{wrongType: func(v any) string { return `"expected integer, got ` + typeName(v) + `"` }}

// policyInts: policy definitions report {unacceptable_type,TYPE}.
var policyInts = intRules{wrongType: func(v any) string { return "{unacceptable_type," + typeName(v) + "}" }}

func (r intRules) integer(v any, _ Table) string {
	if _, ok := asInt64(v); !ok {
		return r.wrongType(v)
	}
	return ""
}

func (r intRules) nonNegative(v any, args Table) string {
	if e := r.integer(v, args); e != "" {
		return e
	}
	if n, _ := asInt64(v); n < 0 {
		return fmt.Sprintf("{value_negative,%d}", n)
	}
	return ""
}

func (r intRules) expires(v any, args Table) string {
	if e := r.integer(v, args); e != "" {
		return e
	}
	n, _ := asInt64(v)
	if n == 0 {
		return "{value_zero,0}"
	}
	return checkExpiry(n)
}

func (r intRules) messageTTL(v any, args Table) string {
	if e := r.integer(v, args); e != "" {
		return e
	}
	n, _ := asInt64(v)
	return checkExpiry(n)
}

func (r intRules) maxPriority(v any, args Table) string {
	if e := r.nonNegative(v, args); e != "" {
		return e
	}
	if n, _ := asInt64(v); n > maxPriority {
		return fmt.Sprintf("{max_value_exceeded,%d}", n)
	}
	return ""
}

func checkExpiry(n int64) string {
	if n < 0 {
		return fmt.Sprintf("{value_negative,%d}", n)
	}
	if n > maxExpiryMs {
		return fmt.Sprintf("{value_too_large,%d}", n)
	}
	return ""
}

func checkLongstr(v any, _ Table) string {
	if _, ok := v.(string); !ok {
		return "{unacceptable_type," + typeName(v) + "}"
	}
	return ""
}

// checkShortName accepts a string that can later be sent as an AMQP short
// string (see shortstr.go): a dead-letter exchange's name becomes the
// exchange of every message dead-lettered through it.
func checkShortName(v any, args Table) string {
	if e := checkLongstr(v, args); e != "" {
		return e
	}
	return ShortStringProblem(v.(string))
}

// checkDLRK accepts a dead-letter routing key: a short name, and only with
// a dead-letter exchange. The length is checked first: it is what would
// break every consumer of the dead letters.
func checkDLRK(v any, args Table) string {
	if e := checkShortName(v, args); e != "" {
		return e
	}
	if _, ok := args["x-dead-letter-exchange"]; !ok {
		return "routing_key_but_no_dlx_defined"
	}
	return ""
}

func checkBool(v any, _ Table) string {
	if _, ok := v.(bool); !ok {
		return "{unacceptable_type," + typeName(v) + "}"
	}
	return ""
}

func checkOverflow(v any, args Table) string {
	if e := checkLongstr(v, args); e != "" {
		return e
	}
	switch v.(string) {
	case OverflowDropHead, OverflowRejectPublish, OverflowRejectPublishDLX:
		return ""
	}
	return "invalid_overflow"
}

func checkQueueType(v any, args Table) string {
	if e := checkLongstr(v, args); e != "" {
		return e
	}
	switch v.(string) {
	case "classic", "quorum":
		return ""
	}
	// Warren has no streams, so "stream" is refused like any other type
	// the broker does not know.
	return fmt.Sprintf(`"unsupported queue type '%s'"`, v)
}

// Overflow modes (x-overflow).
const (
	OverflowDropHead         = "drop-head"
	OverflowRejectPublish    = "reject-publish"
	OverflowRejectPublishDLX = "reject-publish-dlx"
)

// validateNewQueue checks a declare that creates a queue, in RabbitMQ's
// order, and returns the 406 it would send: the dead-letter exchange's type
// (rabbit_channel's own check, with its own wording), the arguments, the
// arguments the queue type refuses, then the quorum type's properties. A
// redeclare of an existing queue is only compared, never validated.
func validateNewQueue(d QueueDeclare, quorum bool, name, vhost string) *Error {
	r := rs("queue", name, vhost)
	m := MethodQueueDeclare
	if v, ok := d.Args["x-dead-letter-exchange"]; ok {
		if _, isStr := v.(string); !isStr {
			return channelErr(PreconditionFailed, m, "invalid type '%s' for arg 'x-dead-letter-exchange' in %s", typeName(v), r)
		}
	}
	refused := typeRefusedArgs(quorum)
	isRefused := func(k string) bool {
		for _, x := range refused {
			if x == k {
				return true
			}
		}
		return false
	}
	for _, c := range queueArgChecks {
		v, ok := d.Args[c.key]
		if !ok || isRefused(c.key) {
			continue
		}
		if term := c.check(v, d.Args); term != "" {
			return channelErr(PreconditionFailed, m, "invalid arg '%s' for %s: %s", c.key, r, term)
		}
	}
	typ := "rabbit_classic_queue"
	if quorum {
		typ = "rabbit_quorum_queue"
	}
	for _, k := range refused {
		if _, ok := d.Args[k]; ok {
			return channelErr(PreconditionFailed, m, "invalid arg '%s' for %s of queue type %s", k, r, typ)
		}
	}
	if !quorum {
		return nil
	}
	// rabbit_quorum_queue:declare/2 checks auto-delete, then exclusive,
	// then durable. An exclusive declare is never durable, so an
	// exclusive quorum queue is reported as 'exclusive-owner'.
	switch {
	case d.AutoDelete:
		return channelErr(PreconditionFailed, m, "invalid property 'auto-delete' for %s", r)
	case d.Exclusive:
		return channelErr(PreconditionFailed, m, "invalid property 'exclusive-owner' for %s", r)
	case !d.Durable:
		return channelErr(PreconditionFailed, m, "invalid property 'non-durable' for %s", r)
	}
	return nil
}

// argEquivalence compares one argument on redeclare, as
// rabbit_misc:assert_args_equivalence does: integer widths are one class.
func argEquivalence(key string, cur, next Table, name, vhost string) *Error {
	a, aok := cur[key]
	b, bok := next[key]
	if !aok && !bok {
		return nil
	}
	if aok && bok {
		if typeClass(a) == typeClass(b) && valuesEqual(a, b) {
			return nil
		}
		return channelErr(PreconditionFailed, MethodQueueDeclare, "inequivalent arg '%s' for %s: received '%s' but current is '%s'",
			key, rs("queue", name, vhost), FormatValue(b), FormatValue(a))
	}
	return channelErr(PreconditionFailed, MethodQueueDeclare, "inequivalent arg '%s' for %s: received %s but current is %s",
		key, rs("queue", name, vhost), describeArg(b, bok), describeArg(a, aok))
}

func describeArg(v any, ok bool) string {
	if !ok {
		return "none"
	}
	return "the value '" + FormatValue(v) + "' of type '" + typeName(v) + "'"
}

func boolText(v bool) string { return strconv.FormatBool(v) }

// checkQueueMode accepts the classic queue modes RabbitMQ 3.x knew. Warren
// keeps every message in memory either way, so the mode changes nothing
// but is still validated (observed, RabbitMQ 3.10.8: "unsupported queue
// mode 'foo'").
func checkQueueMode(v any, args Table) string {
	if e := checkLongstr(v, args); e != "" {
		return e
	}
	switch v.(string) {
	case "default", "lazy":
		return ""
	}
	return `"unsupported queue mode '` + v.(string) + `'"`
}

// checkDLXStrategy validates a quorum queue's x-dead-letter-strategy
// (observed, RabbitMQ 3.10.8: invalid_dlx_strategy). Warren dead-letters
// the same way under both strategies: within one engine nothing is lost
// between queues.
func checkDLXStrategy(v any, args Table) string {
	if e := checkLongstr(v, args); e != "" {
		return e
	}
	switch v.(string) {
	case "at-most-once", "at-least-once":
		return ""
	}
	return "invalid_dlx_strategy"
}
