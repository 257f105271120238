package sessions

import (
	"errors"
	"net/http"
	"time"

	"warren/engine"
	"warren/engine/hub"
	"warren/server/mgmt"
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

func (m *Manager) serveClock(w http.ResponseWriter, r *http.Request, id string) {
	s, role, ok := m.find(id)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", ErrUnknownID.Error())
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
		req, err := mgmt.ReadClockRequest(r)
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

// moveClock applies req on the session's goroutine.
func (s *session) moveClock(now int64, req mgmt.ClockRequest) (clockReply, error) {
	before := s.hub.Broker().Now()
	var err error
	steps := 0
	switch {
	case req.Mode != "":
		err = s.hub.SetClock(now, hub.ClockMode(req.Mode))
	case req.Steps > 0:
		for steps < req.Steps {
			if _, ok := s.hub.Broker().NextDeadline(); !ok {
				break
			}
			if err = s.hub.Advance(now, 0); err != nil {
				break
			}
			steps++
		}
	case req.AdvanceMs > 0:
		err = s.hub.Advance(now, req.AdvanceMs)
	}
	reply := s.clockState()
	if err != nil {
		return reply, err
	}
	if req.Mode == "" {
		moved := int64(s.hub.Broker().Now() - before)
		reply.AdvancedMs, reply.Advanced = &moved, engine.FormatDuration(moved)
		if req.Steps > 0 {
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
