package mgmt

import (
	"testing"
	"time"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// newClockFixture is a fixture whose broker starts on a manual clock, the
// wall clock fixed at the epoch.
func newClockFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t}
	epoch := time.Unix(1_700_000_000, 0)
	f.b = broker.StartWith(engine.Config{Seed: 1}, broker.Options{Clock: broker.ClockManual, Now: func() time.Time { return epoch }})
	t.Cleanup(f.b.Stop)
	var err error
	if f.users, err = auth.NewStore(f.b); err != nil {
		t.Fatal(err)
	}
	f.api = newAPI(f.b, f.users)
	f.h = f.api.mux
	return f
}

// TestClockAPI drives the broker's manual clock over HTTP: a TTL waits
// for an advance, a step goes to the next timer, and each reply says
// where the clock is and what is next.
func TestClockAPI(t *testing.T) {
	f := newClockFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q", `{"arguments":{"x-message-ttl":60000}}`)
	f.must(201, "PUT", "/api/queues/%2F/late", `{"arguments":{"x-message-ttl":1800000}}`)
	f.publish("/", "q", "a")
	f.publish("/", "late", "b")

	got := f.must(200, "GET", "/api/clock", "").body
	want := `{"mode":"manual","now_ms":0,"now":"0s","time":"2023-11-14T22:13:20.000Z","next_timer_ms":60000,"next_timer_in":"1m","pending_timers":2}`
	if got != want {
		t.Errorf("GET /api/clock:\n got %s\nwant %s", got, want)
	}
	got = f.must(200, "POST", "/api/clock", `{"advance":"59s"}`).body
	want = `{"mode":"manual","now_ms":59000,"now":"59s","time":"2023-11-14T22:14:19.000Z","next_timer_ms":60000,"next_timer_in":"1s","pending_timers":2,"advanced_ms":59000,"advanced":"59s"}`
	if got != want {
		t.Errorf("advance 59s:\n got %s\nwant %s", got, want)
	}
	if b := f.readyBodies("/", "q"); len(b) != 1 {
		t.Fatalf("q holds %v before its TTL", b)
	}
	got = f.must(200, "POST", "/api/clock", `{"step":true}`).body
	want = `{"mode":"manual","now_ms":60000,"now":"1m","time":"2023-11-14T22:14:20.000Z","next_timer_ms":1800000,"next_timer_in":"29m","pending_timers":1,"advanced_ms":1000,"advanced":"1s","steps":1}`
	if got != want {
		t.Errorf("step:\n got %s\nwant %s", got, want)
	}
	if b := f.readyBodies("/", "q"); len(b) != 0 {
		t.Fatalf("q holds %v after its TTL", b)
	}
	r := f.must(200, "POST", "/api/clock", `{"step":5}`).object(t)
	if num(t, r, "steps") != 1 || num(t, r, "now_ms") != 1800000 || r["next_timer_ms"] != nil || num(t, r, "pending_timers") != 0 {
		t.Errorf("step 5 with one timer left: %v", r)
	}
	r = f.must(200, "POST", "/api/clock", `{"advance":"1h30m"}`).object(t)
	if num(t, r, "now_ms") != 1800000+5400000 || r["now"] != "2h" {
		t.Errorf("advance 1h30m: %v", r)
	}
	for _, d := range []struct {
		in   string
		ms   int
		want string
	}{{"500ms", 500, "500ms"}, {"2s", 2000, "2s"}, {"1.5s", 1500, "1.5s"}, {"1h0m0s", 3600000, "1h"}, {"1500", 1500, "1.5s"}, {"1d", 86400000, "24h"}, {"0s", 0, "0s"}} {
		r = f.must(200, "POST", "/api/clock", `{"advance":"`+d.in+`"}`).object(t)
		if num(t, r, "advanced_ms") != d.ms || r["advanced"] != d.want {
			t.Errorf("advance %s: %v", d.in, r)
		}
	}
}

// TestClockModes: switching modes over HTTP; a paused clock refuses to
// move (409); going live keeps the engine time.
func TestClockModes(t *testing.T) {
	f := newClockFixture(t)
	f.must(200, "POST", "/api/clock", `{"advance":"30m"}`)
	r := f.must(200, "POST", "/api/clock", `{"mode":"paused"}`).object(t)
	if r["mode"] != "paused" || num(t, r, "now_ms") != 1800000 || num(t, r, "advanced_ms") != 0 {
		t.Errorf("pause: %v", r)
	}
	f.wantError(f.do("POST", "/api/clock", `{"advance":"1s"}`), 409,
		`{"error":"conflict","reason":"the clock is paused: set the mode to manual to move it by hand, or to live to resume it"}`)
	f.wantError(f.do("POST", "/api/clock", `{"step":1}`), 409,
		`{"error":"conflict","reason":"the clock is paused: set the mode to manual to move it by hand, or to live to resume it"}`)
	r = f.must(200, "POST", "/api/clock", `{"mode":"live"}`).object(t)
	if r["mode"] != "live" || num(t, r, "now_ms") != 1800000 {
		t.Errorf("live after paused: %v", r)
	}
	if r = f.must(200, "GET", "/api/clock", "").object(t); r["mode"] != "live" || num(t, r, "now_ms") != 1800000 {
		t.Errorf("GET in live mode (the wall clock stands still in this test): %v", r)
	}
}

// TestClockErrors: precise 400s for what the API cannot read, and the
// administrator tag for moving the clock.
func TestClockErrors(t *testing.T) {
	f := newClockFixture(t)
	for _, c := range []struct{ body, want string }{
		{`{"advance":"soon"}`, `{"error":"bad_request","reason":"bad duration \"soon\" (use e.g. 250ms, 5s, 1.5s, 2m, 1h)"}`},
		{`{"advance":"5x"}`, `{"error":"bad_request","reason":"bad duration unit \"x\" in \"5x\" (use ms, s, m, h or d)"}`},
		{`{"advance":"-5m"}`, `{"error":"bad_request","reason":"duration \"-5m\" is out of range: the clock moves forward by 0 to 876000h at a time"}`},
		// At most 100 years a move (engine.MaxAdvanceMs), and no number
		// wraps engine time (issue 26).
		{`{"advance":"36500d1ms"}`, `{"error":"bad_request","reason":"duration \"36500d1ms\" is out of range: the clock moves forward by 0 to 876000h at a time"}`},
		{`{"advance":"9223372036854775000"}`, `{"error":"bad_request","reason":"duration \"9223372036854775000\" is out of range: the clock moves forward by 0 to 876000h at a time"}`},
		{`{"advance":"300000000000000d"}`, `{"error":"bad_request","reason":"bad duration \"300000000000000d\""}`},
		{`{"advance":"1500us"}`, `{"error":"bad_request","reason":"duration \"1500us\" is not a whole number of milliseconds: the clock moves in milliseconds"}`},
		{`{"advance":30}`, `{"error":"bad_request","reason":"\"advance\" must be a duration string such as \"30m\", \"1h30m\", \"500ms\" or \"2s\""}`},
		{`{"mode":"fast"}`, `{"error":"bad_request","reason":"unknown clock mode \"fast\" (use live, paused or manual)"}`},
		{`{"mode":1}`, `{"error":"bad_request","reason":"\"mode\" must be \"live\", \"paused\" or \"manual\""}`},
		{`{"step":0}`, `{"error":"bad_request","reason":"\"step\" must be true or a whole number from 1 to 1000"}`},
		{`{"step":1001}`, `{"error":"bad_request","reason":"\"step\" must be true or a whole number from 1 to 1000"}`},
		{`{"speed":2}`, `{"error":"bad_request","reason":"unknown key \"speed\": give one of \"mode\", \"advance\" or \"step\""}`},
		{`{}`, `{"error":"bad_request","reason":"give exactly one of \"mode\", \"advance\" or \"step\", not none"}`},
		{`{"mode":"live","advance":"1s"}`, `{"error":"bad_request","reason":"give exactly one of \"mode\", \"advance\" or \"step\", not \"advance\", \"mode\""}`},
		{`[1]`, `{"error":"bad_request","reason":"not_json"}`},
	} {
		f.wantError(f.do("POST", "/api/clock", c.body), 400, c.want)
	}
	if r := f.must(200, "GET", "/api/clock", "").object(t); num(t, r, "now_ms") != 0 {
		t.Errorf("a refused request moved the clock: %v", r)
	}

	f.users.AddUser("mgr", "pw", []string{"management"})
	f.users.AddUser("mon", "pw", []string{"monitoring"})
	f.wantError(f.as("mgr", "pw", "GET", "/api/clock", ""), 401, `{"error":"not_authorised","reason":"Not administrator user"}`)
	f.wantError(f.as("mon", "pw", "POST", "/api/clock", `{"advance":"1s"}`), 401, `{"error":"not_authorised","reason":"Not administrator user"}`)
	if r := f.as("mon", "pw", "GET", "/api/clock", ""); r.status != 200 {
		t.Errorf("monitoring reads the clock: %d %s", r.status, r.body)
	}
}
