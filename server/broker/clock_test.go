package broker

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"warren/engine"
	"warren/server/store"
)

// count counts the events of kind k a recorder has seen.
func (r *recorder) count(k engine.EventKind) int {
	n := 0
	for _, got := range r.kinds() {
		if got == k {
			n++
		}
	}
	return n
}

// publishWithTTL declares queue q with a message TTL and publishes one
// message to it.
func publishWithTTL(t *testing.T, b *Broker, q string, ttlMs int64) {
	t.Helper()
	ch := openChannel(t, b)
	mustApply(t, b, engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: q, Durable: true, Args: engine.Table{"x-message-ttl": ttlMs}}},
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: q, Body: []byte("hi"), Props: &engine.Properties{DeliveryMode: 2}}},
		engine.CmdCloseConnection{Conn: ch.Conn})
}

// TestManualClockWaitsToBeMoved: on a manual clock an hour of wall time
// expires nothing; an advance fires exactly what falls due by its end.
func TestManualClockWaitsToBeMoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := StartWith(engine.Config{}, Options{Clock: ClockManual})
		defer b.Stop()
		rec := &recorder{}
		b.Observe(rec)
		publishWithTTL(t, b, "q", 5000)
		time.Sleep(time.Hour)
		synctest.Wait()
		st, err := b.Clock()
		if err != nil || st.Now != 0 || !st.HasNext || st.Next != 5000 || st.PendingTimers != 1 || st.Mode != ClockManual {
			t.Fatalf("after an hour of wall time: %+v, %v", st, err)
		}
		if rec.count(engine.EvExpired) != 0 {
			t.Fatal("the TTL ran on a manual clock")
		}
		if st, err = b.Advance(4999); err != nil || st.Now != 4999 || rec.count(engine.EvExpired) != 0 {
			t.Fatalf("advance 4999ms: %+v, %v, %v", st, err, rec.kinds())
		}
		if st, err = b.Advance(1); err != nil || st.Now != 5000 || st.HasNext || st.PendingTimers != 0 {
			t.Fatalf("advance 1ms: %+v, %v", st, err)
		}
		if rec.count(engine.EvExpired) != 1 {
			t.Fatalf("advance did not expire the message: %v", rec.kinds())
		}
	})
}

// TestStepGoesToTheNextTimer: a step moves the clock to the next deadline
// only; with no timer it stays put.
func TestStepGoesToTheNextTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := StartWith(engine.Config{}, Options{Clock: ClockManual})
		defer b.Stop()
		rec := &recorder{}
		b.Observe(rec)
		publishWithTTL(t, b, "slow", 30*60_000)
		publishWithTTL(t, b, "fast", 60_000)
		for i, want := range []engine.Time{60_000, 30 * 60_000} {
			st, stepped, err := b.StepClock()
			if err != nil || !stepped || st.Now != want || rec.count(engine.EvExpired) != i+1 {
				t.Fatalf("step %d: %+v stepped=%v %v, %d expired", i+1, st, stepped, err, rec.count(engine.EvExpired))
			}
		}
		st, stepped, err := b.StepClock()
		if err != nil || stepped || st.Now != 30*60_000 {
			t.Fatalf("step with no timer: %+v stepped=%v %v", st, stepped, err)
		}
	})
}

// TestLiveAfterManualContinues: going live after an advance keeps engine
// time where the advance left it and runs on with the wall clock from
// there; leaving live mode stops it where the wall clock had taken it.
func TestLiveAfterManualContinues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := StartWith(engine.Config{}, Options{Clock: ClockManual})
		defer b.Stop()
		rec := &recorder{}
		b.Observe(rec)
		time.Sleep(10 * time.Minute)
		if _, err := b.Advance(30 * 60_000); err != nil {
			t.Fatal(err)
		}
		st, err := b.SetClockMode(ClockLive)
		if err != nil || st.Now != 30*60_000 || st.Mode != ClockLive {
			t.Fatalf("going live: %+v, %v", st, err)
		}
		publishWithTTL(t, b, "q", 2000)
		time.Sleep(1999 * time.Millisecond)
		synctest.Wait()
		if rec.count(engine.EvExpired) != 0 {
			t.Fatal("expired early")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if rec.count(engine.EvExpired) != 1 {
			t.Fatalf("the TTL did not run on the live clock: %v", rec.kinds())
		}
		st, err = b.SetClockMode(ClockPaused)
		if err != nil || st.Now != 30*60_000+2000 || st.Mode != ClockPaused {
			t.Fatalf("pausing: %+v, %v", st, err)
		}
		time.Sleep(time.Hour)
		if st, err = b.Clock(); err != nil || st.Now != 30*60_000+2000 {
			t.Fatalf("a paused clock moved: %+v, %v", st, err)
		}
		if _, err := b.Advance(1000); !errors.Is(err, ErrClockPaused) {
			t.Fatalf("advancing a paused clock: %v", err)
		}
		if _, _, err := b.StepClock(); !errors.Is(err, ErrClockPaused) {
			t.Fatalf("stepping a paused clock: %v", err)
		}
		// An advance in live mode jumps ahead and keeps running.
		b.SetClockMode(ClockLive)
		if st, err = b.Advance(60_000); err != nil || st.Now != 30*60_000+2000+60_000 {
			t.Fatalf("live advance: %+v, %v", st, err)
		}
	})
}

// TestLongAdvanceFiresEveryDeadline: an advance over a thousand deadlines
// and a backlog bigger than one batch fires them all before it returns.
func TestLongAdvanceFiresEveryDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := StartWith(engine.Config{MaxBatch: 16}, Options{Clock: ClockManual})
		defer b.Stop()
		rec := &recorder{}
		b.Observe(rec)
		for i := range 1000 {
			publishWithTTL(t, b, fmt.Sprintf("q%d", i), int64(i+1)*1000)
		}
		ch := openChannel(t, b)
		var publishes []engine.Command
		for range 100 {
			publishes = append(publishes, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "q0", Body: []byte("x")}})
		}
		mustApply(t, b, publishes...)
		st, err := b.Advance(2 * 3600_000)
		if err != nil || st.Now != 2*3600_000 || st.PendingTimers != 0 {
			t.Fatalf("advance 2h: %+v, %v", st, err)
		}
		if n := rec.count(engine.EvExpired); n != 1100 {
			t.Fatalf("%d expired, want 1100", n)
		}
	})
}

// TestRestoredManualClockKeepsItsTime: with a data directory, a broker
// restarted on a manual clock resumes at the engine time it had, however
// long it was down; on a live clock it jumps over the downtime, as before.
// The advance is in the command log, so the restart replays it.
func TestRestoredManualClockKeepsItsTime(t *testing.T) {
	dir := t.TempDir()
	wall := time.UnixMilli(1_700_000_000_000)
	now := func() time.Time { return wall }
	start := func(mode ClockMode) *Broker {
		t.Helper()
		st, rec, err := store.Open(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		eng, err := Recover(engine.Config{}, wall, mode, st, rec)
		if err != nil {
			t.Fatal(err)
		}
		return StartDurable(eng, Options{Now: now, Clock: mode, Store: st})
	}
	stop := func(b *Broker) {
		b.Stop()
		if err := b.CloseStore(); err != nil {
			t.Fatal(err)
		}
	}
	b := start(ClockManual)
	publishWithTTL(t, b, "q", 3600_000)
	if _, err := b.Advance(60_000); err != nil {
		t.Fatal(err)
	}
	stop(b)

	wall = wall.Add(24 * time.Hour)
	b = start(ClockManual)
	st, err := b.Clock()
	if err != nil || st.Now != 60_000 || !st.HasNext || st.Next != 3600_000 {
		t.Fatalf("restored on a manual clock: %+v, %v", st, err)
	}
	stop(b)

	b = start(ClockLive)
	defer stop(b)
	want := engine.Time(24 * 3600_000)
	if st, err = b.Clock(); err != nil || st.Now != want || st.HasNext {
		t.Fatalf("restored on a live clock: %+v, %v (want now %d, the message expired)", st, err, want)
	}
}
