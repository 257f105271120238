package engine

import (
	"strconv"
	"strings"
)

// Via is the binding that routed a message copy into its queue, as the
// enqueued event and the queue's listing show it: which exchange, and what
// in the binding matched. A Via is made once per binding (and once per
// queue for the default exchange), never per message, and is read-only:
// events and views share it, and it outlives the binding.
type Via struct {
	// Exchange is the binding's source: "" for the default exchange,
	// which binds every queue by its name ("The default exchange is
	// implicitly bound to every queue, with a routing key equal to the
	// queue name", exchanges.html).
	Exchange string
	// Type is how Exchange routes: direct, fanout, topic or headers (for
	// a delayed-message exchange, its x-delayed-type).
	Type string
	// Key is the binding key: a topic binding's pattern, the queue's name
	// for the default exchange. Fanout and headers exchanges ignore it.
	Key string
	// Args are a headers binding's arguments, x-match included; nil for
	// the other types, whose routing ignores arguments.
	Args Table
	// Alternate says that the message came to Exchange through an
	// alternate exchange, because an exchange before it matched nothing
	// (ae.html); Exchange is then the alternate exchange or one bound
	// behind it.
	Alternate bool
}

// String renders v as a trace shows it: "x:KEY" for a direct or topic
// binding (the pattern that matched), "x" alone for fanout, "x:{ARGS}" for
// headers, and "(default):QUEUE" for the default exchange. A part that is
// empty, or holds a space, a quote or '=', is quoted, so the script's
// lexer reads the value back whole.
func (v *Via) String() string {
	var sb strings.Builder
	if v.Exchange == "" {
		sb.WriteString("(default)")
	} else {
		sb.WriteString(quotePart(v.Exchange))
	}
	switch v.Type {
	case KindFanout:
		return sb.String()
	case KindHeaders:
		sb.WriteByte(':')
		sb.WriteString(quotePart(FormatValue(v.Args)))
	default:
		sb.WriteByte(':')
		sb.WriteString(quotePart(v.Key))
	}
	return sb.String()
}

func quotePart(s string) string {
	if s == "" {
		return `""`
	}
	if strings.ContainsAny(s, " \t\"'=") {
		return strconv.Quote(s)
	}
	return s
}

// newVia is the Via of binding bd, reached directly or through an
// alternate exchange.
func newVia(bd *binding, alternate bool) *Via {
	v := &Via{Exchange: bd.src.name, Type: bd.src.route, Key: bd.key, Alternate: alternate}
	if v.Type == KindHeaders {
		v.Args = bd.args
	}
	return v
}

// via returns bd's Via: the one made when it was bound, or for a message
// that came through an alternate exchange a second one, made on first use,
// so that routing never allocates per message.
func (bd *binding) via(alternate bool) *Via {
	if !alternate {
		return bd.viaDirect
	}
	if bd.viaAlt == nil {
		bd.viaAlt = newVia(bd, true)
	}
	return bd.viaAlt
}

// defaultVia is q's binding to the default exchange, made on first use.
func (q *queue) defaultVia() *Via {
	if q.viaDefault == nil {
		q.viaDefault = &Via{Type: KindDirect, Key: q.name}
	}
	return q.viaDefault
}
