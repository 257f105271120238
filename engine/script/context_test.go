package script

import (
	"encoding/json"
	"reflect"
	"testing"

	"warren/engine"
)

// TestContextCarriesARunnerOver: a participant's runner on a shared
// broker, rebuilt from its Context (through JSON, as a Durable Object
// stores it), goes on as if it were the same runner: its channel names
// name the same channels ("@w" still has its consumer), the current
// channel is the same, and "ack last" acks the delivery the first runner
// saw.
func TestContextCarriesARunnerOver(t *testing.T) {
	b := engine.New(engine.Config{})
	r := NewOn(b)
	for _, line := range []string{"declare queue jobs", "publish jobs one", "publish jobs two", "@w consume jobs prefetch=1", "use w"} {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	data, err := json.Marshal(r.Context())
	if err != nil {
		t.Fatal(err)
	}
	var c Context
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, r.Context()) {
		t.Fatalf("the context through JSON: %+v, want %+v", c, r.Context())
	}
	again := NewOnContext(b, c)
	if _, err := again.Exec("ack last"); err != nil {
		t.Fatalf("ack last on the rebuilt runner: %v", err)
	}
	if _, err := again.Exec("expect queue jobs ready=0 unacked=1"); err != nil {
		t.Fatalf("after the ack, the consumer on w got the second message: %v", err)
	}
	if _, err := again.Exec("expect channel w consumers=1 unacked=1"); err != nil {
		t.Fatal(err)
	}
}
