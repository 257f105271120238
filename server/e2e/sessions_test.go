package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"warren/driver/sessions"
	"warren/engine/hub"
	"warren/server"
)

// TestSessionsOnServe: on a real server, a session is created over the
// API, listed only with the management API's administrator credentials,
// joined over its WebSocket, and ended by the server's shutdown with the
// page told.
func TestSessionsOnServe(t *testing.T) {
	srv := startServerWith(t, server.Options{})
	base := "http://" + srv.HTTPAddr()
	status, body := httpDo(t, "POST", base+"/api/sessions", `{"name":"e2e"}`, "")
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	var c sessions.Created
	must(t, json.Unmarshal(body, &c))

	if status, _ := httpDo(t, "GET", base+"/api/sessions", "", ""); status != http.StatusUnauthorized {
		t.Fatalf("list without credentials: %d", status)
	}
	must(t, srv.Users().AddUser("watcher", "pw", []string{"monitoring"}))
	if status, body := httpDo(t, "GET", base+"/api/sessions", "", "watcher:pw"); status != http.StatusUnauthorized || !strings.Contains(string(body), "Not administrator user") {
		t.Fatalf("list by a monitoring user: %d %s", status, body)
	}
	if status, body := httpDo(t, "GET", base+"/api/sessions", "", "guest:guest"); status != http.StatusOK || !strings.Contains(string(body), c.ID) {
		t.Fatalf("list by guest: %d %s", status, body)
	}
	// The management API still answers beside the sessions.
	if status, _ := httpDo(t, "GET", base+"/api/overview", "", "guest:guest"); status != http.StatusOK {
		t.Fatalf("overview: %d", status)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+srv.HTTPAddr()+"/ws/sessions/"+c.ID, nil)
	must(t, err)
	defer ws.CloseNow()
	ws.SetReadLimit(16 << 20)
	must(t, ws.Write(ctx, websocket.MessageText, []byte(`{"type":"join","name":"Ada"}`)))
	must(t, ws.Write(ctx, websocket.MessageText, []byte(`{"type":"command","ref":"1","line":"declare queue q"}`)))
	var types []string
	for len(types) < 3 {
		_, data, err := ws.Read(ctx)
		must(t, err)
		var m hub.Message
		must(t, json.Unmarshal(data, &m))
		types = append(types, m.Type)
	}
	if strings.Join(types, " ") != "welcome entry result" {
		t.Fatalf("messages: %v", types)
	}

	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }()
	var ended bool
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway || !ended {
				t.Fatalf("after shutdown: %v (ended message: %v)", err, ended)
			}
			break
		}
		var m hub.Message
		must(t, json.Unmarshal(data, &m))
		ended = ended || m.Type == hub.OutEnded && m.Error.Key == hub.KeyShutdown
	}
	must(t, <-shut)
}

func httpDo(t *testing.T, method, url, body, userPass string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	must(t, err)
	if user, pass, ok := strings.Cut(userPass, ":"); ok {
		req.SetBasicAuth(user, pass)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp.StatusCode, data
}
