package sessions

import (
	"testing"
	"time"

	"warren/engine/hub"
)

// TestSilentPageLeaves: a page that stops answering pings (its network
// dropped without a close) leaves the session by the next ping, and the
// others see it go; a page that reads (and so answers) stays. The interval
// is also how long a pong may take: at 50 ms, a loaded machine running the
// whole tree's tests now and then let Ada's pong miss it.
func TestSilentPageLeaves(t *testing.T) {
	const interval = 250 * time.Millisecond
	ts := startManager(t, Config{PingInterval: interval})
	c := ts.create(t, "")
	ada := ts.join(t, c.ID, "Ada")
	ts.join(t, c.ID, "Silent") // and never reads again
	if m := ada.next(hub.OutPresence); len(m.Presence.Participants) != 2 {
		t.Fatalf("presence after Silent joined: %+v", m.Presence)
	}
	began := time.Now()
	m := ada.next(hub.OutPresence)
	if len(m.Presence.Participants) != 1 || m.Presence.Participants[0].Name != "Ada" {
		t.Fatalf("presence after Silent went quiet: %+v", m.Presence)
	}
	if waited := time.Since(began); waited < interval {
		t.Fatalf("Silent left after %v, before any ping could go unanswered", waited)
	}
}
