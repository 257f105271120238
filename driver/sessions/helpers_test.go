package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"warren/engine/hub"
)

// testServer is a Manager behind a real HTTP server on 127.0.0.1.
type testServer struct {
	m    *Manager
	base string // http://127.0.0.1:PORT
	logs *logBook
}

// logBook keeps what the manager logged.
type logBook struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBook) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logBook) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// startManager runs a Manager with cfg; its list takes the basic auth
// admin/secret.
func startManager(t *testing.T, cfg Config) *testServer {
	t.Helper()
	ts := &testServer{logs: &logBook{}}
	cfg.Logf = ts.logs.logf
	cfg.Admin = func(w http.ResponseWriter, r *http.Request) bool {
		if u, p, ok := r.BasicAuth(); ok && u == "admin" && p == "secret" {
			return true
		}
		writeError(w, http.StatusUnauthorized, "not_authorised", "Not administrator user")
		return false
	}
	ts.m = New(cfg)
	hs := httptest.NewServer(ts.m)
	ts.base = hs.URL
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := ts.m.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		hs.Close()
	})
	return ts
}

// do sends a request and returns the status and body.
func (ts *testServer) do(t *testing.T, method, path, body string, auth ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(auth) == 2 {
		req.SetBasicAuth(auth[0], auth[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// create makes a session over the API.
func (ts *testServer) create(t *testing.T, body string) Created {
	t.Helper()
	status, data := ts.do(t, "POST", "/api/sessions", body)
	if status != http.StatusCreated {
		t.Fatalf("POST /api/sessions: %d %s", status, data)
	}
	var c Created
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// page is one participant's browser: a real WebSocket and a replica of
// the session's broker built from what it received.
type page struct {
	t       *testing.T
	ws      *websocket.Conn
	you     hub.Participant
	replica *hub.Replica
	entries []hub.Entry
	others  []hub.Message // what next skipped: results, presence, errors
	refs    int
}

// dialPage opens a session's WebSocket by id, without joining.
func (ts *testServer) dialPage(t *testing.T, id string) *page {
	t.Helper()
	url := "ws" + strings.TrimPrefix(ts.base, "http") + "/ws/sessions/" + id
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	return &page{t: t, ws: ws}
}

// join opens a session's WebSocket by id, joins as name and builds the
// replica from the welcome.
func (ts *testServer) join(t *testing.T, id, name string) *page {
	t.Helper()
	return joinOn(t, ts.dialPage(t, id), name)
}

// joinOn joins as name on a page's open socket and builds the replica
// from the welcome.
func joinOn(t *testing.T, p *page, name string) *page {
	t.Helper()
	p.send(map[string]any{"type": "join", "name": name})
	m := p.read()
	if m.Type != hub.OutWelcome {
		t.Fatalf("%s: first message %s, want welcome: %+v", name, m.Type, m)
	}
	p.you = *m.You
	r, _, err := hub.NewReplica(m.Snapshot, m.Clock)
	if err != nil {
		t.Fatal(err)
	}
	p.replica = r
	return p
}

func (p *page) send(v any) {
	p.t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.ws.Write(ctx, websocket.MessageText, data); err != nil {
		p.t.Fatal(err)
	}
}

// command sends a script line and returns its ref.
func (p *page) command(line string) string {
	p.refs++
	ref := fmt.Sprint(p.refs)
	p.send(map[string]any{"type": "command", "ref": ref, "line": line})
	return ref
}

// read returns the next message, failing after a bounded wait.
func (p *page) read() hub.Message {
	p.t.Helper()
	m, err := p.tryRead()
	if err != nil {
		p.t.Fatalf("%s: read: %v", p.you.Name, err)
	}
	return m
}

func (p *page) tryRead() (hub.Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, data, err := p.ws.Read(ctx)
	if err != nil {
		return hub.Message{}, err
	}
	if typ != websocket.MessageText {
		return hub.Message{}, fmt.Errorf("a %v message", typ)
	}
	var m hub.Message
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return hub.Message{}, err
	}
	return m, nil
}

// next reads until a message of type typ, applying entries to the
// replica (and checking the hub's hash where an entry has one) and
// keeping the rest in others.
func (p *page) next(typ string) hub.Message {
	p.t.Helper()
	for {
		m := p.read()
		if m.Type == hub.OutEntry {
			p.apply(m.Entry)
		} else if m.Type != typ {
			p.others = append(p.others, m)
		}
		if m.Type == typ {
			return m
		}
	}
}

func (p *page) apply(e *hub.Entry) {
	p.t.Helper()
	if _, err := p.replica.Apply(e); err != nil {
		p.t.Fatalf("%s: %v", p.you.Name, err)
	}
	p.entries = append(p.entries, *e)
	if e.Hash != "" && e.Hash != hub.FormatHash(p.replica.Hash()) {
		p.t.Fatalf("%s: after entry %d the replica's hash is %s, the hub's %s", p.you.Name, e.Seq, hub.FormatHash(p.replica.Hash()), e.Hash)
	}
}

// result reads until the result or error for ref.
func (p *page) result(ref string) hub.Message {
	p.t.Helper()
	for {
		m := p.read()
		switch {
		case m.Type == hub.OutEntry:
			p.apply(m.Entry)
		case (m.Type == hub.OutResult || m.Type == hub.OutError) && m.Ref == ref:
			return m
		default:
			p.others = append(p.others, m)
		}
	}
}

// closed reads until the socket closes and returns its close status and
// reason, and the "ended" message if one came.
func (p *page) closed() (websocket.StatusCode, string, *hub.ErrorInfo) {
	p.t.Helper()
	var ended *hub.ErrorInfo
	for {
		m, err := p.tryRead()
		if err != nil {
			var ce websocket.CloseError
			if !asCloseError(err, &ce) {
				p.t.Fatalf("%s: the socket ended without a close frame: %v", p.you.Name, err)
			}
			return ce.Code, ce.Reason, ended
		}
		switch m.Type {
		case hub.OutEntry:
			p.apply(m.Entry)
		case hub.OutEnded:
			ended = m.Error
		}
	}
}

func asCloseError(err error, ce *websocket.CloseError) bool {
	return errors.As(err, ce)
}
