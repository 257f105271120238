//go:build !js

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"warren/driver/sessions"
	"warren/engine/hub"
)

// The shared sessions at the edge: each a Durable Object (session.mjs)
// running the Go session role (sessionrole, driver/sessions' Host) under
// `wrangler dev --local`.

// hibernateAfter is how long the hibernation test leaves a session alone:
// workerd takes an object with only hibernatable sockets out of memory
// after ten seconds without events.
const hibernateAfter = 13 * time.Second

// createSession POSTs /api/sessions with body.
func createSession(t *testing.T, base, body string) sessions.Created {
	t.Helper()
	res, err := http.Post(base+"/api/sessions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var c sessions.Created
	if res.StatusCode != http.StatusCreated || json.Unmarshal(data, &c) != nil {
		t.Fatalf("POST /api/sessions %s: %d %s", body, res.StatusCode, data)
	}
	return c
}

// edgePage is a participant's page: its socket and its replica.
type edgePage struct {
	t       *testing.T
	name    string
	ws      *websocket.Conn
	rep     *hub.Replica
	welcome hub.Message
}

// joinEdge joins a page that says it is still there every pingEvery, as
// live.js does (engine/hub/PROTOCOL.md, "Still here"): the session object
// lets go of a page it has not heard from for 45 s.
func joinEdge(t *testing.T, base, id, name string) *edgePage {
	t.Helper()
	return joinEdgePinging(t, base, id, name, true)
}

// pingEvery is how often a test's page pings: more often than live.js,
// so that a page waiting for a message hears a pong well within read's
// deadline.
const pingEvery = 5 * time.Second

func joinEdgePinging(t *testing.T, base, id, name string, pings bool) *edgePage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws/sessions/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ws.CloseNow() })
	if pings {
		go func() {
			for {
				select {
				case <-done:
					return
				case <-time.After(pingEvery):
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ping"}`))
				cancel()
				if err != nil {
					return
				}
			}
		}()
	}
	p := &edgePage{t: t, name: name, ws: ws}
	p.send(map[string]any{"type": "join", "name": name})
	p.welcome = p.read()
	if p.welcome.Type != hub.OutWelcome {
		t.Fatalf("%s's first message: %+v", name, p.welcome)
	}
	if p.rep, _, err = hub.NewReplica(p.welcome.Snapshot, p.welcome.Clock); err != nil {
		t.Fatal(err)
	}
	return p
}

// closeOfPage opens a page's socket for id, sends a join, and returns
// how the socket was closed.
func closeOfPage(t *testing.T, base, id string) (websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws/sessions/"+id, nil)
	if err != nil {
		t.Fatalf("the page socket of id %s: %v", id, err)
	}
	defer ws.CloseNow()
	ws.Write(ctx, websocket.MessageText, []byte(`{"type":"join","name":"Late"}`))
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("the page socket of id %s ended without a close frame: %v", id, err)
			}
			return ce.Code, ce.Reason
		}
	}
}

func (p *edgePage) send(v any) {
	p.t.Helper()
	data, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.ws.Write(ctx, websocket.MessageText, data); err != nil {
		p.t.Fatal(err)
	}
}

func (p *edgePage) read() hub.Message {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, data, err := p.ws.Read(ctx)
	if err != nil {
		p.t.Fatal(err)
	}
	var m hub.Message
	if err := json.Unmarshal(data, &m); err != nil {
		p.t.Fatal(err)
	}
	return m
}

// until applies entries until ok says the page has what it waits for.
func (p *edgePage) until(what string, ok func(m hub.Message) bool) {
	p.t.Helper()
	for {
		m := p.read()
		if m.Type == hub.OutEntry {
			if _, err := p.rep.Apply(m.Entry); err != nil {
				p.t.Fatal(err)
			}
		}
		if m.Type == hub.OutError && m.Error.Key != hub.KeyStaleHash {
			p.t.Fatalf("waiting for %s: %+v", what, m.Error)
		}
		if ok(m) {
			return
		}
	}
}

// ended reads until the page's socket closes and returns the key of the
// ended message it got before ("" for none); the test fails if the
// socket stays open past read's deadline.
func (p *edgePage) ended() string {
	p.t.Helper()
	key := ""
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, data, err := p.ws.Read(ctx)
		cancel()
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				p.t.Fatalf("%s: the socket did not close: %v", p.name, err)
			}
			return key
		}
		var m hub.Message
		if json.Unmarshal(data, &m) == nil && m.Type == hub.OutEnded && m.Error != nil {
			key = m.Error.Key
		}
	}
}

func (p *edgePage) ready(queue string) int {
	for _, q := range p.rep.B.QueueSummaries("/", []string{queue}) {
		return q.ReadyCount
	}
	return -1
}

// nodeWithWebSocket is node with a global WebSocket (Node 20 needs the
// flag; publish_ws.mjs falls back to the ws package without one).
func nodeWithWebSocket(t *testing.T) []string {
	n := node(t)
	if exec.Command(n, "--experimental-websocket", "-e", "0").Run() == nil {
		return []string{n, "--experimental-websocket"}
	}
	return []string{n}
}

// clientScript runs one of server/e2e/node's client scripts (`make deps`
// installs their packages) and returns its output.
func clientScript(t *testing.T, script string, args ...string) string {
	t.Helper()
	argv := append(nodeWithWebSocket(t), append([]string{filepath.Join(root, "server/e2e/node", script)}, args...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// amqpURL is the session's AMQP-over-WebSocket URL with its login.
func amqpURL(base string, c sessions.Created) string {
	return fmt.Sprintf("ws://%s:%s@%s%s", c.AMQP.User, c.AMQP.Password, strings.TrimPrefix(base, "http://"), c.AMQP.WebSocket)
}

// TestEdgeSessions: sessions at the edge do what they do under warren
// serve. Two pages and a late joiner see the same state; a read-only
// page is refused; @cloudamqp/amqp-client runs its whole WebSocket
// scenario in a live session's broker; a real client's message is seen by
// a page, and its TTL dead-letters it with nobody connected; and after
// wrangler dev stops and starts again on the same state directory, a
// session whose TTL ran out meanwhile is woken by its alarm, a manual
// session is the same (state hash), and a confirmed message is still
// there.
func TestEdgeSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs wrangler dev")
	}
	persist := t.TempDir()
	first := startDevAt(t, persist)
	base := first.base

	var manual sessions.Created
	var hash, seq uint64
	t.Run("participants", func(t *testing.T) {
		c := createSession(t, base, `{"name":"class","clock":"manual","lines":["declare queue prepared","publish prepared from-the-page"]}`)
		if len(c.ID) != 44 || len(c.ReadOnlyID) != 22 || !strings.HasPrefix(c.ID, c.ReadOnlyID) || c.Link != "/s/"+c.ID {
			t.Fatalf("created %+v", c)
		}
		ada := joinEdge(t, base, c.ID, "Ada")
		if ada.ready("prepared") != 1 || ada.welcome.AMQP == nil || ada.welcome.AMQP.WebSocket != "/ws/amqp/"+c.ReadOnlyID || ada.welcome.AMQP.Port != 0 {
			t.Fatalf("Ada's welcome: prepared %d, login %+v", ada.ready("prepared"), ada.welcome.AMQP)
		}
		bo := joinEdge(t, base, c.ID, "Bo")
		ada.send(map[string]any{"type": "command", "ref": "1", "line": "declare queue jobs ttl=5s"})
		ada.send(map[string]any{"type": "command", "ref": "2", "line": "publish jobs hello"})
		ada.until("Ada's publish", func(m hub.Message) bool { return m.Type == hub.OutResult && m.Ref == "2" })
		bo.until("the message in jobs", func(hub.Message) bool { return bo.ready("jobs") == 1 })
		bo.send(map[string]any{"type": "clock", "ref": "s", "step": true})
		bo.until("Bo's step", func(m hub.Message) bool { return m.Type == hub.OutResult && m.Ref == "s" })
		ada.until("the step", func(hub.Message) bool { return ada.rep.Seq == bo.rep.Seq })
		if ada.ready("jobs") != 0 || ada.rep.B.Now() != 5000 {
			t.Fatalf("after Bo's step Ada has jobs %d at %d ms", ada.ready("jobs"), ada.rep.B.Now())
		}
		cy := joinEdge(t, base, c.ReadOnlyID, "Cy")
		if cy.welcome.AMQP != nil || cy.welcome.You.Role != hub.ReadOnly {
			t.Fatalf("Cy's welcome: %+v %+v", cy.welcome.You, cy.welcome.AMQP)
		}
		if cy.rep.Seq != ada.rep.Seq || hub.HashState(cy.rep.B) != hub.HashState(ada.rep.B) || hub.HashState(bo.rep.B) != hub.HashState(ada.rep.B) {
			t.Fatalf("the late joiner at %d, Ada at %d: hashes differ", cy.rep.Seq, ada.rep.Seq)
		}
		cy.send(map[string]any{"type": "command", "ref": "x", "line": "declare queue sneaky"})
		for m := cy.read(); ; m = cy.read() {
			if m.Type == hub.OutError && m.Ref == "x" {
				if m.Error.Key != hub.KeyReadOnly {
					t.Fatalf("a read-only command: %+v", m.Error)
				}
				break
			}
		}
		// Everyone leaves; a watcher who joins after that has the state
		// the restart below must keep.
		ada.ws.Close(websocket.StatusNormalClosure, "")
		bo.ws.Close(websocket.StatusNormalClosure, "")
		cy.until("Ada and Bo leaving", func(m hub.Message) bool { return m.Type == hub.OutPresence && len(m.Presence.Participants) == 1 })
		manual, hash, seq = c, hub.HashState(cy.rep.B), cy.rep.Seq
		cy.ws.Close(websocket.StatusNormalClosure, "")

		// A page at the link of a session that does not exist is told so
		// in its socket's close reason, keyed for its reader's language,
		// as warren serve tells it: an id of the right shape whose
		// object has no session, and an id of the wrong shape.
		for _, id := range []string{strings.Repeat("A", 44), "nope"} {
			if code, reason := closeOfPage(t, base, id); code != websocket.StatusPolicyViolation || reason != "noSession: no session has this id (it may have ended)" {
				t.Fatalf("the page socket of id %s: close %d %q", id, code, reason)
			}
		}

		// The session's HTTP endpoints answer at the edge too.
		res, err := http.Get(base + "/api/sessions/" + c.ReadOnlyID + "/history")
		if err != nil {
			t.Fatal(err)
		}
		hist, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(hist), "history start") {
			t.Fatalf("history: %d %.200s", res.StatusCode, hist)
		}
	})

	t.Run("hibernation", func(t *testing.T) {
		// A page's socket hibernates with the object: after ten seconds
		// with nothing to do, workerd takes the object out of memory (it
		// says so in the log when it restores); the page's next line
		// finds its participant and its script context back: "ack last"
		// acks the delivery its consumer got before. On a busy machine
		// the eviction can come late: then the line is answered by the
		// object still awake, and the test waits longer and tries again.
		c := createSession(t, base, `{"clock":"manual"}`)
		ada := joinEdge(t, base, c.ID, "Ada")
		command := func(ref, line string) *hub.Result {
			ada.send(map[string]any{"type": "command", "ref": ref, "line": line})
			var res *hub.Result
			ada.until(line, func(m hub.Message) bool {
				if m.Type == hub.OutResult && m.Ref == ref {
					res = m.Result
					return true
				}
				return false
			})
			return res
		}
		for i, line := range []string{"declare queue jobs", "publish jobs m count=5", "consume jobs prefetch=1"} {
			if res := command(fmt.Sprint(i), line); res.Error != nil {
				t.Fatalf("%s: %s", line, res.Error.Text)
			}
		}
		restored := "session " + c.ReadOnlyID + ": restored from storage, 1 page(s) kept"
		for i, wait := range []time.Duration{hibernateAfter, 2 * hibernateAfter, 3 * hibernateAfter} {
			time.Sleep(wait)
			if res := command(fmt.Sprint("ack", i), "ack last"); res.Error != nil {
				t.Fatalf("ack last after %v idle: %s", wait, res.Error.Text)
			}
			if strings.Contains(first.log(), restored) {
				if res := command("x", "expect queue jobs ready="+fmt.Sprint(3-i)+" unacked=1"); res.Error != nil {
					t.Fatalf("after the wake: %s", res.Error.Text)
				}
				return
			}
		}
		t.Fatalf("the object never hibernated:\n%s", first.log())
	})

	t.Run("listening pages after hibernation", func(t *testing.T) {
		// Three pages; only Ada speaks. After the object slept, her next
		// line is an entry every page gets: Bo and Cy, who never spoke,
		// were adopted back when the session was restored, not when they
		// next spoke. Then the session is deleted after another sleep,
		// and every page is told it ended.
		c := createSession(t, base, `{"clock":"manual"}`)
		ada := joinEdge(t, base, c.ID, "Ada")
		bo := joinEdge(t, base, c.ReadOnlyID, "Bo")
		cy := joinEdge(t, base, c.ID, "Cy")
		ada.send(map[string]any{"type": "command", "ref": "0", "line": "declare queue before"})
		for _, p := range []*edgePage{ada, bo, cy} {
			p.until("queue before", func(hub.Message) bool { return p.ready("before") == 0 })
		}
		restored := "session " + c.ReadOnlyID + ": restored from storage, 3 page(s) kept"
		slept := func() bool { return strings.Contains(first.log(), restored) }
		for i, wait := range []time.Duration{hibernateAfter, 2 * hibernateAfter, 3 * hibernateAfter} {
			time.Sleep(wait)
			q := fmt.Sprint("after", i)
			ada.send(map[string]any{"type": "command", "ref": q, "line": "declare queue " + q})
			for _, p := range []*edgePage{ada, bo, cy} {
				p.until(q+" at "+p.name, func(hub.Message) bool { return p.ready(q) == 0 })
			}
			if slept() {
				break
			}
		}
		if !slept() {
			t.Fatalf("the object never hibernated:\n%s", first.log())
		}
		before := strings.Count(first.log(), restored)
		time.Sleep(hibernateAfter)
		req, _ := http.NewRequest("DELETE", base+"/api/sessions/"+c.ID, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %v %v", res, err)
		}
		res.Body.Close()
		for _, p := range []*edgePage{ada, bo, cy} {
			if key := p.ended(); key != hub.KeyClosed {
				t.Errorf("%s was told the session ended with %q, want %q", p.name, key, hub.KeyClosed)
			}
		}
		if strings.Count(first.log(), restored) == before {
			t.Log("the object was still awake for the DELETE: the pages were told from memory")
		}
	})

	t.Run("a TTL the alarm fires reaches pages that only listen", func(t *testing.T) {
		// A live session whose message expires after the object went to
		// sleep: the alarm wakes it, the session is restored, and both
		// pages, which only listen (and ping), see the message go.
		c := createSession(t, base, `{"clock":"live","lines":["declare queue jobs ttl=40s","publish jobs soon-gone"]}`)
		ada := joinEdge(t, base, c.ID, "Ada")
		bo := joinEdge(t, base, c.ReadOnlyID, "Bo")
		for _, p := range []*edgePage{ada, bo} {
			if p.ready("jobs") != 1 {
				t.Fatalf("%s joined with jobs %d", p.name, p.ready("jobs"))
			}
		}
		for _, p := range []*edgePage{ada, bo} {
			p.until("the TTL at "+p.name, func(hub.Message) bool { return p.ready("jobs") == 0 })
		}
		// The log comes through wrangler's output, after the entry may.
		woke := "session " + c.ReadOnlyID + ": woken by its alarm"
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(first.log(), woke); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the object's alarm did not fire the TTL:\n%s", first.log())
			}
		}
		// On a busy machine workerd may keep the object in memory past
		// its ten idle seconds; the test says which case it saw.
		if !strings.Contains(first.log(), "session "+c.ReadOnlyID+": restored from storage, 2 page(s) kept") {
			t.Log("the object was still in memory when its alarm fired")
		}
	})

	t.Run("a silent page leaves", func(t *testing.T) {
		// A page whose network died without a close says nothing more:
		// within a minute the object lets it go, and the others see it
		// leave. Ada pings, as live.js does; Mute never does.
		c := createSession(t, base, `{"clock":"manual"}`)
		ada := joinEdge(t, base, c.ID, "Ada")
		mute := joinEdgePinging(t, base, c.ID, "Mute", false)
		joined := time.Now()
		ada.until("Mute's leaving", func(m hub.Message) bool {
			return m.Type == hub.OutPresence && len(m.Presence.Participants) == 1 && m.Presence.Participants[0].Name == "Ada"
		})
		if took := time.Since(joined); took > 75*time.Second {
			t.Fatalf("the silent page left %v after its join, want within a minute and a sweep", took)
		}
		if key := mute.ended(); key != "" {
			t.Fatalf("the silent page was told %q", key)
		}
	})

	t.Run("amqp-client scenario", func(t *testing.T) {
		c := createSession(t, base, `{"clock":"live"}`)
		out := clientScript(t, "amqp_client_ws.mjs", amqpURL(base, c))
		if !strings.Contains(out, "ok: ") {
			t.Fatalf("the scenario: %s", out)
		}
	})

	var kept sessions.Created
	t.Run("a real client, a TTL with nobody there", func(t *testing.T) {
		c := createSession(t, base, `{"clock":"live"}`)
		kept = c
		ada := joinEdge(t, base, c.ID, "Ada")
		clientScript(t, "publish_ws.mjs", amqpURL(base, c), "jobs", "order 42", "1500", "dead")
		clientScript(t, "publish_ws.mjs", amqpURL(base, c), "kept", "confirmed before the restart")
		ada.until("the client's messages", func(hub.Message) bool { return ada.ready("jobs") == 1 && ada.ready("kept") == 1 })
		ada.ws.Close(websocket.StatusNormalClosure, "")
		time.Sleep(2500 * time.Millisecond) // past the TTL, with nobody in the session
		bo := joinEdge(t, base, c.ReadOnlyID, "Bo")
		if bo.ready("jobs") != 0 || bo.ready("dead") != 1 || bo.ready("kept") != 1 {
			t.Fatalf("after the TTL: jobs %d dead %d kept %d", bo.ready("jobs"), bo.ready("dead"), bo.ready("kept"))
		}
		bo.ws.Close(websocket.StatusNormalClosure, "")
	})
	if kept.ID == "" || manual.ID == "" {
		return
	}

	t.Run("restart", func(t *testing.T) {
		// A live session whose TTL runs out while wrangler dev is down:
		// started again, the object is woken by its alarm (it says so in
		// the log) before anyone asks for the session, and has
		// dead-lettered the message when a page comes.
		sleeper := createSession(t, base, `{"clock":"live","lines":["declare queue dead","declare queue jobs ttl=3s dlx= dlrk=dead","publish jobs wake-me"]}`)
		first.stop()
		second := startDevAt(t, persist)
		base2 := second.base
		woke := "session " + sleeper.ReadOnlyID + ": woken by its alarm"
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(second.log(), woke); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the object was not woken by its alarm within 20 s:\n%s", second.log())
			}
		}
		if p := joinEdge(t, base2, sleeper.ReadOnlyID, "Fay"); p.ready("jobs") != 0 || p.ready("dead") != 1 {
			t.Fatalf("after the alarm: jobs %d dead %d", p.ready("jobs"), p.ready("dead"))
		}

		dee := joinEdge(t, base2, kept.ReadOnlyID, "Dee")
		if dee.ready("kept") != 1 || dee.ready("dead") != 1 {
			t.Fatalf("after the restart: kept %d dead %d", dee.ready("kept"), dee.ready("dead"))
		}
		// The manual session, which no time moves: the same log and the
		// same state hash.
		eve := joinEdge(t, base2, manual.ID, "Eve")
		if got := hub.HashState(eve.rep.B); got != hash || eve.rep.Seq != seq {
			t.Fatalf("after the restart the state hash is %x at entry %d, before it %x at entry %d", got, eve.rep.Seq, hash, seq)
		}
		if eve.ready("prepared") != 1 {
			t.Fatalf("after the restart prepared holds %d", eve.ready("prepared"))
		}
	})
}
