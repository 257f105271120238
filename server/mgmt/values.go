package mgmt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"

	"warren/engine"
)

// maxBody bounds a request body (definitions files included) so that a
// client cannot make the server buffer without limit.
const maxBody = 32 << 20

// body is a decoded JSON object from a request.
type body map[string]any

// readBody decodes the request's JSON object. An empty body is an empty
// object, as RabbitMQ treats it; anything but an object is "not_json".
func readBody(r *http.Request) (body, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, badRequest(err.Error())
	}
	if len(data) > maxBody {
		return nil, &apiError{status: http.StatusRequestEntityTooLarge, kind: "bad_request", reason: "request body too large"}
	}
	return decodeObject(data)
}

func decodeObject(data []byte) (body, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return body{}, nil
	}
	// JSON is UTF-8 (RFC 8259), and RabbitMQ's decoder refuses anything
	// else; Go's would quietly turn bad bytes into U+FFFD.
	if !utf8.Valid(data) {
		return nil, errNotJSON
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errNotJSON
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errNotJSON
	}
	return m, nil
}

// str returns a string field; missing is def, another type a bad request.
func (b body) str(key, def string) (string, error) {
	v, ok := b[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badRequest("[{not_string," + key + "}]")
	}
	return s, nil
}

// boolean returns a boolean field; RabbitMQ also accepts "true"/"false".
func (b body) boolean(key string, def bool) (bool, error) {
	switch v := b[key].(type) {
	case nil:
		return def, nil
	case bool:
		return v, nil
	case string:
		if p, err := strconv.ParseBool(v); err == nil {
			return p, nil
		}
	}
	e := badRequest("not_boolean")
	e.detail = []any{"not_boolean", b[key]}
	return false, e
}

// table returns an object field (arguments, definition) as an engine
// Table; missing is nil.
func (b body) table(key string) (engine.Table, error) {
	switch v := b[key].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return toTable(v), nil
	}
	return nil, badRequest("[{not_object," + key + "}]")
}

func quote(v any) string {
	data, _ := marshal(v)
	return string(data)
}

// toTable converts a decoded JSON object to an engine Table. JSON has one
// number type; AMQP tables and the engine's checks distinguish integers
// (int64, AMQP long) from floats, so integral numbers become int64, others
// float64, as RabbitMQ's JSON decoder gives integers and floats.
func toTable(m map[string]any) engine.Table {
	t := make(engine.Table, len(m))
	for k, v := range m {
		t[k] = toValue(v)
	}
	return t
}

func toValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		// "5" is an integer and "5.0" a float, for RabbitMQ too ("5.0 is
		// not a valid message TTL").
		if n, err := x.Int64(); err == nil {
			return n
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case map[string]any:
		return toTable(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toValue(e)
		}
		return out
	}
	return v // string, bool, nil
}

// noFields is the rendering of every empty table, shared: most queues and
// bindings have no arguments, and a map each would be 200,000 allocations
// per listing of 100,000 queues and their bindings. It must never be
// written; nothing writes into a rendered table.
var noFields = map[string]any{}

// fromTable renders an engine Table as a JSON object; nil renders {}.
// The map is not to be changed (see noFields).
func fromTable(t engine.Table) map[string]any {
	if len(t) == 0 {
		return noFields
	}
	m := make(map[string]any, len(t))
	for k, v := range t {
		m[k] = fromValue(v)
	}
	return m
}

func fromValue(v any) any {
	switch x := v.(type) {
	case engine.Table:
		return fromTable(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromValue(e)
		}
		return out
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case engine.Timestamp:
		return int64(x)
	case engine.Decimal:
		return float64(x.Value) / math.Pow10(int(x.Scale))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case float32:
		return fromValue(float64(x))
	}
	return v
}
