package sessions

import (
	"errors"
	"io"
	"net/http"

	"warren/driver/clockapi"
	"warren/engine"
	"warren/engine/hub"
)

// A session's clock over HTTP: the same requests and replies as the
// server's own /api/clock (server/mgmt, both through driver/clockapi), for one session, so a
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

func (m *Manager) serveClock(w http.ResponseWriter, r *http.Request, id string) {
	s, role, ok := m.find(id)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", ErrUnknownID.Error())
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		var reply clockapi.Reply
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
		req, err := readClockRequest(r)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
		var reply clockapi.Reply
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
func (s *session) moveClock(now int64, req clockapi.Request) (clockapi.Reply, error) {
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
		var stepped *int
		if req.Steps > 0 {
			stepped = &steps
		}
		reply.Moved(int64(s.hub.Broker().Now()-before), stepped)
	}
	return reply, nil
}

// clockState reads the session's clock on its goroutine.
func (s *session) clockState() clockapi.Reply {
	b := s.hub.Broker()
	st := clockapi.State{Mode: string(s.hub.Mode()), EpochMs: b.Config().EpochMs, Now: b.Now()}
	st.Next, st.HasNext = b.NextDeadline()
	_, st.PendingTimers = b.TimersUntil(engine.Never, 0)
	return clockapi.NewReply(st)
}

// maxClockBody bounds a clock POST's body, which holds one key.
const maxClockBody = 4 << 10

// readClockRequest reads a clock POST's body (clockapi.Parse); an
// error's text is the reason to give with a 400.
func readClockRequest(r *http.Request) (clockapi.Request, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxClockBody+1))
	if err != nil {
		return clockapi.Request{}, err
	}
	if len(data) > maxClockBody {
		return clockapi.Request{}, errors.New("request body too large: a clock request holds one key")
	}
	obj, err := clockapi.Decode(data)
	if err != nil {
		return clockapi.Request{}, err
	}
	return clockapi.Parse(obj)
}
