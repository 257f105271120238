package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/sessions"
	"warren/engine"
	"warren/engine/hub"
	"warren/engine/script"
)

// TestRealClientInSessionHistory: what a real client did in a session
// (amqp091-go: declares, a TTL and a dead-letter queue, confirmed
// publishes, a consumer's acks), with the clock the API moves, is in the
// session's exported history, which replays to the state a page of the
// session has: the same state hash.
func TestRealClientInSessionHistory(t *testing.T) {
	srv := startServer(t)
	status, body := httpDo(t, "POST", "http://"+srv.HTTPAddr()+"/api/sessions", `{"name":"history","clock":"manual"}`, "")
	var c sessions.Created
	if status != http.StatusCreated || json.Unmarshal(body, &c) != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	watcher := joinPage(t, srv, c.ReadOnlyID, "Watcher")
	conn, err := amqp.DialConfig(fmt.Sprintf("amqp://%s:%s@%s/", c.AMQP.User, c.AMQP.Password, srv.AMQPAddr()),
		amqp.Config{Properties: amqp.Table{"connection_name": "history client"}})
	must(t, err)
	ch := channel(t, conn)
	must(t, ch.Confirm(false))
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, 8))
	_, err = ch.QueueDeclare("dead", false, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("work", false, false, false, false, amqp.Table{
		"x-message-ttl": int32(60_000), "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dead"})
	must(t, err)
	for i := range 3 {
		must(t, ch.PublishWithContext(context.Background(), "", "work", false, false, amqp.Publishing{Body: []byte(fmt.Sprint("job ", i))}))
		if cf := <-confirms; !cf.Ack {
			t.Fatalf("publish %d nacked", i)
		}
	}
	sessionClock(t, srv, c.ID, `{"advance":"61s"}`) // the three jobs expire into dead
	msgs, err := ch.Consume("dead", "", false, false, false, false, nil)
	must(t, err)
	for range 3 {
		must(t, recv(t, msgs).Ack(false))
	}
	must(t, conn.Close())

	status, body = httpDo(t, "GET", "http://"+srv.HTTPAddr()+"/api/sessions/"+c.ReadOnlyID+"/history", "", "")
	if status != http.StatusOK {
		t.Fatalf("GET history: %d %s", status, body)
	}
	text := string(body)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var last uint64
	if _, err := fmt.Sscanf(lines[len(lines)-1], "history hash %d", &last); err != nil {
		t.Fatalf("the last line %q: %v", lines[len(lines)-1], err)
	}
	watcher.until(fmt.Sprintf("entry %d", last), func(m hub.Message) bool { return m.Type == hub.OutEntry && m.Entry.Seq == last })
	r := script.New(engine.Config{})
	for i, line := range lines {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("line %d (%.70s): %v", i+1, line, err)
		}
	}
	if got, want := script.StateHash(r.B), watcher.rep.Hash(); got != want {
		t.Fatalf("the replay's hash is %s, the page's %s", hub.FormatHash(got), hub.FormatHash(want))
	}
	if !strings.Contains(text, "(history client, 127.0.0.1:") || !strings.Contains(text, " the server: advance 1m1s\n") {
		t.Fatalf("the history's comments do not say who did what:\n%.3000s", text)
	}
}
