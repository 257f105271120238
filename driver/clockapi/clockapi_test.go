package clockapi

import "testing"

// TestParse reads every kind of clock POST, and refuses what the API
// does not take with the reason a 400 gives.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		body string
		want Request
		err  string
	}{
		{body: `{"mode":"manual"}`, want: Request{Mode: "manual"}},
		{body: `{"advance":"1h30m"}`, want: Request{AdvanceMs: 5_400_000}},
		{body: `{"advance":"1h30m0s"}`, want: Request{AdvanceMs: 5_400_000}},
		{body: `{"advance":"2d"}`, want: Request{AdvanceMs: 172_800_000}},
		{body: `{"advance":"0s"}`, want: Request{}},
		{body: `{"step":true}`, want: Request{Steps: 1}},
		{body: `{"step":1000}`, want: Request{Steps: 1000}},
		{body: `{}`, err: `give exactly one of "mode", "advance" or "step", not none`},
		{body: `{"step":1,"mode":"live"}`, err: `give exactly one of "mode", "advance" or "step", not "mode", "step"`},
		{body: `{"mode":"fast"}`, err: `unknown clock mode "fast" (use live, paused or manual)`},
		{body: `{"mode":1}`, err: `"mode" must be "live", "paused" or "manual"`},
		{body: `{"advance":30}`, err: `"advance" must be a duration string such as "30m", "1h30m", "500ms" or "2s"`},
		{body: `{"advance":"1.5ms"}`, err: `duration "1.5ms" is not a whole number of milliseconds: the clock moves in milliseconds`},
		{body: `{"advance":"-1s"}`, err: `duration "-1s" is out of range: the clock moves forward by 0 to 876000h at a time`},
		{body: `{"step":false}`, err: `"step" must be true or a whole number from 1 to 1000`},
		{body: `{"step":1001}`, err: `"step" must be true or a whole number from 1 to 1000`},
		{body: `{"step":1.5}`, err: `"step" must be true or a whole number from 1 to 1000`},
		{body: `{"speed":2}`, err: `unknown key "speed": give one of "mode", "advance" or "step"`},
		{body: `[1]`, err: `the body must be a JSON object, such as {"advance":"30m"}`},
		{body: `{"mode":"live"} {}`, err: `the body must be a JSON object, such as {"advance":"30m"}`},
		{body: "{\"mode\":\"\xff\"}", err: `the body must be a JSON object, such as {"advance":"30m"}`},
	} {
		obj, err := Decode([]byte(tc.body))
		var got Request
		if err == nil {
			got, err = Parse(obj)
		}
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %+v, %v; want %+v", tc.body, got, err, tc.want)
		}
	}
}

// TestNewReply shows a clock as the API does: times as milliseconds and
// as durations, the wall time at epoch + now, and how far a POST moved.
func TestNewReply(t *testing.T) {
	r := NewReply(State{Mode: "manual", EpochMs: 1_700_000_000_000, Now: 90_000, Next: 120_000, HasNext: true, PendingTimers: 2})
	steps := 3
	r.Moved(30_000, &steps)
	if r.Mode != "manual" || r.NowMs != 90_000 || r.Now != "1m30s" || r.Time != "2023-11-14T22:14:50.000Z" ||
		r.NextTimerMs == nil || *r.NextTimerMs != 120_000 || r.NextTimerIn != "30s" || r.PendingTimers != 2 ||
		*r.AdvancedMs != 30_000 || r.Advanced != "30s" || *r.Steps != 3 {
		t.Fatalf("reply %+v", r)
	}
	if r := NewReply(State{Mode: "live"}); r.NextTimerMs != nil || r.NextTimerIn != "" {
		t.Fatalf("no timer: %+v", r)
	}
}
