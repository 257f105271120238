package ctl

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// cell renders a value as rabbitmqctl's table formatter does: strings and
// numbers plainly, null as nothing, a list as [a, b], a table (arguments)
// as an Erlang-ish proplist: [{"x-max-length",10},{"x-dead-letter-exchange","dlx"}].
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = cell(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return proplist(x)
	}
	return ""
}

// proplist renders a table's entries sorted by key.
func proplist(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteByte('[')
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"` + k + `",` + term(m[k]) + "}")
	}
	sb.WriteByte(']')
	return sb.String()
}

// term renders a value inside a proplist: strings quoted.
func term(v any) string {
	switch x := v.(type) {
	case string:
		return `"` + x + `"`
	case nil:
		return "undefined"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = term(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return cell(v)
}

// compactJSON renders a value as compact JSON with sorted keys (a policy
// definition in list_policies).
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
