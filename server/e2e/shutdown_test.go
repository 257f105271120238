package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/sessions"
)

// TestShutdownSendsConnectionForced: a graceful shutdown tells clients
// 320 CONNECTION_FORCED, as RabbitMQ does: those of the server's broker
// and those in a shared session's.
func TestShutdownSendsConnectionForced(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	closed := c.NotifyClose(make(chan *amqp.Error, 1))
	status, body := httpDo(t, "POST", "http://"+srv.HTTPAddr()+"/api/sessions", "", "")
	var created sessions.Created
	if status != http.StatusCreated || json.Unmarshal(body, &created) != nil {
		t.Fatalf("create a session: %d %s", status, body)
	}
	sc, err := amqp.Dial("amqp://" + created.AMQP.User + ":" + created.AMQP.Password + "@" + srv.AMQPAddr() + "/")
	must(t, err)
	sessionClosed := sc.NotifyClose(make(chan *amqp.Error, 1))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go srv.Shutdown(ctx)
	for _, closed := range []chan *amqp.Error{closed, sessionClosed} {
		select {
		case e := <-closed:
			if e == nil || e.Code != 320 || e.Reason != "CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'" {
				t.Fatalf("close %+v, want 320", e)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no connection.close on shutdown")
		}
	}
}

// TestManagementClosesConnection: DELETE /api/connections/{name} closes the
// client with 320 and the X-Reason text.
func TestManagementClosesConnection(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	closed := c.NotifyClose(make(chan *amqp.Error, 1))
	name := c.LocalAddr().String() + " -> " + srv.AMQPAddr()
	req, _ := http.NewRequest(http.MethodDelete, "http://"+srv.HTTPAddr()+"/api/connections/"+url.PathEscape(name), nil)
	req.SetBasicAuth("guest", "guest")
	req.Header.Set("X-Reason", "maintenance")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE status %d", resp.StatusCode)
	}
	select {
	case e := <-closed:
		if e == nil || e.Code != 320 || e.Reason != "CONNECTION_FORCED - maintenance" {
			t.Fatalf("close %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no connection.close")
	}
}
