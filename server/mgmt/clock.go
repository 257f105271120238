package mgmt

import (
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"warren/engine"
	"warren/engine/script"
	"warren/server/broker"
)

// The clock API is Warren's own (RabbitMQ has no clock to move): it reads
// and moves the clock of the server's broker (broker.ClockMode).
//
//	GET  /api/clock                   the clock's state (clockReply)
//	POST /api/clock {"mode":"manual"}  switch mode: live, paused or manual
//	POST /api/clock {"advance":"30m"}  move forward by a duration
//	POST /api/clock {"step":1}         move to the next timer, N times
//
// A POST holds exactly one of the three keys, and answers once every
// timer due by the new time has fired, with the clock's state and how far
// it moved. Moving a paused clock is 409; a bad mode, duration or count
// is 400 with the reason. GET needs the administrator or monitoring tag,
// POST the administrator tag.

// maxSteps bounds the steps of one request.
const maxSteps = 1000

// clockReply is the clock's state as the API shows it.
type clockReply struct {
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

func newClockReply(st broker.ClockState) clockReply {
	r := clockReply{
		Mode:          st.Mode.String(),
		NowMs:         int64(st.Now),
		Now:           engine.FormatDuration(int64(st.Now)),
		Time:          time.UnixMilli(st.EpochMs + int64(st.Now)).UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		PendingTimers: st.PendingTimers,
	}
	if st.HasNext {
		next := int64(st.Next)
		r.NextTimerMs = &next
		r.NextTimerIn = engine.FormatDuration(max(0, next-int64(st.Now)))
	}
	return r
}

func (a *api) getClock(c *call) (int, any, error) {
	if !c.seesAll() {
		return 0, nil, errNotAdmin
	}
	st, err := a.b.Clock()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, newClockReply(st), nil
}

func (a *api) postClock(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	req, err := ReadClockRequest(c.r)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			return 0, nil, err
		}
		return 0, nil, badRequest(err.Error())
	}
	from, err := a.b.Clock()
	if err != nil {
		return 0, nil, err
	}
	var st broker.ClockState
	var steps *int
	switch {
	case req.Mode != "":
		mode, _ := broker.ParseClockMode(req.Mode)
		st, err = a.b.SetClockMode(mode)
	case req.Steps > 0:
		done := 0
		st = from
		for range req.Steps {
			var stepped bool
			if st, stepped, err = a.b.StepClock(); err != nil || !stepped {
				break
			}
			done++
		}
		steps = &done
	default:
		st, err = a.b.Advance(req.AdvanceMs)
	}
	if errors.Is(err, broker.ErrClockPaused) {
		return 0, nil, &apiError{status: http.StatusConflict, kind: "conflict", reason: err.Error()}
	}
	if errors.Is(err, broker.ErrClockRange) {
		return 0, nil, badRequest(err.Error())
	}
	if err != nil {
		return 0, nil, err
	}
	r := newClockReply(st)
	moved := int64(st.Now - from.Now)
	r.AdvancedMs, r.Advanced, r.Steps = &moved, engine.FormatDuration(moved), steps
	return http.StatusOK, r, nil
}

// ClockRequest is a POST to a clock: exactly one of a mode to switch to,
// an advance (in ms, possibly 0) or a number of steps. A shared session's
// clock API (server/sessions) takes the same bodies.
type ClockRequest struct {
	Mode      string // "live", "paused" or "manual"; "" when not switching
	AdvanceMs int64  // when neither Mode nor Steps is set
	Steps     int    // 1 to 1000; 0 when not stepping
}

// ReadClockRequest reads a clock POST's body. An error's text is the
// reason to give with a 400 (or the management API's own error for a body
// it cannot read).
func ReadClockRequest(r *http.Request) (ClockRequest, error) {
	b, err := readBody(r)
	if err != nil {
		return ClockRequest{}, err
	}
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) != 1 {
		return ClockRequest{}, errors.New(`give exactly one of "mode", "advance" or "step", not ` + quoteKeys(keys))
	}
	switch keys[0] {
	case "mode":
		s, ok := b["mode"].(string)
		if !ok {
			return ClockRequest{}, errors.New(`"mode" must be "live", "paused" or "manual"`)
		}
		if _, err := broker.ParseClockMode(s); err != nil {
			return ClockRequest{}, err
		}
		return ClockRequest{Mode: s}, nil
	case "advance":
		s, ok := b["advance"].(string)
		if !ok {
			return ClockRequest{}, errors.New(`"advance" must be a duration string such as "30m", "1h30m", "500ms" or "2s"`)
		}
		ms, err := parseClockDuration(s)
		if err != nil {
			return ClockRequest{}, err
		}
		return ClockRequest{AdvanceMs: ms}, nil
	case "step":
		n, err := stepCount(b["step"])
		if err != nil {
			return ClockRequest{}, err
		}
		return ClockRequest{Steps: n}, nil
	}
	return ClockRequest{}, errors.New(`unknown key "` + keys[0] + `": give one of "mode", "advance" or "step"`)
}

// parseClockDuration reads a duration as Go writes it ("1h30m0s",
// "500ms") or as the script language does ("1h30m", "1.5s", "2d", or bare
// milliseconds), in whole milliseconds, forward and at most
// broker.MaxAdvanceMs.
func parseClockDuration(s string) (int64, error) {
	var ms int64
	if d, err := time.ParseDuration(s); err == nil {
		if d%time.Millisecond != 0 {
			return 0, errors.New("duration " + quote(s) + " is not a whole number of milliseconds: the clock moves in milliseconds")
		}
		ms = int64(d / time.Millisecond)
	} else if ms, err = script.ParseDuration(s); err != nil {
		return 0, err
	}
	if ms < 0 || ms > broker.MaxAdvanceMs {
		return 0, errors.New("duration " + quote(s) + " is out of range: the clock moves forward by 0 to " + engine.FormatDuration(broker.MaxAdvanceMs) + " at a time")
	}
	return ms, nil
}

// stepCount reads "step": true is one step, a number 1 to maxSteps that
// many.
func stepCount(v any) (int, error) {
	bad := errors.New(`"step" must be true or a whole number from 1 to 1000`)
	switch v := v.(type) {
	case bool:
		if v {
			return 1, nil
		}
	case json.Number:
		if n, err := v.Int64(); err == nil && n >= 1 && n <= maxSteps {
			return int(n), nil
		}
	}
	return 0, bad
}

func quoteKeys(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return `"` + strings.Join(keys, `", "`) + `"`
}
