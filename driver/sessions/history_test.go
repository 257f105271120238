package sessions

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"warren/engine"
	"warren/engine/hub"
	"warren/engine/script"
)

// replay runs an exported history on a fresh runner, as the offline
// playground does, failing on any script error (a history hash line
// that differs is one).
func replay(t *testing.T, text string) *script.Runner {
	t.Helper()
	r := script.New(engine.Config{Seed: 1})
	for i, line := range strings.Split(text, "\n") {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("line %d (%.70s): %v", i+1, line, err)
		}
	}
	return r
}

// TestHistoryExport: GET /api/sessions/{id}/history, with either id,
// answers with the whole session as a script (lines, a participant who
// left, the server's clock moves made with no page there), past the
// hub's snapshots, that replays to the state every page has.
func TestHistoryExport(t *testing.T) {
	ts := startManager(t, Config{Hub: hub.Config{SnapshotEvery: 3, HashEvery: 4}})
	c := ts.create(t, `{"name":"Tuesday class","clock":"manual"}`)
	a := ts.join(t, c.ID, "Ada")
	b := ts.join(t, c.ID, "Bo")
	run := func(p *page, line string) {
		t.Helper()
		if m := p.result(p.command(line)); m.Type != hub.OutResult || m.Result.Error != nil {
			t.Fatalf("%q: %+v", line, m)
		}
	}
	run(a, "declare queue jobs ttl=30m")
	run(b, "consume jobs")
	for i := range 5 {
		run(a, fmt.Sprintf("publish jobs m%d", i))
	}
	b.ws.Close(websocket.StatusNormalClosure, "") // Bo leaves: his consumer's connection closes
	for a.replica.Seq < 8 {
		a.next(hub.OutEntry)
	}
	a.ws.Close(websocket.StatusNormalClosure, "")
	// No page is there: the server's clock moves are entries all the same.
	if status, body := ts.do(t, "POST", "/api/sessions/"+c.ID+"/clock", `{"advance":"31m"}`); status != http.StatusOK {
		t.Fatalf("advance: %d %s", status, body)
	}
	late := ts.join(t, c.ID, "Cy") // the state every page has now

	req, _ := http.NewRequest("GET", ts.base+"/api/sessions/"+c.ReadOnlyID+"/history?lang=zh-CN", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET history: %d %v", resp.StatusCode, err)
	}
	text := string(data)
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	want := fmt.Sprintf(`attachment; filename="warren-history-%d.txt"`, late.replica.Seq)
	if cd := resp.Header.Get("Content-Disposition"); cd != want {
		t.Errorf("Content-Disposition %q, want %q", cd, want)
	}
	for _, w := range []string{`# Warren：共享会话 "Tuesday class" 的历史`, "# 1 @0s Ada：declare queue jobs ttl=30m\n", " Bo 离开了；其连接已关闭\n", " @31m 服务器：advance 31m\n", "\nhistory start 0 "} {
		if !strings.Contains(text, w) {
			t.Errorf("the history lacks %q:\n%.2000s", w, text)
		}
	}
	if strings.Contains(text, c.ID) || strings.Contains(text, c.ReadOnlyID) {
		t.Error("the history holds the session's ids: whoever gets the file could join")
	}
	r := replay(t, text)
	if got, want := script.StateHash(r.B), late.replica.Hash(); got != want {
		t.Fatalf("the replay's hash is %s, the session's %s", hub.FormatHash(got), hub.FormatHash(want))
	}
	if status, body := ts.do(t, "GET", "/api/sessions/"+c.ID+"/history", ""); status != http.StatusOK || !strings.HasPrefix(string(body), `# Warren: the history of the shared session "Tuesday class"`) {
		t.Fatalf("GET with the editor id: %d %.200s", status, body)
	}
	if status, _ := ts.do(t, "POST", "/api/sessions/"+c.ID+"/history", ""); status != http.StatusMethodNotAllowed {
		t.Errorf("POST history: %d, want 405", status)
	}
	if status, _ := ts.do(t, "GET", "/api/sessions/nosuchsession/history", ""); status != http.StatusNotFound {
		t.Errorf("an unknown id: %d, want 404", status)
	}
}

// TestHistoryBound: past Config.History's bound the export starts from
// a later state of the session, says from which entry, and still
// replays to the session's hash.
func TestHistoryBound(t *testing.T) {
	ts := startManager(t, Config{Hub: hub.Config{SnapshotEvery: 3}, History: hub.HistoryLimits{MaxEntries: 4}})
	c := ts.create(t, `{}`)
	a := ts.join(t, c.ID, "Ada")
	for _, line := range []string{"declare queue q", "publish q 1", "publish q 2", "publish q 3", "publish q 4", "publish q 5", "publish q 6"} {
		if m := a.result(a.command(line)); m.Type != hub.OutResult || m.Result.Error != nil {
			t.Fatalf("%q: %+v", line, m)
		}
	}
	status, body := ts.do(t, "GET", "/api/sessions/"+c.ID+"/history", "")
	if status != http.StatusOK || !strings.Contains(string(body), "The server keeps at most 4 entries") {
		t.Fatalf("GET history past its bound: %d\n%s", status, body)
	}
	if got := script.StateHash(replay(t, string(body)).B); got != a.replica.Hash() {
		t.Fatal("a cut history replays to another state")
	}
}
