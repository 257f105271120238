package script

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"warren/engine"
)

// findQueue returns a queue's view from a snapshot ("/" unless vhost given
// as VHOST/QUEUE is not supported: queues are looked up in every vhost, the
// default first).
func findQueue(s engine.Snapshot, name string) (engine.QueueView, bool) {
	for _, v := range s.Vhosts {
		for _, q := range v.Queues {
			if q.Name == name {
				return q, true
			}
		}
	}
	return engine.QueueView{}, false
}

func findExchange(s engine.Snapshot, name string) bool {
	for _, v := range s.Vhosts {
		for _, x := range v.Exchanges {
			if x.Name == name {
				return true
			}
		}
	}
	return false
}

// queueFields are the assertable facts about a queue.
func queueFields(q engine.QueueView) map[string]string {
	return map[string]string{
		"ready":     strconv.Itoa(q.ReadyCount),
		"unacked":   strconv.Itoa(q.Unacked),
		"consumers": strconv.Itoa(len(q.Consumers)),
		"expired":   strconv.Itoa(q.Expired),
		"bytes":     strconv.FormatInt(q.ReadyBytes, 10),
		"messages":  strconv.Itoa(q.ReadyCount + q.Unacked),
		"type":      q.Type,
		"policy":    q.Effective.Policy,
	}
}

// msgFields flattens a message for show and expect: body, id, exchange,
// routing-key, priority and expiration (the values the broker goes by, 0
// and empty when absent), properties (the properties present, in AMQP's
// order, so that priority=0 or content-type="" sent reads apart from
// none sent), each other property present (empty ones too), header.NAME,
// and x-death.I.FIELD.
func msgFields(m *engine.Message) map[string]string {
	f := map[string]string{
		"body":        string(m.Body),
		"id":          strconv.FormatUint(m.ID, 10),
		"exchange":    m.Exchange,
		"routing-key": m.RoutingKey,
		"priority":    strconv.Itoa(int(m.Priority())),
		"expiration":  m.Expiration(),
	}
	if present := m.PropertyFlags(); present != 0 {
		p := m.Props
		if p == nil {
			p = &engine.Properties{} // headers only, from dead-lettering
		}
		var names []string
		for _, n := range propertyNames {
			if present&n.flag == 0 {
				continue
			}
			names = append(names, n.name)
			switch n.flag {
			case engine.FlagHeaders, engine.FlagPriority, engine.FlagExpiration:
				// header.NAME; priority and expiration are always there
			case engine.FlagDeliveryMode:
				f[n.name] = strconv.Itoa(int(p.DeliveryMode))
			case engine.FlagTimestamp:
				f[n.name] = strconv.FormatInt(int64(p.Timestamp), 10)
			default:
				f[n.name] = n.str(p)
			}
		}
		f["properties"] = strings.Join(names, ",")
	}
	h := m.Headers()
	for k, v := range h {
		if k == "x-death" {
			continue
		}
		f["header."+k] = engine.FormatTyped(v)
	}
	ds := m.Deaths()
	if len(ds) > 0 {
		f["x-death"] = strconv.Itoa(len(ds))
	}
	for i, d := range ds {
		p := "x-death." + strconv.Itoa(i) + "."
		f[p+"queue"] = d.Queue
		f[p+"reason"] = d.Reason
		f[p+"count"] = strconv.FormatInt(d.Count, 10)
		f[p+"time"] = strconv.FormatInt(int64(d.Time), 10)
		f[p+"exchange"] = d.Exchange
		f[p+"routing-keys"] = strings.Join(d.RoutingKeys, ",")
		if d.OriginalExpiration != "" {
			f[p+"original-expiration"] = d.OriginalExpiration
		}
	}
	return f
}

func formatFields(f map[string]string) string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "  %s: %s\n", k, f[k])
	}
	return sb.String()
}

// msgAt returns the INDEX-th ready message of a queue (0 is the head);
// expect unacked reads a delivery awaiting its ack.
func (r *Runner) msgAt(queue, index string) (*engine.Message, map[string]string, error) {
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 {
		if _, ok := findQueue(r.state(1), queue); !ok {
			return nil, nil, newError(KeyNoQueue, "queue", quote(queue))
		}
		return nil, nil, newError(KeyBadIndex, "value", quote(index))
	}
	q, ok := findQueue(r.state(i+1), queue)
	if !ok {
		return nil, nil, newError(KeyNoQueue, "queue", quote(queue))
	}
	if i >= q.ReadyCount {
		return nil, nil, newError(KeyNoIndex, "queue", queue, "ready", strconv.Itoa(q.ReadyCount), "index", strconv.Itoa(i))
	}
	rv := q.Ready[i]
	extra := map[string]string{"redelivered": strconv.FormatBool(rv.Redelivered), "expired": strconv.FormatBool(rv.Expired)}
	if rv.ExpiresAt != engine.Never {
		extra["expires-at"] = engine.FormatDuration(int64(rv.ExpiresAt))
	}
	if rv.Via != nil {
		// Which binding put the copy here, as its enqueued event said.
		extra["via"] = rv.Via.String()
		if rv.Via.Alternate {
			extra["alternate"] = "true"
		}
	}
	return rv.Msg, extra, nil
}

func describeQueue(q engine.QueueView) string {
	line := fmt.Sprintf("%s ready=%d unacked=%d consumers=%d", q.Name, q.ReadyCount, q.Unacked, len(q.Consumers))
	if q.Expired > 0 {
		line += fmt.Sprintf(" expired-waiting=%d", q.Expired)
	}
	if q.Type == "quorum" {
		line += " type=quorum"
	}
	e := q.Effective
	if e.MessageTTLMs >= 0 {
		line += " ttl=" + engine.FormatDuration(e.MessageTTLMs)
	}
	if e.ExpiresMs >= 0 {
		line += " expires=" + engine.FormatDuration(e.ExpiresMs)
	}
	if e.MaxLength >= 0 {
		line += " max-length=" + strconv.FormatInt(e.MaxLength, 10)
	}
	if e.MaxLengthBytes >= 0 {
		line += " max-length-bytes=" + strconv.FormatInt(e.MaxLengthBytes, 10)
	}
	if e.MaxLength >= 0 || e.MaxLengthBytes >= 0 {
		line += " overflow=" + e.Overflow
	}
	if e.HasDeadLetterExchange {
		line += " dlx=" + quoteEmpty(e.DeadLetterExchange)
	}
	if e.HasDeadLetterRoutingKey {
		line += " dlrk=" + quoteEmpty(e.DeadLetterRoutingKey)
	}
	if e.MaxPriority > 0 {
		line += " max-priority=" + strconv.Itoa(e.MaxPriority)
	}
	if q.Type == "quorum" && e.DeliveryLimit >= 0 {
		line += " delivery-limit=" + strconv.FormatInt(e.DeliveryLimit, 10)
	}
	if e.Policy != "" {
		line += " policy=" + e.Policy
	}
	if e.OperatorPolicy != "" {
		line += " operator-policy=" + e.OperatorPolicy
	}
	return line
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// propertyNames are the basic properties by their script names (the
// publish options), in AMQP's order; str gives a string property's value.
var propertyNames = [...]struct {
	flag engine.PropertyFlags
	name string
	str  func(p *engine.Properties) string
}{
	{engine.FlagContentType, "content-type", func(p *engine.Properties) string { return p.ContentType }},
	{engine.FlagContentEncoding, "content-encoding", func(p *engine.Properties) string { return p.ContentEncoding }},
	{engine.FlagHeaders, "headers", nil},
	{engine.FlagDeliveryMode, "delivery-mode", nil},
	{engine.FlagPriority, "priority", nil},
	{engine.FlagCorrelationID, "correlation-id", func(p *engine.Properties) string { return p.CorrelationID }},
	{engine.FlagReplyTo, "reply-to", func(p *engine.Properties) string { return p.ReplyTo }},
	{engine.FlagExpiration, "expiration", nil},
	{engine.FlagMessageID, "message-id", func(p *engine.Properties) string { return p.MessageID }},
	{engine.FlagTimestamp, "timestamp", nil},
	{engine.FlagType, "type", func(p *engine.Properties) string { return p.Type }},
	{engine.FlagUserID, "user-id", func(p *engine.Properties) string { return p.UserID }},
	{engine.FlagAppID, "app-id", func(p *engine.Properties) string { return p.AppID }},
	{engine.FlagClusterID, "cluster-id", func(p *engine.Properties) string { return p.ClusterID }},
}
