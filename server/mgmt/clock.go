package mgmt

import (
	"errors"
	"net/http"

	"warren/driver/clockapi"
	"warren/server/broker"
)

// The clock API (driver/clockapi) reads and moves the clock of the
// server's broker (broker.ClockMode). Moving a paused clock is 409; a bad
// mode, duration or count is 400 with the reason. GET needs the
// administrator or monitoring tag, POST the administrator tag.

// clockReply shows the broker's clock.
func clockReply(st broker.ClockState) clockapi.Reply {
	return clockapi.NewReply(clockapi.State{Mode: st.Mode.String(), EpochMs: st.EpochMs, Now: st.Now,
		Next: st.Next, HasNext: st.HasNext, PendingTimers: st.PendingTimers})
}

func (a *api) getClock(c *call) (int, any, error) {
	if !c.seesAll() {
		return 0, nil, errNotAdmin
	}
	st, err := a.b.Clock()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, clockReply(st), nil
}

func (a *api) postClock(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	req, err := clockapi.Parse(b)
	if err != nil {
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
	r := clockReply(st)
	r.Moved(int64(st.Now-from.Now), steps)
	return http.StatusOK, r, nil
}
