package main

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// typedValue renders a field value with its AMQP type, named as RabbitMQ
// names them in its error texts (signedint, long, longstr ...), so that a
// header that changes type shows up as a difference. Timestamps in headers
// are the broker's clock (x-death time) and are shown as <time>.
func typedValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "void"
	case bool:
		return fmt.Sprintf("bool:%t", x)
	case uint8:
		return fmt.Sprintf("unsignedbyte:%d", x)
	case int8:
		return fmt.Sprintf("byte:%d", x)
	case int16:
		return fmt.Sprintf("short:%d", x)
	case int32:
		return fmt.Sprintf("signedint:%d", x)
	case int64:
		return fmt.Sprintf("long:%d", x)
	case float32:
		return fmt.Sprintf("float:%g", x)
	case float64:
		return fmt.Sprintf("double:%g", x)
	case amqp.Decimal:
		return fmt.Sprintf("decimal:%d/10^%d", x.Value, x.Scale)
	case string:
		return "longstr:" + strconv.Quote(x)
	case []byte:
		return "binary:" + strconv.Quote(string(x))
	case time.Time:
		return "timestamp:<time>"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = typedValue(e)
		}
		return "array[" + strings.Join(parts, ", ") + "]"
	case amqp.Table:
		return "table{" + tableBody(x) + "}"
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// tableBody renders a table's entries sorted by key: amqp091-go decodes
// tables into maps, so the wire order is not observable here.
func tableBody(t amqp.Table) string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + typedValue(t[k])
	}
	return strings.Join(parts, ", ")
}

// message renders a delivered or fetched message: one line of method
// fields and body, then one line per property that is set and one per
// header (x-death one line per entry), so a diff points at the field.
func message(head string, d amqp.Delivery) []string {
	lines := []string{fmt.Sprintf("%s exchange=%q rk=%q redelivered=%t body=%s", head, d.Exchange, d.RoutingKey, d.Redelivered, bodyText(d.Body))}
	prop := func(name, v string) {
		if v != "" {
			lines = append(lines, fmt.Sprintf("    prop %s=%q", name, v))
		}
	}
	prop("content-type", d.ContentType)
	prop("content-encoding", d.ContentEncoding)
	if d.DeliveryMode != 0 {
		prop("delivery-mode", strconv.Itoa(int(d.DeliveryMode)))
	}
	if d.Priority != 0 {
		prop("priority", strconv.Itoa(int(d.Priority)))
	}
	prop("correlation-id", d.CorrelationId)
	prop("reply-to", d.ReplyTo)
	prop("expiration", d.Expiration)
	prop("message-id", d.MessageId)
	if !d.Timestamp.IsZero() {
		prop("timestamp", strconv.FormatInt(d.Timestamp.Unix(), 10))
	}
	prop("type", d.Type)
	prop("user-id", d.UserId)
	prop("app-id", d.AppId)
	keys := make([]string, 0, len(d.Headers))
	for k := range d.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if arr, ok := d.Headers[k].([]any); ok && k == "x-death" {
			lines = append(lines, fmt.Sprintf("    header x-death: array of %d", len(arr)))
			for i, e := range arr {
				lines = append(lines, fmt.Sprintf("    header x-death[%d]=%s", i, typedValue(e)))
			}
			continue
		}
		lines = append(lines, fmt.Sprintf("    header %s=%s", k, typedValue(d.Headers[k])))
	}
	return lines
}

// maxBodyText is the longest body a trace shows in full.
const maxBodyText = 64

// bodyText renders a body quoted, or, when long, by its size and digest.
func bodyText(b []byte) string {
	if len(b) <= maxBodyText {
		return strconv.Quote(string(b))
	}
	return fmt.Sprintf("<%d bytes, sha256 %x>", len(b), sha256.Sum256(b))
}

// Server-chosen names vary from run to run and broker to broker, and so
// do the client's own generated consumer tags.
var serverNames = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`amq\.gen-[A-Za-z0-9_\-]+`), "amq.gen-*"},
	{regexp.MustCompile(`amq\.ctag-[A-Za-z0-9_\-]+`), "amq.ctag-*"},
	// amqp091-go never sends an empty consumer tag: it makes its own,
	// ctag-<program>-<process-wide counter>.
	{regexp.MustCompile(`ctag-[^"\s]*-[0-9]+`), "ctag-<client>"},
}

// normalise removes what differs between runs but not between brokers:
// the run's name prefix and server-generated names.
func normalise(line, prefix string) string {
	line = strings.ReplaceAll(line, prefix, "")
	for _, n := range serverNames {
		line = n.re.ReplaceAllString(line, n.repl)
	}
	return line
}
