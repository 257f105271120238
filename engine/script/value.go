package script

import (
	"strconv"
	"strings"

	"warren/engine"
	"warren/engine/duration"
)

// parseValue types a script value the way a learner expects: integers are
// AMQP longs, true/false are booleans, decimals are doubles, [a,b] is an
// array; anything quoted, and anything else, is a string.
func parseValue(s string, quoted bool) any {
	if quoted {
		return s
	}
	if s == "true" || s == "false" {
		return s == "true"
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if strings.ContainsAny(s, ".eE") {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		inner := s[1 : len(s)-1]
		out := []any{}
		if inner != "" {
			for _, p := range strings.Split(inner, ",") {
				out = append(out, parseValue(p, false))
			}
		}
		return out
	}
	return s
}

// parseDuration reads a duration as engine/duration does, its error
// one of the language's own (the keys are the same).
func parseDuration(s string) (int64, error) {
	ms, err := duration.Parse(s)
	if de, ok := err.(*duration.Error); ok {
		return 0, &Error{Key: de.Key, Args: de.Args}
	}
	return ms, err
}

// formatTable renders a table deterministically for output.
func formatTable(t engine.Table) string { return engine.FormatTyped(t) }
