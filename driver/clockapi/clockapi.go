// Package clockapi is Warren's clock API as both its homes take it: the
// server's own broker at /api/clock (server/mgmt) and a shared session's
// at /api/sessions/{id}/clock (driver/sessions, natively and at the
// edge). RabbitMQ has no clock to move; the API is Warren's own, and one
// package keeps its requests and replies the same in both places.
//
//	GET  …/clock                   the clock's state (Reply)
//	POST …/clock {"mode":"manual"}  switch mode: live, paused or manual
//	POST …/clock {"advance":"30m"}  move forward by a duration
//	POST …/clock {"step":1}         move to the next timer, N times
//
// A POST holds exactly one of the three keys (Parse), and answers once
// every timer due by the new time has fired, with the clock's state and
// how far it moved.
package clockapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"warren/engine"
	"warren/engine/duration"
)

// MaxSteps bounds the steps of one request.
const MaxSteps = 1000

// Request is a POST to a clock: exactly one of a mode to switch to, an
// advance (in ms, possibly 0) or a number of steps.
type Request struct {
	Mode      string // "live", "paused" or "manual"; "" when not switching
	AdvanceMs int64  // when neither Mode nor Steps is set
	Steps     int    // 1 to MaxSteps; 0 when not stepping
}

// Decode reads a POST's body as a JSON object, numbers kept as
// json.Number, for a driver with no JSON reader of its own.
func Decode(data []byte) (map[string]any, error) {
	bad := errors.New("the body must be a JSON object, such as {\"advance\":\"30m\"}")
	if !utf8.Valid(data) {
		return nil, bad
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		return nil, bad
	}
	return obj, nil
}

// Parse reads a POST's decoded body (numbers as json.Number). An error's
// text is the reason to give with a 400.
func Parse(obj map[string]any) (Request, error) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) != 1 {
		return Request{}, errors.New(`give exactly one of "mode", "advance" or "step", not ` + quoteKeys(keys))
	}
	switch keys[0] {
	case "mode":
		s, ok := obj["mode"].(string)
		if !ok {
			return Request{}, errors.New(`"mode" must be "live", "paused" or "manual"`)
		}
		if !validMode(s) {
			return Request{}, errors.New("unknown clock mode " + strconv.Quote(s) + " (use live, paused or manual)")
		}
		return Request{Mode: s}, nil
	case "advance":
		s, ok := obj["advance"].(string)
		if !ok {
			return Request{}, errors.New(`"advance" must be a duration string such as "30m", "1h30m", "500ms" or "2s"`)
		}
		ms, err := parseDuration(s)
		if err != nil {
			return Request{}, err
		}
		return Request{AdvanceMs: ms}, nil
	case "step":
		n, err := stepCount(obj["step"])
		if err != nil {
			return Request{}, err
		}
		return Request{Steps: n}, nil
	}
	return Request{}, errors.New(`unknown key "` + keys[0] + `": give one of "mode", "advance" or "step"`)
}

func validMode(s string) bool { return s == "live" || s == "paused" || s == "manual" }

// parseDuration reads a duration as Go writes it ("1h30m0s", "500ms") or
// as the script language does ("1h30m", "1.5s", "2d", or bare
// milliseconds), in whole milliseconds, forward and at most
// engine.MaxAdvanceMs.
func parseDuration(s string) (int64, error) {
	var ms int64
	if d, err := time.ParseDuration(s); err == nil {
		if d%time.Millisecond != 0 {
			return 0, errors.New("duration " + strconv.Quote(s) + " is not a whole number of milliseconds: the clock moves in milliseconds")
		}
		ms = int64(d / time.Millisecond)
	} else if ms, err = duration.Parse(s); err != nil {
		return 0, err
	}
	if ms < 0 || ms > engine.MaxAdvanceMs {
		return 0, errors.New("duration " + strconv.Quote(s) + " is out of range: the clock moves forward by 0 to " + engine.FormatDuration(engine.MaxAdvanceMs) + " at a time")
	}
	return ms, nil
}

// stepCount reads "step": true is one step, a number 1 to MaxSteps that
// many.
func stepCount(v any) (int, error) {
	switch v := v.(type) {
	case bool:
		if v {
			return 1, nil
		}
	case json.Number:
		if n, err := v.Int64(); err == nil && n >= 1 && n <= MaxSteps {
			return int(n), nil
		}
	}
	return 0, errors.New(`"step" must be true or a whole number from 1 to 1000`)
}

func quoteKeys(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return `"` + strings.Join(keys, `", "`) + `"`
}

// Reply is a clock's state as the API shows it; a POST's adds how far it
// moved.
type Reply struct {
	Mode          string `json:"mode"`
	NowMs         int64  `json:"now_ms"` // engine time: ms since the broker's epoch
	Now           string `json:"now"`    // the same as a duration, "1h30m"
	Time          string `json:"time"`   // epoch + now, RFC 3339 UTC
	NextTimerMs   *int64 `json:"next_timer_ms"`
	NextTimerIn   string `json:"next_timer_in,omitempty"`
	PendingTimers int    `json:"pending_timers"`
	// AdvancedMs is how far a POST moved the clock; Steps how many
	// timers' deadlines a step request reached.
	AdvancedMs *int64 `json:"advanced_ms,omitempty"`
	Advanced   string `json:"advanced,omitempty"`
	Steps      *int   `json:"steps,omitempty"`
}

// State is what a Reply shows of a clock.
type State struct {
	Mode          string
	EpochMs       int64       // the broker's time 0, Unix milliseconds
	Now           engine.Time // engine time
	Next          engine.Time // the next timer's deadline, if HasNext
	HasNext       bool
	PendingTimers int
}

// NewReply shows st.
func NewReply(st State) Reply {
	now := int64(st.Now)
	r := Reply{
		Mode:          st.Mode,
		NowMs:         now,
		Now:           engine.FormatDuration(now),
		Time:          time.UnixMilli(st.EpochMs + now).UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		PendingTimers: st.PendingTimers,
	}
	if st.HasNext {
		next := int64(st.Next)
		r.NextTimerMs = &next
		r.NextTimerIn = engine.FormatDuration(max(0, next-now))
	}
	return r
}

// Moved adds to r how far a POST moved the clock, and the steps it took
// when it stepped (nil otherwise).
func (r *Reply) Moved(ms int64, steps *int) {
	r.AdvancedMs, r.Advanced, r.Steps = &ms, engine.FormatDuration(ms), steps
}
