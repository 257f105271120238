//go:build !js

package main

import (
	"os"
	"regexp"
	"testing"

	"warren/engine/hub"
)

// TestSessionObjectCloseReasonsAreKeyed: every reason the session object
// (session.mjs) closes a page's socket with is one hub.CloseReason makes,
// the key of a hub error in front of its English text, so that the page
// says it in its reader's language (live.js, closeReasonText) as it does
// the reasons driver/sessions gives.
func TestSessionObjectCloseReasonsAreKeyed(t *testing.T) {
	// An AMQP client's socket is not a page's: the reason it gets is for
	// the client's developer, in English as RabbitMQ's are.
	const amqpTextRefused = "AMQP over WebSocket is binary messages"
	src, err := os.ReadFile("session.mjs")
	if err != nil {
		t.Fatal(err)
	}
	keyed := map[string]bool{}
	for _, k := range hub.ErrorKeys() {
		if hub.ErrorTemplate(k) != "" {
			keyed[hub.CloseReason(hub.NewError(k))] = true
		}
	}
	closes := regexp.MustCompile(`\.close\(\d+, "([^"]*)"\)`).FindAllStringSubmatch(string(src), -1)
	if len(closes) == 0 {
		t.Fatal("session.mjs closes no socket with a reason: the pattern no longer finds them")
	}
	for _, m := range closes {
		if m[1] == amqpTextRefused {
			continue
		}
		if !keyed[m[1]] {
			t.Errorf("session.mjs closes a socket with %q, which is no hub.CloseReason of a hub error", m[1])
		}
	}
}
