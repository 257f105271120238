package ctl_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	warren "warren/server"
	"warren/server/ctl"
)

// TestClockCommandsForASession: with --session ID the clock commands read
// and move a shared session's clock rather than the server's broker's.
func TestClockCommandsForASession(t *testing.T) {
	srv, err := warren.Start(warren.Options{AMQPAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	resp, err := http.Post("http://"+srv.HTTPAddr()+"/api/sessions", "application/json", strings.NewReader(`{"clock":"manual"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID string `json:"id"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	run := func(args ...string) (int, string) {
		var out, errb strings.Builder
		code := ctl.Main(append([]string{"--http", srv.HTTPAddr()}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := run("advance", "--session", created.ID, "90s"); code != 0 || !strings.Contains(out, "Mode: manual\nTime: 1m30s") || !strings.Contains(out, "Advanced by: 1m30s") {
		t.Errorf("advance --session: %d\n%s", code, out)
	}
	if code, out := run("clock", "--session", created.ID); code != 0 || !strings.Contains(out, "Time: 1m30s") {
		t.Errorf("clock --session: %d\n%s", code, out)
	}
	// The server's own broker did not move.
	if code, out := run("clock"); code != 0 || strings.Contains(out, "Time: 1m30s") {
		t.Errorf("the server's clock moved with the session's: %d\n%s", code, out)
	}
	if code, out := run("advance", "--session", "nosuchsession", "1m"); code == 0 || !strings.Contains(out, "no session has this id") {
		t.Errorf("advance for an unknown session: %d\n%s", code, out)
	}
}
