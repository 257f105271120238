package script

import (
	"strings"
	"testing"

	"warren/engine"
)

// TestSharedBrokerObserve runs two runners over one broker, as a shared
// session does: each has its own channel names, and Observe tells a runner
// what another runner's lines or a clock move did to its channels.
func TestSharedBrokerObserve(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1, ConsumerTimeoutMs: 5000})
	alice, bob := NewOn(b), NewOn(b)
	run := func(r, other *Runner, line string) string {
		t.Helper()
		out, err := r.Exec(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		other.Observe(r.LineEvents())
		return out
	}
	run(alice, bob, "declare queue q")
	run(alice, bob, "consume q")
	// Bob's publish delivers to Alice's consumer: Alice's "ack last" must
	// know the tag although her runner did not drain the event.
	if out := run(bob, alice, "publish q hi"); !strings.Contains(out, "delivered") {
		t.Fatalf("publish did not deliver:\n%s", out)
	}
	if out := run(alice, bob, "ack last"); !strings.Contains(out, "acked") {
		t.Fatalf("ack last on Alice's channel:\n%s", out)
	}
	// Both runners' default channel is "app", yet they are two
	// connections: Bob's channel is not Alice's.
	n := 0
	for _, page := range b.ConnectionRefs() {
		n += len(page)
	}
	if got := n; got != 2 {
		t.Fatalf("connections = %d, want 2 (one per runner)", got)
	}
	// A consumer timeout fired by someone else's clock move closes Alice's
	// channel; after Observe her next line reopens it instead of failing.
	run(bob, alice, "publish q again")
	b.AdvanceTo(b.Now() + 6000)
	alice.Observe(b.DrainEvents(nil))
	if _, err := alice.Exec("declare queue q2"); err != nil {
		t.Fatalf("after the timeout closed Alice's channel: %v", err)
	}
	if e := alice.LineError(); e != nil {
		t.Fatalf("Alice's channel was not reopened: %v", e)
	}
	// A restart drops every connection; Observe forgets them all.
	run(bob, alice, "restart")
	if _, err := alice.Exec("declare queue q3"); err != nil || alice.LineError() != nil {
		t.Fatalf("after a restart: %v %v", err, alice.LineError())
	}
}
