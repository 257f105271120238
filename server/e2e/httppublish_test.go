package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"warren/server"
	"warren/server/store"
)

// TestHTTPPublishAnswersOnceStored: an HTTP publish of a persistent
// message to a durable queue answers {"routed":true} only once an fsync
// covers the message, as a confirm does; a restart keeps it, and an HTTP
// get returns it with its properties; a transient one to the same queue
// answers at once and is gone after the restart.
func TestHTTPPublishAnswersOnceStored(t *testing.T) {
	disk := &syncedDisk{failingDisk: failingDisk{release: make(chan struct{})}, synced: map[string]int64{}}
	opts := server.Options{DataDir: t.TempDir(), Store: store.Options{OpenFile: disk.open}}
	srv := startServerWith(t, opts)
	addr := srv.HTTPAddr()
	if status, body := mgmtDo(t, addr, "PUT", "/api/queues/%2F/kept", `{"durable":true}`); status != http.StatusCreated {
		t.Fatalf("declare: %d %s", status, body)
	}
	publish := func(payload string, mode int) (int, string) {
		return mgmtDo(t, addr, "POST", "/api/exchanges/%2F/amq.default/publish",
			`{"routing_key":"kept","payload":"`+payload+`","payload_encoding":"string","properties":{"delivery_mode":`+string(rune('0'+mode))+`,"message_id":"`+payload+`"}}`)
	}
	if status, body := publish("first-persistent", 2); status != http.StatusOK || body != `{"routed":true}` {
		t.Fatalf("publish: %d %s", status, body)
	}
	if !disk.onDisk(t, []byte("first-persistent")) {
		t.Fatal("the publish was answered before an fsync covered it")
	}

	// While the disk does not finish an fsync, the answer waits.
	disk.stall.Store(true)
	released := false
	defer func() {
		if !released {
			close(disk.release)
		}
	}()
	answered := make(chan string, 1)
	go func() {
		status, body := publish("stalled-persistent", 2)
		answered <- http.StatusText(status) + " " + body
	}()
	select {
	case a := <-answered:
		t.Fatalf("answered while its fsync had not finished: %s", a)
	case <-time.After(300 * time.Millisecond):
	}
	disk.stall.Store(false)
	close(disk.release)
	released = true
	select {
	case a := <-answered:
		if a != `OK {"routed":true}` || !disk.onDisk(t, []byte("stalled-persistent")) {
			t.Fatalf("after the fsync: %s", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer once the fsync finished")
	}
	if status, body := publish("transient", 1); status != http.StatusOK || body != `{"routed":true}` {
		t.Fatalf("transient publish: %d %s", status, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	must(t, srv.Shutdown(ctx))
	srv = startServerWith(t, server.Options{DataDir: opts.DataDir})
	status, body := mgmtDo(t, srv.HTTPAddr(), "POST", "/api/queues/%2F/kept/get", `{"count":5,"ackmode":"ack_requeue_false","encoding":"auto"}`)
	want := `[{"payload_bytes":16,"redelivered":false,"exchange":"","routing_key":"kept","message_count":1,"properties":{"message_id":"first-persistent","delivery_mode":2},"payload":"first-persistent","payload_encoding":"string"},` +
		`{"payload_bytes":18,"redelivered":false,"exchange":"","routing_key":"kept","message_count":0,"properties":{"message_id":"stalled-persistent","delivery_mode":2},"payload":"stalled-persistent","payload_encoding":"string"}]`
	if status != http.StatusOK || body != want {
		t.Fatalf("get after the restart: %d\n%s\nwant\n%s", status, body, want)
	}
	if strings.Contains(body, "transient") {
		t.Error("the transient message survived the restart")
	}
}
