package sessions

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"warren/engine"
	"warren/engine/script"
	"warren/server/hub"
)

// A session's clock over HTTP: the same requests and replies as the
// server's own /api/clock (server/mgmt/clock.go), for one session, so a
// test can drive the TTLs of a shared session's real AMQP programs, and
// `warren ctl advance 30m --session ID` works as it does for the server.
//
//	GET  /api/sessions/{id}/clock                   the clock's state
//	POST /api/sessions/{id}/clock {"mode":"manual"}  switch mode
//	POST /api/sessions/{id}/clock {"advance":"30m"}  move a manual clock forward
//	POST /api/sessions/{id}/clock {"step":1}         to the next timer, N times
//
// The editor id is the capability to move the clock, as it is to end the
// session; the read-only id may read it (403 otherwise). Every move is an
// entry of the session's log, so every page sees it.

// clockReply is the state of a session's clock, in /api/clock's shape.
type clockReply struct {
	Mode          hub.ClockMode `json:"mode"`
	NowMs         int64         `json:"now_ms"`
	Now           string        `json:"now"`
	Time          string        `json:"time"`
	NextTimerMs   *int64        `json:"next_timer_ms"`
	NextTimerIn   string        `json:"next_timer_in,omitempty"`
	PendingTimers int           `json:"pending_timers"`
	AdvancedMs    *int64        `json:"advanced_ms,omitempty"`
	Advanced      string        `json:"advanced,omitempty"`
	Steps         *int          `json:"steps,omitempty"`
}

// maxClockSteps bounds the steps of one request, as /api/clock does.
const maxClockSteps = 1000

func (m *Manager) serveClock(w http.ResponseWriter, r *http.Request, id string) {
	s, role, ok := m.find(id)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no session has this id (it may have ended)")
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		var reply clockReply
		if !s.call(func(int64) { reply = s.clockState() }) {
			writeError(w, http.StatusNotFound, "not_found", "the session has ended")
			return
		}
		writeJSON(w, http.StatusOK, reply)
	case http.MethodPost:
		if role != hub.Editor {
			writeError(w, http.StatusForbidden, "not_authorised", "a read-only id cannot move its session's clock")
			return
		}
		req, err := parseClockRequest(r.Body)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
		var reply clockReply
		var moveErr error
		if !s.call(func(now int64) { reply, moveErr = s.moveClock(now, req) }) {
			writeError(w, http.StatusNotFound, "not_found", "the session has ended")
			return
		}
		var he *hub.Error
		switch {
		case errors.As(moveErr, &he) && he.Key == hub.KeyClockNotManual:
			writeError(w, http.StatusConflict, "conflict", moveErr.Error())
		case moveErr != nil:
			writeError(w, http.StatusBadRequest, "bad_request", moveErr.Error())
		default:
			writeJSON(w, http.StatusOK, reply)
		}
	default:
		methodNotAllowed(w, "GET, HEAD, POST")
	}
}

// clockRequest is a POST's one change: a mode, an advance or steps.
type clockRequest struct {
	mode    hub.ClockMode
	advance int64 // ms; 0 when not advancing
	steps   int
}

func parseClockRequest(body io.Reader) (clockRequest, error) {
	var raw map[string]json.RawMessage
	data, err := io.ReadAll(io.LimitReader(body, maxCreateBody+1))
	if err != nil || len(data) > maxCreateBody {
		return clockRequest{}, errors.New("the body must be a small JSON object")
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return clockRequest{}, errors.New("the body is not a JSON object: " + err.Error())
	}
	if len(raw) != 1 {
		keys := make([]string, 0, len(raw))
		for k := range raw {
			keys = append(keys, strconv.Quote(k))
		}
		sort.Strings(keys)
		return clockRequest{}, errors.New(`the body must hold exactly one of "mode", "advance" and "step", not {` + strings.Join(keys, ", ") + "}")
	}
	var req clockRequest
	for k, v := range raw {
		switch k {
		case "mode":
			var mode string
			if json.Unmarshal(v, &mode) != nil || (mode != string(hub.Live) && mode != string(hub.Paused) && mode != string(hub.Manual)) {
				return req, errors.New(`"mode" must be "live", "paused" or "manual", not ` + string(v))
			}
			req.mode = hub.ClockMode(mode)
		case "advance":
			var d string
			if json.Unmarshal(v, &d) != nil {
				return req, errors.New(`"advance" must be a duration as a string, e.g. "30m", not ` + string(v))
			}
			ms, err := clockDuration(d)
			if err != nil {
				return req, err
			}
			req.advance = ms
		case "step":
			var b bool
			var n int
			switch {
			case json.Unmarshal(v, &b) == nil && b:
				n = 1
			case json.Unmarshal(v, &n) == nil && n >= 1 && n <= maxClockSteps:
			default:
				return req, errors.New(`"step" must be true or a whole number from 1 to ` + strconv.Itoa(maxClockSteps) + ", not " + string(v))
			}
			req.steps = n
		default:
			return req, errors.New(`unknown key "` + k + `": use "mode", "advance" or "step"`)
		}
	}
	return req, nil
}

// clockDuration reads an advance: Go's form ("1h30m") or the script
// language's ("90s", "1.5s", a bare number of ms), positive, at most ten
// years.
func clockDuration(s string) (int64, error) {
	ms := int64(-1)
	if d, err := time.ParseDuration(s); err == nil {
		if d%time.Millisecond != 0 {
			return 0, errors.New("the clock moves in whole milliseconds: " + strconv.Quote(s))
		}
		ms = d.Milliseconds()
	} else if v, err := script.ParseDuration(s); err == nil {
		ms = v
	} else {
		return 0, errors.New("not a duration: " + strconv.Quote(s) + ` (e.g. "30m", "1h30m", "500ms")`)
	}
	if ms <= 0 || ms > 10*365*24*3600*1000 {
		return 0, errors.New("an advance must be more than 0 and at most 10 years: " + strconv.Quote(s))
	}
	return ms, nil
}

// moveClock applies req on the session's goroutine.
func (s *session) moveClock(now int64, req clockRequest) (clockReply, error) {
	before := s.hub.Broker().Now()
	var err error
	steps := 0
	switch {
	case req.mode != "":
		err = s.hub.SetClock(now, req.mode)
	case req.advance > 0:
		err = s.hub.Advance(now, req.advance)
	default:
		for steps < req.steps {
			if _, ok := s.hub.Broker().NextDeadline(); !ok {
				break
			}
			if err = s.hub.Advance(now, 0); err != nil {
				break
			}
			steps++
		}
	}
	reply := s.clockState()
	if err != nil {
		return reply, err
	}
	if req.mode == "" {
		moved := int64(s.hub.Broker().Now() - before)
		reply.AdvancedMs, reply.Advanced = &moved, engine.FormatDuration(moved)
		if req.steps > 0 {
			reply.Steps = &steps
		}
	}
	return reply, nil
}

// clockState reads the session's clock on its goroutine.
func (s *session) clockState() clockReply {
	b := s.hub.Broker()
	now := int64(b.Now())
	r := clockReply{Mode: s.hub.Mode(), NowMs: now, Now: engine.FormatDuration(now),
		Time: time.UnixMilli(b.Config().EpochMs + now).UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	if next, ok := b.NextDeadline(); ok {
		n := int64(next)
		r.NextTimerMs, r.NextTimerIn = &n, engine.FormatDuration(max(0, n-now))
	}
	_, r.PendingTimers = b.TimersUntil(engine.Never, 0)
	return r
}
