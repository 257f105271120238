package sessions

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"warren/engine/hub"
)

// joinFrom joins a session as name over a socket whose connection leaves
// from the loopback address ip.
func (ts *testServer) joinFrom(t *testing.T, ip, id, name string) *page {
	t.Helper()
	url := "ws" + strings.TrimPrefix(ts.base, "http") + "/ws/sessions/" + id
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: clientFrom(t, ip)})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	return joinOn(t, &page{t: t, ws: ws}, name)
}

// TestHashReportLoggedWithWhoSentIt: a participant's report of a
// different state hash is logged as that participant's word, with its id,
// name, role and source address, and never as the hub's finding of a bug:
// the hub cannot check a page's state, and a read-only page can send a
// made-up hash (issue 26: one made the server log "DIVERGENCE … this is a
// bug"). Each participant's first differing report is logged, later ones
// only refused, so that a page cannot flood the log.
func TestHashReportLoggedWithWhoSentIt(t *testing.T) {
	ts := startManager(t, hashAll)
	c := ts.create(t, `{"clock":"manual"}`)
	ed := ts.joinFrom(t, "127.0.0.1", c.ID, "Ada")
	ro := ts.joinFrom(t, "127.0.0.2", c.ReadOnlyID, "Rae")
	seq := ed.result(ed.command("declare queue q")).Result.Seq
	for i, p := range []*page{ro, ed, ro} {
		ref := string(rune('a' + i))
		p.send(map[string]any{"type": "hash", "ref": ref, "seq": seq, "hash": "0123456789abcdef"})
		if m := p.result(ref); m.Type != hub.OutError || m.Error.Key != hub.KeyDivergence {
			t.Fatalf("%s's made-up hash: %+v", p.you.Name, m)
		}
	}
	logs := ts.logs.text()
	for _, want := range []string{
		`participant ` + itoa(ro.you.ID) + ` "Rae" (read-only, from 127.0.0.2) reports state hash 0123456789abcdef after entry ` + strconv.FormatUint(seq, 10),
		`participant ` + itoa(ed.you.ID) + ` "Ada" (editor, from 127.0.0.1) reports state hash 0123456789abcdef`,
		"which the session cannot check",
		"会话无法核实",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "DIVERGENCE") || strings.Contains(logs, "this is a bug") {
		t.Errorf("a participant's report is logged as a proven bug:\n%s", logs)
	}
	if n := strings.Count(logs, `"Rae" (read-only`); n != 1 {
		t.Errorf("Rae's two reports made %d log lines, want 1:\n%s", n, logs)
	}
}

func itoa(id hub.ParticipantID) string { return strconv.FormatUint(uint64(id), 10) }
