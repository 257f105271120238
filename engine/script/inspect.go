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
// routing-key, priority, expiration, header.NAME, and x-death.I.FIELD.
func msgFields(m *engine.Message) map[string]string {
	f := map[string]string{
		"body":        string(m.Body),
		"id":          strconv.FormatUint(m.ID, 10),
		"exchange":    m.Exchange,
		"routing-key": m.RoutingKey,
		"priority":    strconv.Itoa(int(m.Priority())),
		"expiration":  m.Expiration(),
	}
	if m.Props != nil {
		p := m.Props
		for k, v := range map[string]string{"message-id": p.MessageID, "type": p.Type, "reply-to": p.ReplyTo, "correlation-id": p.CorrelationID,
			"content-type": p.ContentType, "app-id": p.AppID, "user-id": p.UserID} {
			if v != "" {
				f[k] = v
			}
		}
		if p.DeliveryMode != 0 {
			f["delivery-mode"] = strconv.Itoa(int(p.DeliveryMode))
		}
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
