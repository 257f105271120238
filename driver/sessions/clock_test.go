package sessions

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"warren/driver/clockapi"

	"warren/engine/hub"
)

// TestSessionClockAPI: a session's clock is read with either id and moved
// with the editor id, in /api/clock's shape; a move is an entry every page
// applies, so a message's TTL in a manual session runs out only when the
// API (or an editor) moves the clock, and the pages see it expire.
func TestSessionClockAPI(t *testing.T) {
	ts := startManager(t, hashAll)
	c := ts.create(t, `{"clock":"manual"}`)
	a := ts.join(t, c.ID, "Ada")
	for _, line := range []string{"declare queue q ttl=30m", "publish q hello"} {
		if m := a.result(a.command(line)); m.Type != hub.OutResult || m.Result.Error != nil {
			t.Fatalf("%q: %+v", line, m)
		}
	}
	clock := func(method, id, body string) (int, clockapi.Reply, string) {
		t.Helper()
		status, data := ts.do(t, method, "/api/sessions/"+id+"/clock", body)
		var r clockapi.Reply
		json.Unmarshal(data, &r)
		return status, r, string(data)
	}
	status, r, raw := clock("GET", c.ReadOnlyID, "")
	if status != http.StatusOK || r.Mode != string(hub.Manual) || r.NowMs != 0 || r.NextTimerMs == nil || *r.NextTimerMs != 1_800_000 || r.PendingTimers != 1 {
		t.Fatalf("GET with the read-only id: %d %s", status, raw)
	}
	if status, _, raw := clock("POST", c.ReadOnlyID, `{"advance":"30m"}`); status != http.StatusForbidden || !strings.Contains(raw, "read-only") {
		t.Fatalf("a read-only id moved the clock: %d %s", status, raw)
	}
	for _, bad := range []string{`{}`, `{"advance":"soon"}`, `{"advance":"-5m"}`, `{"step":0}`, `{"mode":"lunar"}`, `{"advance":"1m","step":1}`} {
		if status, _, raw := clock("POST", c.ID, bad); status != http.StatusBadRequest {
			t.Errorf("POST %s: %d %s, want 400", bad, status, raw)
		}
	}
	status, r, raw = clock("POST", c.ID, `{"advance":"29m"}`)
	if status != http.StatusOK || r.NowMs != 29*60_000 || r.AdvancedMs == nil || *r.AdvancedMs != 29*60_000 {
		t.Fatalf("advance 29m: %d %s", status, raw)
	}
	status, r, raw = clock("POST", c.ID, `{"step":true}`)
	if status != http.StatusOK || r.NowMs != 1_800_000 || r.Steps == nil || *r.Steps != 1 || r.PendingTimers != 0 {
		t.Fatalf("step: %d %s", status, raw)
	}
	// The page saw both moves as entries, and the message expire.
	expired := false
	for a.replica.Seq < 4 {
		e := a.next(hub.OutEntry)
		if e.Entry.Origin.Kind == hub.OriginServer && e.Entry.Origin.Line == "step" {
			expired = true
		}
	}
	if !expired || a.replica.B.Now() != 1_800_000 {
		t.Fatalf("the page's replica is at %d after the API's moves (step entry seen: %t)", a.replica.B.Now(), expired)
	}
	if status, _, raw := clock("POST", c.ID, `{"mode":"paused"}`); status != http.StatusOK {
		t.Fatalf("pause: %d %s", status, raw)
	}
	if status, _, raw := clock("POST", c.ID, `{"advance":"1m"}`); status != http.StatusConflict || !strings.Contains(raw, "paused") {
		t.Fatalf("advancing a paused session: %d %s, want 409", status, raw)
	}
	if status, _, _ := clock("GET", "nosuchsession", ""); status != http.StatusNotFound {
		t.Fatalf("an unknown id: %d, want 404", status)
	}
}
