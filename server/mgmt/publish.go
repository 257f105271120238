package mgmt

import (
	"encoding/base64"
	"fmt"
	"math"
	"net/http"

	"warren/engine"
	"warren/server/broker"
)

// publishExchange is RabbitMQ's POST /api/exchanges/{vhost}/{name}/publish:
// one message, published as the user on an internal channel in confirm
// mode with mandatory set, as rabbit_mgmt_wm_exchange_publish does, so the
// answer says whether a queue took it ({"routed":true}), that it was
// returned ({"routed":false}), or that a queue refused it (a nack: 400
// "rejected ..."). The answer waits, as a confirm does, until the message
// is on disk when a queue keeps it across a restart (a persistent message
// in a durable queue, any in a quorum queue).
//
// Where RabbitMQ answers a request it cannot read with a 500 (headers
// that are not an object, properties that are not one) or does something
// a learner would not expect (a routing key that is a number is
// "not routed"), Warren answers 400 with what is wrong; the numbers AMQP
// carries in an octet (delivery_mode, priority) are range-checked.
func (a *api) publishExchange(c *call) (int, any, error) {
	vhost := c.r.PathValue("vhost")
	if err := c.messagesIn(vhost); err != nil {
		return 0, nil, err
	}
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	p, err := b.publish(exchangeName(c))
	if err != nil {
		return 0, nil, err
	}
	if max := a.maxMessageSize; max > 0 && uint64(len(p.Body)) > max {
		return 0, nil, badRequest(fmt.Sprintf("%d PRECONDITION_FAILED - message size %d is larger than configured max size %d",
			engine.PreconditionFailed, len(p.Body), max))
	}
	var res []broker.StepResult
	err = a.do(c.user.Name, func(s *session) error {
		var err error
		res, err = s.visit([]broker.Step{
			{Vhost: vhost, Cmd: engine.CmdConfirmSelect{}},
			{Vhost: vhost, Cmd: engine.CmdBasicPublish{Publish: p}, Events: true},
		}, nil)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	for _, r := range res {
		if r.Err == broker.ErrNoVhost {
			return 0, nil, errAccessRefused // deleted meanwhile
		}
		if r.Err != nil {
			return 0, nil, publishRefused(r.Err)
		}
	}
	pub := res[1]
	routed := true
	for _, ev := range pub.Events {
		switch ev.Kind {
		case engine.EvReturned:
			routed = false
		case engine.EvNacked:
			return 0, nil, badRequest("rejected Unable to publish message. Check queue limits.")
		}
	}
	if pub.DurableAt > 0 {
		if err := a.awaitDurable(c.r, pub.DurableAt); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, struct {
		Routed bool `json:"routed"`
	}{routed}, nil
}

// messagesIn guards publish and get: RabbitMQ answers 401 "Access
// refused." for a vhost that does not exist, and "User not authorised to
// access virtual host" to a user without permissions there.
func (c *call) messagesIn(vhost string) error {
	return c.api.do(c.user.Name, func(s *session) error {
		if !s.hasVhost(vhost) {
			return errAccessRefused
		}
		return c.requireWrite(vhost)
	})
}

// publishRefused is the reply to a publish the engine refused: RabbitMQ's
// management plugin gives the channel's close reason whole, with its code
// ("404 NOT_FOUND - no exchange ..."), as a 400.
func publishRefused(err error) error {
	if ee, ok := err.(*engine.Error); ok {
		return badRequest(fmt.Sprintf("%d %s", ee.Code, ee.Text))
	}
	return err
}

// awaitDurable waits until the command log is on disk up to pos, or the
// client goes away (then nothing is answered: nobody would read it).
func (a *api) awaitDurable(r *http.Request, pos uint64) error {
	done := make(chan struct{})
	a.b.AfterDurable(pos, func() { close(done) })
	select {
	case <-done:
		return nil
	case <-r.Context().Done():
		return r.Context().Err()
	}
}

// publish reads a publish request: routing_key, properties, payload and
// payload_encoding are required, and missing ones are named in that
// order, as RabbitMQ names them.
func (b body) publish(exchange string) (engine.BasicPublish, error) {
	p := engine.BasicPublish{Exchange: exchange, Mandatory: true}
	for _, k := range []string{"routing_key", "properties", "payload", "payload_encoding"} {
		if _, ok := b[k]; !ok {
			return p, keyMissing(k)
		}
	}
	rk, ok := b["routing_key"].(string)
	if !ok {
		return p, badRequest("[{not_string,routing_key}]")
	}
	p.RoutingKey = rk
	payload, ok := b["payload"].(string)
	if !ok {
		return p, badRequest("payload_not_string")
	}
	switch enc := b["payload_encoding"]; enc {
	case "string":
		p.Body = []byte(payload)
	case "base64":
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return p, withDetail(badRequest("not_base64"), "not_base64", payload)
		}
		p.Body = data
	default:
		return p, withDetail(badRequest("unsupported_encoding"), "unsupported_encoding", enc)
	}
	props, ok := b["properties"].(map[string]any)
	if !ok {
		return p, badRequest("[{not_object,properties}]")
	}
	var err error
	p.Props, err = toProperties(props)
	return p, err
}

func withDetail(e *apiError, detail ...any) *apiError {
	e.detail = detail
	return e
}

// toProperties converts a publish's properties object, as RabbitMQ's
// rabbit_mgmt_format:to_basic_properties does: the string properties
// must be strings (["not_string","content_type"]), the numbers integers
// (["not_int","priority"]), headers an object whose values are not null
// ("null_not_allowed"); keys it does not know are ignored. No properties
// at all is nil, as a publisher that sets none.
func toProperties(m map[string]any) (*engine.Properties, error) {
	p := &engine.Properties{}
	strs := []struct {
		key  string
		flag engine.PropertyFlags
		to   *string
	}{
		{"content_type", engine.FlagContentType, &p.ContentType},
		{"content_encoding", engine.FlagContentEncoding, &p.ContentEncoding},
		{"correlation_id", engine.FlagCorrelationID, &p.CorrelationID},
		{"reply_to", engine.FlagReplyTo, &p.ReplyTo},
		{"expiration", engine.FlagExpiration, &p.Expiration},
		{"message_id", engine.FlagMessageID, &p.MessageID},
		{"type", engine.FlagType, &p.Type},
		{"user_id", engine.FlagUserID, &p.UserID},
		{"app_id", engine.FlagAppID, &p.AppID},
		{"cluster_id", engine.FlagClusterID, &p.ClusterID},
	}
	for _, s := range strs {
		v, ok := m[s.key]
		if !ok {
			continue
		}
		str, ok := v.(string)
		if !ok {
			return nil, withDetail(badRequest("not_string"), "not_string", s.key)
		}
		*s.to, p.Present = str, p.Present|s.flag
	}
	ints := []struct {
		key      string
		flag     engine.PropertyFlags
		min, max int64
		set      func(int64)
	}{
		{"delivery_mode", engine.FlagDeliveryMode, 0, 255, func(n int64) { p.DeliveryMode = uint8(n) }},
		{"priority", engine.FlagPriority, 0, 255, func(n int64) { p.Priority = uint8(n) }},
		{"timestamp", engine.FlagTimestamp, 0, math.MaxInt64, func(n int64) { p.Timestamp = engine.Timestamp(n) }},
	}
	for _, n := range ints {
		v, ok := m[n.key]
		if !ok {
			continue
		}
		i, isInt := toValue(v).(int64)
		if !isInt {
			return nil, withDetail(badRequest("not_int"), "not_int", n.key)
		}
		if i < n.min || i > n.max {
			return nil, badRequest(fmt.Sprintf("%s %d is out of range: it must be from %d to %d (%s 必须在 %d 到 %d 之间)",
				n.key, i, n.min, n.max, n.key, n.min, n.max))
		}
		n.set(i)
		p.Present |= n.flag
	}
	if v, ok := m["headers"]; ok {
		h, isObj := v.(map[string]any)
		if !isObj {
			return nil, badRequest("[{not_object,headers}]")
		}
		if hasNull(h) {
			return nil, badRequest("null_not_allowed")
		}
		p.Headers, p.Present = toTable(h), p.Present|engine.FlagHeaders
	}
	if p.Present == 0 {
		return nil, nil
	}
	return p, nil
}

// hasNull reports whether a JSON value holds a null anywhere: AMQP tables
// have no null for a header to carry (RabbitMQ: "null_not_allowed").
func hasNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}
