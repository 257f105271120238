package engine

import (
	"sort"
	"strconv"
	"strings"
)

// Table is an AMQP field table: header values and declare/bind/consume
// arguments. Values keep the Go type that matches their AMQP field type,
// because RabbitMQ's equivalence errors name the type ("of type 'long'"):
//
//	Go type        AMQP type (RabbitMQ's name)
//	bool           t  bool
//	int8 / uint8   b / B  byte / unsignedbyte
//	int16 / uint16 s / u  short / unsignedshort
//	int32 / uint32 I / i  signedint / unsignedint
//	int64          l  long
//	float32        f  float
//	float64        d  double
//	Decimal        D  decimal
//	string         S  longstr
//	[]byte         x  binary
//	Timestamp      T  timestamp
//	Table          F  table
//	[]any          A  array
//	nil            V  void
type Table map[string]any

// Timestamp is an AMQP timestamp: seconds since the Unix epoch. The engine
// avoids the time package, so it has its own type.
type Timestamp int64

// Decimal is an AMQP decimal: Value / 10^Scale.
type Decimal struct {
	Scale uint8
	Value int32
}

// Clone returns a deep copy of t (nil stays nil).
func (t Table) Clone() Table {
	if t == nil {
		return nil
	}
	c := make(Table, len(t))
	for k, v := range t {
		c[k] = cloneValue(v)
	}
	return c
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case Table:
		return x.Clone()
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e)
		}
		return c
	case []byte:
		return append([]byte(nil), x...)
	}
	return v
}

// Keys returns the table's keys in sorted order, so that output never depends
// on map iteration order.
func (t Table) Keys() []string {
	ks := make([]string, 0, len(t))
	for k := range t {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// typeName returns RabbitMQ's name for the AMQP type of v, as it appears in
// equivalence errors.
func typeName(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case int8:
		return "byte"
	case uint8:
		return "unsignedbyte"
	case int16:
		return "short"
	case uint16:
		return "unsignedshort"
	case int32:
		return "signedint"
	case uint32:
		return "unsignedint"
	case int64, int:
		return "long"
	case float32:
		return "float"
	case float64:
		return "double"
	case Decimal:
		return "decimal"
	case string:
		return "longstr"
	case []byte:
		return "binary"
	case Timestamp:
		return "timestamp"
	case Table:
		return "table"
	case []any:
		return "array"
	case nil:
		return "void"
	}
	return "unknown"
}

// typeClass groups types the way RabbitMQ does when it compares arguments:
// all integer widths are one class.
func typeClass(v any) string {
	switch v.(type) {
	case int8, uint8, int16, uint16, int32, uint32, int64, int:
		return "int"
	case float32, float64:
		return "float"
	case string, []byte:
		return "longstr"
	}
	return typeName(v)
}

// asInt64 returns v as an integer if it has an integer AMQP type.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case uint8:
		return int64(x), true
	case int16:
		return int64(x), true
	case uint16:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

// asFloat64 returns v as a number for value comparison (headers exchange),
// where Erlang's == makes 1 equal 1.0.
func asFloat64(v any) (float64, bool) {
	if i, ok := asInt64(v); ok {
		return float64(i), true
	}
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// valuesEqual compares two field values as RabbitMQ compares them (Erlang ==
// on the decoded values; the field type is not part of the comparison).
func valuesEqual(a, b any) bool {
	if fa, ok := asFloat64(a); ok {
		fb, ok := asFloat64(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case []byte:
			return x == string(y)
		}
		return false
	case []byte:
		return valuesEqual(string(x), b)
	case Table:
		y, ok := b.(Table)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !valuesEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// FormatValue renders a field value compactly and deterministically, for
// traces, snapshots and error texts.
func FormatValue(v any) string {
	var sb strings.Builder
	formatValue(&sb, v, false)
	return sb.String()
}

// FormatTyped is FormatValue for a reader who must tell the types apart
// (the script's output, the routing explanation): a string that would read
// as a number, a boolean or void is in single quotes ('1' is not 1), and a float
// always has a point (1.0 is not 1). A headers exchange compares values
// with their types, so a learner has to see them. FormatValue stays as
// RabbitMQ writes values into its reply texts.
func FormatTyped(v any) string {
	var sb strings.Builder
	formatValue(&sb, v, true)
	return sb.String()
}

// looksTyped says whether a string would be read as a number, a boolean or
// void when written bare.
func looksTyped(s string) bool {
	if s == "true" || s == "false" || s == "void" {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func writeString(sb *strings.Builder, s string, typed bool) {
	if typed && looksTyped(s) {
		// Single quotes, as the script language writes a literal
		// string: header.level='1'.
		sb.WriteByte('\'')
		sb.WriteString(s)
		sb.WriteByte('\'')
		return
	}
	sb.WriteString(s)
}

func writeFloat(sb *strings.Builder, f string, typed bool) {
	sb.WriteString(f)
	if typed && !strings.ContainsAny(f, ".eEnN") {
		sb.WriteString(".0")
	}
}

func formatValue(sb *strings.Builder, v any, typed bool) {
	switch x := v.(type) {
	case nil:
		sb.WriteString("void")
	case string:
		writeString(sb, x, typed)
	case []byte:
		writeString(sb, string(x), typed)
	case bool:
		sb.WriteString(strconv.FormatBool(x))
	case float32:
		writeFloat(sb, strconv.FormatFloat(float64(x), 'g', -1, 32), typed)
	case float64:
		writeFloat(sb, strconv.FormatFloat(x, 'g', -1, 64), typed)
	case Timestamp:
		sb.WriteString(strconv.FormatInt(int64(x), 10))
	case Decimal:
		sb.WriteString(strconv.FormatInt(int64(x.Value), 10))
		sb.WriteString("e-")
		sb.WriteString(strconv.Itoa(int(x.Scale)))
	case Table:
		sb.WriteByte('{')
		for i, k := range x.Keys() {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(k)
			sb.WriteByte(':')
			formatValue(sb, x[k], typed)
		}
		sb.WriteByte('}')
	case []any:
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			formatValue(sb, e, typed)
		}
		sb.WriteByte(']')
	default:
		if i, ok := asInt64(v); ok {
			sb.WriteString(strconv.FormatInt(i, 10))
			return
		}
		sb.WriteString("?")
	}
}
