package sessions

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCreateFromLines: POST /api/sessions with lines starts the session
// from them (Share live sends its page's log): a joiner finds the queue
// and its message. A seed the hub refuses is a 400 with the hub's key and
// values, and no session is left behind.
func TestCreateFromLines(t *testing.T) {
	ts := startManager(t, Config{})
	c := ts.create(t, `{"lines":["declare queue prepared","publish prepared ready-made","# a comment"]}`)
	ada := ts.join(t, c.ID, "Ada")
	qs := ada.replica.B.QueueSummaries("/", []string{"prepared"})
	if len(qs) != 1 || qs[0].ReadyCount != 1 {
		t.Fatalf("the joiner's replica: %+v", qs)
	}

	status, body := ts.do(t, "POST", "/api/sessions", `{"clock":"live","lines":["declare queue q","advance 5s"]}`)
	var reply struct {
		Error, Reason, Key string
		Args               map[string]string
	}
	if status != 400 || json.Unmarshal(body, &reply) != nil || reply.Key != "seedLine" || reply.Args["n"] != "2" ||
		!strings.HasPrefix(reply.Reason, "line 2 of the page's log cannot start a session: the clock is live") {
		t.Fatalf("a refused seed: %d %s", status, body)
	}
	ts.m.mu.Lock()
	n := len(ts.m.byID)
	ts.m.mu.Unlock()
	if n != 2 { // the first session's two ids
		t.Fatalf("the refused seed left a session behind: %d ids", n)
	}
}
