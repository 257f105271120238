package broker

import (
	"testing"
	"time"

	"warren/engine"
)

// TestTurnLockSaysWhoWaited: an owner that finds the lock free reports
// no wait; one that finds it held counts itself as waiting (the holder's
// turnUnlock reads that to yield) and reports the wait once it has the
// lock.
func TestTurnLockSaysWhoWaited(t *testing.T) {
	b := Start(engine.Config{}, nil)
	defer b.Stop()
	// The broker's timer goroutine may hold the lock for a moment at
	// the start; once it sleeps, an owner finds the lock free.
	for deadline := time.Now().Add(10 * time.Second); b.turnLock(); {
		b.turnUnlock(true)
		if time.Now().After(deadline) {
			t.Fatal("an owner alone kept reporting a wait")
		}
		time.Sleep(time.Millisecond)
	}
	waited := make(chan bool)
	go func() {
		w := b.turnLock()
		b.turnUnlock(w)
		waited <- w
	}()
	for deadline := time.Now().Add(10 * time.Second); b.waiting.Load() != 1; {
		if time.Now().After(deadline) {
			t.Fatal("the second owner never counted itself as waiting")
		}
		time.Sleep(time.Millisecond)
	}
	b.turnUnlock(false)
	if !<-waited {
		t.Error("an owner that found the lock held reported no wait")
	}
	if n := b.waiting.Load(); n != 0 {
		t.Errorf("%d owners counted as waiting after both turns", n)
	}
}
