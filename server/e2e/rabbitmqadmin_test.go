package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRabbitmqadmin drives warren serve's management API with RabbitMQ's
// own rabbitmqadmin (Debian's rabbitmq-server ships it; `make deps`
// installs it): declare, publish (routed and not), list, get, and an
// error, each answered as rabbitmqadmin expects of RabbitMQ.
func TestRabbitmqadmin(t *testing.T) {
	admin, err := exec.LookPath("rabbitmqadmin")
	if err != nil {
		t.Fatalf("rabbitmqadmin is not installed: run `make deps` (it installs Debian's rabbitmq-server, which ships it)")
	}
	srv := startServer(t)
	host, port, _ := strings.Cut(srv.HTTPAddr(), ":")
	run := func(wantOK bool, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		argv := append([]string{"-H", host, "-P", port, "-u", "guest", "-p", "guest"}, args...)
		out, err := exec.CommandContext(ctx, admin, argv...).CombinedOutput()
		if (err == nil) != wantOK {
			t.Fatalf("rabbitmqadmin %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"declare", "queue", "name=work", "durable=true"}, "queue declared"},
		{[]string{"publish", "exchange=amq.default", "routing_key=work", "payload=hello", `properties={"delivery_mode":2,"headers":{"k":"v"}}`}, "Message published"},
		{[]string{"publish", "exchange=amq.default", "routing_key=nowhere", "payload=lost"}, "Message published but NOT routed"},
	} {
		if got := run(true, c.args...); got != c.want {
			t.Errorf("rabbitmqadmin %s: %q, want %q", strings.Join(c.args, " "), got, c.want)
		}
	}
	var queues []struct {
		Name     string
		Messages int
	}
	if err := json.Unmarshal([]byte(run(true, "-f", "raw_json", "list", "queues", "name", "messages")), &queues); err != nil || len(queues) != 1 || queues[0].Name != "work" || queues[0].Messages != 1 {
		t.Fatalf("list queues: %v %+v", err, queues)
	}
	want := `[{"payload_bytes":5,"redelivered":false,"exchange":"","routing_key":"work","message_count":0,"properties":{"delivery_mode":2,"headers":{"k":"v"}},"payload":"hello","payload_encoding":"string"}]`
	if got := run(true, "-f", "raw_json", "get", "queue=work", "ackmode=ack_requeue_false", "count=1"); got != want {
		t.Errorf("get: %s\nwant %s", got, want)
	}
	if got := run(true, "get", "queue=work"); got != "No items" {
		t.Errorf("get from the emptied queue: %q", got)
	}
	if got := run(false, "publish", "exchange=nosuch", "routing_key=a", "payload=b"); got != "*** 404 NOT_FOUND - no exchange 'nosuch' in vhost '/'" {
		t.Errorf("publish to a missing exchange: %q", got)
	}
}
