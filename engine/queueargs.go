package engine

import (
	"fmt"
	"strconv"
)

// maxExpiryMs is RabbitMQ's ?MAX_EXPIRY_TIMER: TTLs and x-expires above it
// are refused.
const maxExpiryMs = 4294967295

// maxPriority is RabbitMQ's ?MAX_SUPPORTED_PRIORITY.
const maxPriority = 255

// argCheck validates one queue argument. It returns RabbitMQ's error term
// (printed with ~p in the 406 text), or "" when the value is acceptable.
type argCheck func(v any, args Table) string

// queueArgChecks are the queue.declare arguments RabbitMQ validates, in the
// order rabbit_amqqueue:declare_args/0 lists them. Unknown arguments are
// accepted and ignored, as in RabbitMQ.
var queueArgChecks = []struct {
	key   string
	check argCheck
}{
	{"x-expires", checkExpires},
	{"x-message-ttl", checkMessageTTL},
	{"x-dead-letter-exchange", checkLongstr},
	{"x-dead-letter-routing-key", checkDLRK},
	{"x-max-length", checkNonNegInt},
	{"x-max-length-bytes", checkNonNegInt},
	{"x-max-priority", checkMaxPriority},
	{"x-overflow", checkOverflow},
	{"x-single-active-consumer", checkBool},
	{"x-queue-type", checkQueueType},
	{"x-delivery-limit", checkInt},
}

// equivalenceArgs are compared on redeclare; a difference is a 406.
var equivalenceArgs = []string{
	"x-message-ttl", "x-dead-letter-exchange", "x-dead-letter-routing-key", "x-expires",
	"x-max-length", "x-max-length-bytes", "x-max-priority", "x-overflow",
	"x-queue-type", "x-single-active-consumer", "x-delivery-limit",
}

func checkInt(v any, _ Table) string {
	if _, ok := asInt64(v); !ok {
		return "{unacceptable_type," + TypeName(v) + "}"
	}
	return ""
}

func checkNonNegInt(v any, args Table) string {
	if e := checkInt(v, args); e != "" {
		return e
	}
	if n, _ := asInt64(v); n < 0 {
		return fmt.Sprintf("{value_negative,%d}", n)
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

func checkExpires(v any, args Table) string {
	if e := checkInt(v, args); e != "" {
		return e
	}
	n, _ := asInt64(v)
	if n == 0 {
		return "{value_zero,0}"
	}
	return checkExpiry(n)
}

func checkMessageTTL(v any, args Table) string {
	if e := checkInt(v, args); e != "" {
		return e
	}
	n, _ := asInt64(v)
	return checkExpiry(n)
}

func checkMaxPriority(v any, args Table) string {
	if e := checkNonNegInt(v, args); e != "" {
		return e
	}
	if n, _ := asInt64(v); n > maxPriority {
		return fmt.Sprintf("{max_value_exceeded,%d}", n)
	}
	return ""
}

func checkLongstr(v any, _ Table) string {
	if _, ok := v.(string); !ok {
		return "{unacceptable_type," + TypeName(v) + "}"
	}
	return ""
}

func checkDLRK(v any, args Table) string {
	if e := checkLongstr(v, args); e != "" {
		return e
	}
	if _, ok := args["x-dead-letter-exchange"]; !ok {
		return "routing_key_but_no_dlx_defined"
	}
	return ""
}

func checkBool(v any, _ Table) string {
	if _, ok := v.(bool); !ok {
		return "{unacceptable_type," + TypeName(v) + "}"
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
	return "invalid_queue_type"
}

// Overflow modes (x-overflow).
const (
	OverflowDropHead         = "drop-head"
	OverflowRejectPublish    = "reject-publish"
	OverflowRejectPublishDLX = "reject-publish-dlx"
)

// validateQueueArgs checks declare arguments the way RabbitMQ does and
// returns the 406 it would send.
func validateQueueArgs(args Table, name, vhost string) *Error {
	for _, c := range queueArgChecks {
		v, ok := args[c.key]
		if !ok {
			continue
		}
		if term := c.check(v, args); term != "" {
			return channelErr(PreconditionFailed, MethodQueueDeclare, "invalid arg '%s' for %s: %s", c.key, rs("queue", name, vhost), term)
		}
	}
	return nil
}

// validateQuorum applies the quorum queue type's extra rules.
func validateQuorum(d QueueDeclare, name, vhost string) *Error {
	r := rs("queue", name, vhost)
	switch {
	case !d.Durable:
		return channelErr(PreconditionFailed, MethodQueueDeclare, "invalid property 'non-durable' for %s", r)
	case d.Exclusive:
		return channelErr(PreconditionFailed, MethodQueueDeclare, "invalid property 'exclusive' for %s", r)
	case d.AutoDelete:
		return channelErr(PreconditionFailed, MethodQueueDeclare, "invalid property 'auto-delete' for %s", r)
	}
	if _, ok := d.Args["x-max-priority"]; ok {
		return channelErr(PreconditionFailed, MethodQueueDeclare, "invalid arg 'x-max-priority' for %s", r)
	}
	if v, ok := d.Args["x-overflow"]; ok && v == OverflowRejectPublishDLX {
		return channelErr(PreconditionFailed, MethodQueueDeclare, "invalid arg 'x-overflow' with value 'reject-publish-dlx' for %s", r)
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
	return "the value '" + FormatValue(v) + "' of type '" + TypeName(v) + "'"
}

func boolText(v bool) string { return strconv.FormatBool(v) }
