package engine

import (
	"fmt"
	"unicode/utf8"
)

// MaxShortString is the longest AMQP short string, in bytes: its length is
// one octet.
const MaxShortString = 255

// Names and keys the broker will later send in an AMQP short string —
// queue, exchange and vhost names, routing and binding keys, consumer
// tags, dead-letter and alternate exchange names, the dead-letter routing
// key — are checked when they are set, by every entry point, so that no
// driver can store what the AMQP encoder would have to refuse. A message
// holding a 300-byte dead-letter routing key would otherwise break the
// connection of every consumer it reached, and stay in the queue to do it
// again. Over AMQP itself such names cannot arrive (a short string cannot
// be longer, and RabbitMQ's parser checks their UTF-8); they come through
// table values (queue arguments, policy definitions) and the other
// drivers: the management API, scripts, the console and the browser.

// ShortStringProblem says why s cannot be such a name ("" when it can): it
// must fit in 255 bytes and be valid UTF-8, as RabbitMQ's parser requires
// of every short string in a method without content.
func ShortStringProblem(s string) string {
	if p := shortStringLength(s); p != "" {
		return p
	}
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	return ""
}

// shortStringLength checks the length only. It is for the short strings
// of basic.publish, a method with content, whose short strings RabbitMQ
// does not check for UTF-8 (rabbit_binary_parser checks only methods
// without content): a routing key or a property that is not UTF-8 is
// delivered as it was published.
func shortStringLength(s string) string {
	if len(s) > MaxShortString {
		return fmt.Sprintf("%d bytes long, more than the %d an AMQP short string holds", len(s), MaxShortString)
	}
	return ""
}

// badName is the 406 for a name that cannot be a short string, naming what
// it is ("queue name") and, when it is printable, how it begins.
func badName(m Method, what, name, problem string) *Error {
	if utf8.ValidString(name) {
		return channelErr(PreconditionFailed, m, "%s '%s' is %s", what, clip(name), problem)
	}
	return channelErr(PreconditionFailed, m, "%s is %s", what, problem)
}

// clip shortens a long name for an error text, at a character boundary,
// so that the reply text still fits a short string itself.
func clip(s string) string {
	const keep = 48
	if len(s) <= keep {
		return s
	}
	n := keep
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// checkPropertyLengths refuses content properties the AMQP encoder could
// not send on: a short-string property, or a header name at any depth,
// longer than 255 bytes.
//
// It is on every publish's path, so the common case is one comparison: the
// lengths OR'ed together exceed 255 exactly when one of them does. Only
// headers cost more, a walk over their names.
func checkPropertyLengths(p *Properties) *Error {
	if len(p.ContentType)|len(p.ContentEncoding)|len(p.CorrelationID)|len(p.ReplyTo)|len(p.Expiration)|
		len(p.MessageID)|len(p.Type)|len(p.UserID)|len(p.AppID)|len(p.ClusterID) > MaxShortString {
		fields := [...]struct{ name, v string }{
			{"content_type", p.ContentType}, {"content_encoding", p.ContentEncoding},
			{"correlation_id", p.CorrelationID}, {"reply_to", p.ReplyTo}, {"expiration", p.Expiration},
			{"message_id", p.MessageID}, {"type", p.Type}, {"user_id", p.UserID}, {"app_id", p.AppID},
			{"cluster_id", p.ClusterID},
		}
		for _, f := range fields {
			if problem := shortStringLength(f.v); problem != "" {
				return badName(MethodBasicPublish, "property "+f.name, f.v, problem)
			}
		}
	}
	if len(p.Headers) == 0 {
		return nil
	}
	if k := longFieldName(p.Headers); k != "" {
		return badName(MethodBasicPublish, "header name", k, shortStringLength(k))
	}
	return nil
}

// longFieldName returns a field name in v, or in a table nested in it,
// that is longer than a short string, or "" when there is none. Of several
// it returns the least, so that the error never depends on map order.
func longFieldName(v any) string {
	found := ""
	switch x := v.(type) {
	case Table:
		for k, e := range x {
			if len(k) > MaxShortString {
				found = leastName(found, k)
			}
			found = leastName(found, longFieldName(e))
		}
	case []any:
		for _, e := range x {
			found = leastName(found, longFieldName(e))
		}
	}
	return found
}

// leastName is the lesser of two names, ignoring an empty one.
func leastName(a, b string) string {
	if a == "" || (b != "" && b < a) {
		return b
	}
	return a
}
