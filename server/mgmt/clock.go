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
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) != 1 {
		return 0, nil, badRequest(`give exactly one of "mode", "advance" or "step", not ` + quoteKeys(keys))
	}
	from, err := a.b.Clock()
	if err != nil {
		return 0, nil, err
	}
	var st broker.ClockState
	var steps *int
	switch keys[0] {
	case "mode":
		s, ok := b["mode"].(string)
		if !ok {
			return 0, nil, badRequest(`"mode" must be "live", "paused" or "manual"`)
		}
		mode, perr := broker.ParseClockMode(s)
		if perr != nil {
			return 0, nil, badRequest(perr.Error())
		}
		st, err = a.b.SetClockMode(mode)
	case "advance":
		s, ok := b["advance"].(string)
		if !ok {
			return 0, nil, badRequest(`"advance" must be a duration string such as "30m", "1h30m", "500ms" or "2s"`)
		}
		ms, perr := parseClockDuration(s)
		if perr != nil {
			return 0, nil, perr
		}
		st, err = a.b.Advance(ms)
	case "step":
		n, perr := stepCount(b["step"])
		if perr != nil {
			return 0, nil, perr
		}
		done := 0
		st = from
		for range n {
			var stepped bool
			if st, stepped, err = a.b.StepClock(); err != nil || !stepped {
				break
			}
			done++
		}
		steps = &done
	default:
		return 0, nil, badRequest(`unknown key "` + keys[0] + `": give one of "mode", "advance" or "step"`)
	}
	if errors.Is(err, broker.ErrClockPaused) {
		return 0, nil, &apiError{status: http.StatusConflict, kind: "conflict", reason: err.Error()}
	}
	if err != nil {
		return 0, nil, err
	}
	r := newClockReply(st)
	moved := int64(st.Now - from.Now)
	r.AdvancedMs, r.Advanced, r.Steps = &moved, engine.FormatDuration(moved), steps
	return http.StatusOK, r, nil
}

// parseClockDuration reads a duration as Go writes it ("1h30m0s",
// "500ms") or as the script language does ("1h30m", "1.5s", "2d", or bare
// milliseconds), in whole milliseconds, forward and at most
// broker.MaxAdvanceMs.
func parseClockDuration(s string) (int64, error) {
	var ms int64
	if d, err := time.ParseDuration(s); err == nil {
		if d%time.Millisecond != 0 {
			return 0, badRequest("duration " + quote(s) + " is not a whole number of milliseconds: the clock moves in milliseconds")
		}
		ms = int64(d / time.Millisecond)
	} else if ms, err = script.ParseDuration(s); err != nil {
		return 0, badRequest(err.Error())
	}
	if ms < 0 || ms > broker.MaxAdvanceMs {
		return 0, badRequest("duration " + quote(s) + " is out of range: the clock moves forward by 0 to " + engine.FormatDuration(broker.MaxAdvanceMs) + " at a time")
	}
	return ms, nil
}

// stepCount reads "step": true is one step, a number 1 to maxSteps that
// many.
func stepCount(v any) (int, error) {
	bad := badRequest(`"step" must be true or a whole number from 1 to 1000`)
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
