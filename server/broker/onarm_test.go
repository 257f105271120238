package broker

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"warren/engine"
)

// TestOnArmTellsTheNextDeadline: a driver that keeps an alarm of its own
// (a Durable Object) is told when the next deadline is, and that there is
// none once it has fired.
func TestOnArmTellsTheNextDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type arm struct {
			at time.Time
			ok bool
		}
		var mu sync.Mutex
		var told []arm
		start := time.Now()
		b := StartWith(engine.Config{}, Options{OnArm: func(at time.Time, ok bool) {
			mu.Lock()
			told = append(told, arm{at, ok})
			mu.Unlock()
		}})
		defer b.Stop()
		publishWithTTL(t, b, "q", 5000)
		synctest.Wait()
		mu.Lock()
		if len(told) != 1 || !told[0].ok || !told[0].at.Equal(start.Add(5*time.Second)) {
			t.Fatalf("after a publish with a 5 s TTL: told %v, want one arm at start+5s", told)
		}
		mu.Unlock()
		time.Sleep(6 * time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(told) != 2 || told[1].ok {
			t.Fatalf("after the TTL fired: told %v, want a second call saying none", told)
		}
	})
}
