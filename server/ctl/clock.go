package ctl

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"warren/engine"
)

// The clock commands are Warren's own (RabbitMQ's clock cannot be moved):
// they read and move the broker's clock through /api/clock, for tests that
// drive TTLs, delays and leases by hand on a server started with
// `warren serve --clock manual`.
//
//	$ warren ctl advance 30m
//	Advancing the clock by 30m ...
//	Mode: manual
//	Time: 30m (2026-11-26T00:57:54.536Z)
//	Advanced by: 30m
//	Next timer: in 5m, at 35m
//	Pending timers: 2

// clockState is /api/clock's reply (server/mgmt/clock.go).
type clockState struct {
	Mode          string `json:"mode"`
	NowMs         int64  `json:"now_ms"`
	Now           string `json:"now"`
	Time          string `json:"time"`
	NextTimerMs   *int64 `json:"next_timer_ms"`
	NextTimerIn   string `json:"next_timer_in"`
	PendingTimers int    `json:"pending_timers"`
	Advanced      string `json:"advanced"`
	Steps         *int   `json:"steps"`
}

// runAdvance is advance DURATION.
func runAdvance(e *env) int {
	e.info("Advancing the clock by %s ...", e.args[0])
	return e.postClock(map[string]any{"advance": e.args[0]})
}

// runStep is step [N]: the clock moves to the next timer's deadline, N
// times (once by default).
func runStep(e *env) int {
	n := 1
	if len(e.args) == 1 {
		var err error
		if n, err = strconv.Atoi(e.args[0]); err != nil || n < 1 || n > 1000 {
			return e.usageError(fmt.Sprintf("the number of steps must be a whole number from 1 to 1000, not %s", quoted(e.args[0])))
		}
	}
	if n == 1 {
		e.info("Stepping the clock to the next timer ...")
	} else {
		e.info("Stepping the clock through the next %d timers ...", n)
	}
	return e.postClock(map[string]any{"step": n})
}

// runClock is clock [MODE]: the clock's state, after switching its mode
// when one is given.
func runClock(e *env) int {
	if len(e.args) == 0 {
		e.info("Reading the clock ...")
		var st clockState
		if err := e.c.getJSON(e.clockPath(), &st); err != nil {
			return e.failed(err)
		}
		e.printClock(st)
		return exitOK
	}
	switch e.args[0] {
	case "live", "paused", "manual":
	default:
		return e.usageError(fmt.Sprintf("the clock's mode must be live, paused or manual, not %s", quoted(e.args[0])))
	}
	e.info("Setting the clock to %s ...", e.args[0])
	return e.postClock(map[string]any{"mode": e.args[0]})
}

// postClock sends a clock request and prints the clock's state after it.
// A request the server cannot read (a bad duration) or cannot do (a
// paused clock) fails with the server's reason.
func (e *env) postClock(body map[string]any) int {
	data, err := e.c.do("POST", e.clockPath(), body)
	var ae *apiError
	if errors.As(err, &ae) && (ae.status == http.StatusBadRequest || ae.status == http.StatusConflict) {
		return e.fail(exitDataErr, ae.reason)
	}
	if err != nil {
		return e.failed(err)
	}
	var st clockState
	if err := json.Unmarshal(data, &st); err != nil {
		return e.fail(exitSoftware, "the server's reply is not a clock: "+err.Error())
	}
	e.printClock(st)
	return exitOK
}

// clockPath is the clock the command reads and moves: the server's
// broker's, or with --session a shared session's (driver/sessions).
func (e *env) clockPath() string {
	if e.opts.session != "" {
		return "/api/sessions/" + url.PathEscape(e.opts.session) + "/clock"
	}
	return "/api/clock"
}

func (e *env) printClock(st clockState) {
	var b strings.Builder
	fmt.Fprintf(&b, "Mode: %s\nTime: %s (%s)\n", st.Mode, st.Now, st.Time)
	if st.Advanced != "" {
		fmt.Fprintf(&b, "Advanced by: %s\n", st.Advanced)
	}
	if st.Steps != nil {
		fmt.Fprintf(&b, "Timers reached: %d\n", *st.Steps)
	}
	if st.NextTimerMs == nil {
		b.WriteString("Next timer: none\n")
	} else {
		fmt.Fprintf(&b, "Next timer: in %s, at %s\n", st.NextTimerIn, engine.FormatDuration(*st.NextTimerMs))
	}
	fmt.Fprintf(&b, "Pending timers: %d\n", st.PendingTimers)
	fmt.Fprint(e.stdout, b.String())
}
