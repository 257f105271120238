package mgmt

import (
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"

	"warren/engine"
	"warren/server/broker"
)

// maxGetCount bounds one get request: its basic.gets are one turn of the
// engine, and RabbitMQ sets no bound (a count of -1 there takes the whole
// queue). A client that wants more asks again.
const maxGetCount = 10_000

// The ack modes of a get (rabbit_mgmt_wm_queue_get): whether the messages
// are taken (ack_requeue_false), put back (ack_requeue_true: left
// unacknowledged until the request's channel closes, so they come back
// redelivered), or rejected once all are fetched, back to the queue
// (reject_requeue_true) or dead-lettered (reject_requeue_false).
const (
	ackRequeueFalse    = "ack_requeue_false"
	ackRequeueTrue     = "ack_requeue_true"
	rejectRequeueTrue  = "reject_requeue_true"
	rejectRequeueFalse = "reject_requeue_false"
)

// getMessages is RabbitMQ's POST /api/queues/{vhost}/{name}/get: up to count
// basic.gets on an internal channel as the user, in one turn, answered as
// a list of messages (see gotJSON).
func (a *api) getMessages(c *call) (int, any, error) {
	vhost, queue := c.r.PathValue("vhost"), c.r.PathValue("name")
	if err := c.messagesIn(vhost); err != nil {
		return 0, nil, err
	}
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	g, err := b.getRequest()
	if err != nil {
		return 0, nil, err
	}
	// One turn, one channel: the gets (each after one that got a
	// message), then for the reject modes a nack of all of them, in
	// order, on the channel they were fetched on. Closing the channel at
	// the end of the turn puts back what ack_requeue_true left
	// unacknowledged, as RabbitMQ's closing of its channel does.
	steps := make([]broker.Step, 0, g.count+1)
	for i := range g.count {
		steps = append(steps, broker.Step{Vhost: vhost, AfterGot: i > 0,
			Cmd: engine.CmdBasicGet{Get: engine.BasicGet{Queue: queue, NoAck: g.ackMode == ackRequeueFalse}}})
	}
	if g.count > 0 && (g.ackMode == rejectRequeueTrue || g.ackMode == rejectRequeueFalse) {
		steps = append(steps, broker.Step{Vhost: vhost, Cmd: engine.CmdBasicNack{Multiple: true, Requeue: g.ackMode == rejectRequeueTrue}})
	}
	var got []engine.GetOk
	err = a.do(c.user.Name, func(s *session) error {
		res, err := s.visit(steps, nil)
		if err != nil {
			return err
		}
		for _, r := range res {
			switch {
			case r.Err == broker.ErrNoVhost:
				return errAccessRefused // deleted meanwhile
			case r.Err != nil:
				return getRefused(r.Err)
			case r.Got && !r.Skipped:
				got = append(got, r.Get)
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, streamedList{func(w io.Writer) error { return writeGot(w, got, g) }}, nil
}

// getRequest is a get's body, read.
type getRequest struct {
	count    int
	ackMode  string
	base64   bool // encoding "base64"; "auto" gives a string when the payload is UTF-8
	truncate int  // -1 for no truncation
}

// getRequest reads a get's body: count, ackmode and encoding are
// required, in that order; truncate is optional. The integers are
// RabbitMQ's parse_int (a number, truncated, or a string of digits);
// Warren also range-checks them, where RabbitMQ takes a negative count as
// "every message".
func (b body) getRequest() (getRequest, error) {
	g := getRequest{truncate: -1}
	for _, k := range []string{"count", "ackmode", "encoding"} {
		if _, ok := b[k]; !ok {
			return g, keyMissing(k)
		}
	}
	n, err := parseInt(b["count"])
	if err != nil {
		return g, err
	}
	if n < 0 || n > maxGetCount {
		return g, badRequest(fmt.Sprintf("count %d is out of range: it must be from 0 to %d (count 必须在 0 到 %d 之间)", n, maxGetCount, maxGetCount))
	}
	g.count = int(n)
	switch m := b["ackmode"]; m {
	case ackRequeueFalse, ackRequeueTrue, rejectRequeueTrue, rejectRequeueFalse:
		g.ackMode = m.(string)
	default:
		return g, badRequest(fmt.Sprintf("ackmode %s is not one of ack_requeue_true, ack_requeue_false, reject_requeue_true, reject_requeue_false (ackmode 必须是其中之一)", quote(m)))
	}
	switch b["encoding"] {
	case "auto":
	case "base64":
		g.base64 = true
	default:
		return g, badRequest("Unsupported encoding. Please use auto or base64.")
	}
	if v, ok := b["truncate"]; ok {
		n, err := parseInt(v)
		if err != nil {
			return g, err
		}
		if n < 0 || n > math.MaxInt32 {
			return g, badRequest(fmt.Sprintf("truncate %d is out of range: it must be from 0 to %d (truncate 必须在 0 到 %d 之间)", n, math.MaxInt32, math.MaxInt32))
		}
		g.truncate = int(n)
	}
	return g, nil
}

// parseInt is rabbit_mgmt_util:parse_int: an integer, a float truncated
// toward zero, or a string of decimal digits with an optional sign;
// anything else is ["not_integer", value].
func parseInt(v any) (int64, error) {
	switch x := toValue(v).(type) {
	case int64:
		return x, nil
	case float64:
		if !math.IsInf(x, 0) && !math.IsNaN(x) && math.Abs(x) < math.MaxInt64 {
			return int64(x), nil
		}
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, withDetail(badRequest("not_integer"), "not_integer", v)
}

// getRefused is the reply to a get the engine refused: RabbitMQ's 404
// not_found for a queue that does not exist, and 401 not_authorised with
// the channel's reason for one the user may not read.
func getRefused(err error) error {
	ee, ok := err.(*engine.Error)
	switch {
	case ok && ee.Code == engine.AccessRefused:
		return &apiError{status: http.StatusUnauthorized, kind: "not_authorised", reason: ee.Text}
	case ok && ee.Code == engine.NotFound:
		return &apiError{status: http.StatusNotFound, kind: "not_found", reason: ee.Text}
	}
	return err
}

// gotJSON is one fetched message as RabbitMQ shows it, in its order.
type gotJSON struct {
	PayloadBytes    int    `json:"payload_bytes"`
	Redelivered     bool   `json:"redelivered"`
	Exchange        string `json:"exchange"`
	RoutingKey      string `json:"routing_key"`
	MessageCount    int    `json:"message_count"`
	Properties      any    `json:"properties"`
	Payload         string `json:"payload"`
	PayloadEncoding string `json:"payload_encoding"`
}

// propertiesJSON is a message's properties as RabbitMQ shows them: the
// present ones only, in the reverse of AMQP's order (the order of
// rabbit_mgmt_format's property list).
type propertiesJSON struct {
	ClusterID       *string         `json:"cluster_id,omitempty"`
	AppID           *string         `json:"app_id,omitempty"`
	UserID          *string         `json:"user_id,omitempty"`
	Type            *string         `json:"type,omitempty"`
	Timestamp       *int64          `json:"timestamp,omitempty"`
	MessageID       *string         `json:"message_id,omitempty"`
	Expiration      *string         `json:"expiration,omitempty"`
	ReplyTo         *string         `json:"reply_to,omitempty"`
	CorrelationID   *string         `json:"correlation_id,omitempty"`
	Priority        *uint8          `json:"priority,omitempty"`
	DeliveryMode    *uint8          `json:"delivery_mode,omitempty"`
	Headers         *map[string]any `json:"headers,omitempty"`
	ContentEncoding *string         `json:"content_encoding,omitempty"`
	ContentType     *string         `json:"content_type,omitempty"`
}

// noProperties is how RabbitMQ shows a message without properties: an
// empty Erlang property list, [].
var noProperties = []any{}

// toPropertiesJSON renders the properties a consumer would receive:
// x-death and the other dead-lettering headers included.
func toPropertiesJSON(m *engine.Message) any {
	f := m.PropertyFlags()
	if f == 0 {
		return noProperties
	}
	p := m.Props
	if p == nil {
		p = &engine.Properties{}
	}
	var j propertiesJSON
	str := func(flag engine.PropertyFlags, s string, to **string) {
		if f&flag != 0 {
			*to = &s
		}
	}
	str(engine.FlagClusterID, p.ClusterID, &j.ClusterID)
	str(engine.FlagAppID, p.AppID, &j.AppID)
	str(engine.FlagUserID, p.UserID, &j.UserID)
	str(engine.FlagType, p.Type, &j.Type)
	str(engine.FlagMessageID, p.MessageID, &j.MessageID)
	str(engine.FlagExpiration, p.Expiration, &j.Expiration)
	str(engine.FlagReplyTo, p.ReplyTo, &j.ReplyTo)
	str(engine.FlagCorrelationID, p.CorrelationID, &j.CorrelationID)
	str(engine.FlagContentEncoding, p.ContentEncoding, &j.ContentEncoding)
	str(engine.FlagContentType, p.ContentType, &j.ContentType)
	if f&engine.FlagTimestamp != 0 {
		ts := int64(p.Timestamp)
		j.Timestamp = &ts
	}
	if f&engine.FlagPriority != 0 {
		j.Priority = &p.Priority
	}
	if f&engine.FlagDeliveryMode != 0 {
		j.DeliveryMode = &p.DeliveryMode
	}
	if f&engine.FlagHeaders != 0 {
		h := map[string]any{}
		for k, v := range m.Headers() {
			h[k] = fromValue(v)
		}
		j.Headers = &h
	}
	return j
}

// writeGot writes the fetched messages as a JSON list, one at a time: a
// request for many large messages is never held whole in memory.
func writeGot(w io.Writer, got []engine.GetOk, g getRequest) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for i, m := range got {
		body := m.Msg.Body
		if g.truncate >= 0 && len(body) > g.truncate {
			body = body[:g.truncate]
		}
		j := gotJSON{PayloadBytes: len(m.Msg.Body), Redelivered: m.Redelivered, Exchange: m.Exchange, RoutingKey: m.RoutingKey,
			MessageCount: m.MessageCount, Properties: toPropertiesJSON(m.Msg)}
		if !g.base64 && utf8.Valid(body) {
			j.Payload, j.PayloadEncoding = string(body), "string"
		} else {
			j.Payload, j.PayloadEncoding = base64.StdEncoding.EncodeToString(body), "base64"
		}
		data, err := marshal(j)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, ","); err != nil {
				return err
			}
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]")
	return err
}
