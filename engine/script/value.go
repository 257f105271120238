package script

import (
	"strconv"
	"strings"

	"warren/engine"
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

// ParseDuration reads a duration the way the script language does
// ("250ms", "5s", "1.5s", "2m", "1h", "1d", "1m30s", or a bare number of
// milliseconds) and returns milliseconds; its error says which forms are
// accepted. The server's clock API reads durations with it.
func ParseDuration(s string) (int64, error) { return parseDuration(s) }

// parseDuration reads "250ms", "5s", "1.5s", "2m", "1h", "1m30s", or a bare
// number of milliseconds, and returns milliseconds.
func parseDuration(s string) (int64, error) {
	if s == "" {
		return 0, newError(KeyEmptyDuration)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, newError(KeyNegativeDuration, "value", quote(s))
		}
		return n, nil
	}
	var total float64
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, newError(KeyBadDuration, "value", quote(s))
		}
		num, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, newError(KeyBadDurationNumber, "value", quote(s))
		}
		rest = rest[i:]
		j := 0
		for j < len(rest) && rest[j] >= 'a' && rest[j] <= 'z' {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		var mult float64
		switch unit {
		case "ms":
			mult = 1
		case "s":
			mult = 1000
		case "m":
			mult = 60_000
		case "h":
			mult = 3_600_000
		case "d":
			mult = 86_400_000
		default:
			return 0, newError(KeyBadDurationUnit, "unit", quote(unit), "value", quote(s))
		}
		total += num * mult
	}
	if total+0.5 >= 1<<63 {
		// Beyond int64: converting would wrap to any value at all.
		return 0, newError(KeyBadDurationNumber, "value", quote(s))
	}
	return int64(total + 0.5), nil
}

// formatTable renders a table deterministically for output.
func formatTable(t engine.Table) string { return engine.FormatTyped(t) }
