// Package duration reads a duration as the script language writes it
// ("250ms", "5s", "1.5s", "2m", "1h", "1d", "1m30s", or a bare number of
// milliseconds). It is the script language's own reader (engine/script
// calls it, and its errors keep their keys), apart from the language, so
// that a driver that takes such durations (the clock API,
// driver/clockapi) does not link the whole language: at the edge the
// broker's worker has no room for it (docs/edge.md, "Tests": the size checks).
package duration

import (
	"strconv"
	"strings"
)

// The keys of Parse's errors: the script language's error keys, which
// the catalogs translate.
const (
	KeyEmpty     = "emptyDuration"
	KeyNegative  = "negativeDuration"
	KeyBad       = "badDuration"
	KeyBadNumber = "badDurationNumber"
	KeyBadUnit   = "badDurationUnit"
)

// Templates are the English texts of the keys, with {name} for each
// argument; engine/script lists them among its own.
var Templates = map[string]string{
	KeyEmpty:     "empty duration",
	KeyNegative:  "negative duration {value}",
	KeyBad:       "bad duration {value} (use e.g. 250ms, 5s, 1.5s, 2m, 1h)",
	KeyBadNumber: "bad duration {value}",
	KeyBadUnit:   "bad duration unit {unit} in {value} (use ms, s, m, h or d)",
}

// Error is a duration Parse refused: its key and arguments (quoted).
type Error struct {
	Key  string
	Args map[string]string
}

// Error renders the English text.
func (e *Error) Error() string {
	text := Templates[e.Key]
	for name, v := range e.Args {
		text = strings.ReplaceAll(text, "{"+name+"}", v)
	}
	return text
}

func refuse(key string, nameValues ...string) *Error {
	e := &Error{Key: key}
	if len(nameValues) > 0 {
		e.Args = map[string]string{}
		for i := 0; i < len(nameValues); i += 2 {
			e.Args[nameValues[i]] = nameValues[i+1]
		}
	}
	return e
}

// Parse reads s and returns milliseconds, rounded to the nearest; its
// error (an *Error) says which forms are accepted.
func Parse(s string) (int64, error) {
	if s == "" {
		return 0, refuse(KeyEmpty)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, refuse(KeyNegative, "value", strconv.Quote(s))
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
			return 0, refuse(KeyBad, "value", strconv.Quote(s))
		}
		num, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, refuse(KeyBadNumber, "value", strconv.Quote(s))
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
			return 0, refuse(KeyBadUnit, "unit", strconv.Quote(unit), "value", strconv.Quote(s))
		}
		total += num * mult
	}
	if total+0.5 >= 1<<63 {
		// Beyond int64: converting would wrap to any value at all.
		return 0, refuse(KeyBadNumber, "value", strconv.Quote(s))
	}
	return int64(total + 0.5), nil
}
