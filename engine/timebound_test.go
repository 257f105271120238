package engine_test

import (
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// TestAdvanceTarget: a move of the clock is 0 to 100 years, and never
// lands past engine.MaxTime, whatever the number (issue 26: an advance of
// 9223372036854775000 ms wrapped engine time to year −292274998).
func TestAdvanceTarget(t *testing.T) {
	for _, c := range []struct {
		now  engine.Time
		ms   int64
		want engine.Time
		ok   bool
	}{
		{0, 0, 0, true},
		{0, 1, 1, true},
		{0, engine.MaxAdvanceMs, engine.Time(engine.MaxAdvanceMs), true}, // exactly 100 years
		{0, engine.MaxAdvanceMs + 1, 0, false},                           // just over
		{0, -1, 0, false},
		{0, 9223372036854775000, 0, false},
		{7, 1<<63 - 1, 7, false},
		{engine.MaxTime - 5, 5, engine.MaxTime, true},
		{engine.MaxTime - 5, 6, engine.MaxTime - 5, false},
		{engine.MaxTime, 0, engine.MaxTime, true},
		{engine.Never, 0, engine.Never, false},
	} {
		got, ok := engine.AdvanceTarget(c.now, c.ms)
		if got != c.want || ok != c.ok {
			t.Errorf("AdvanceTarget(%d, %d) = %d, %v; want %d, %v", c.now, c.ms, got, ok, c.want, c.ok)
		}
	}
}

// TestClockNeverWraps: however far a driver asks the engine to move
// (AdvanceTo, Settle), its clock stops at MaxTime, and a message's TTL
// and a queue's x-expires then still lie ahead of it: before the bound,
// AdvanceTo(9223372036854775000) left the clock where now+5s wrapped to
// the past, and a 5 s TTL message expired at once.
func TestClockNeverWraps(t *testing.T) {
	for _, move := range []func(b *engine.Broker){
		func(b *engine.Broker) { b.AdvanceTo(9223372036854775000) },
		func(b *engine.Broker) { b.Settle(engine.Never) },
		func(b *engine.Broker) { b.AdvanceTo(engine.MaxTime + 1) },
	} {
		r := script.New(engine.Config{Seed: 1})
		move(r.B)
		if r.B.Now() != engine.MaxTime {
			t.Fatalf("the clock reads %d, want MaxTime %d", r.B.Now(), engine.MaxTime)
		}
		for _, line := range []string{"declare queue q ttl=5s", "publish q hello", "declare queue lease expires=1h"} {
			if _, err := r.Exec(line); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
		}
		r.B.Settle(r.B.Now())
		if _, err := r.Exec("expect queue q ready=1"); err != nil {
			t.Errorf("the 5 s TTL message: %v", err)
		}
		if _, err := r.Exec("expect queue lease ready=0"); err != nil {
			t.Errorf("the queue with expires=1h: %v", err)
		}
		if at, ok := r.B.NextDeadline(); !ok || at <= r.B.Now() {
			t.Errorf("next deadline %d (%v), want after %d", at, ok, r.B.Now())
		}
		if _, stepped := r.B.Step(); stepped || r.B.Now() != engine.MaxTime {
			t.Errorf("Step past MaxTime: stepped %v, now %d", stepped, r.B.Now())
		}
	}
}

// TestScriptAdvanceBound: the script language moves the clock exactly 100
// years, and refuses a move of more (the error cases are in
// script/errors_test.go).
func TestScriptAdvanceBound(t *testing.T) {
	r := script.New(engine.Config{Seed: 1})
	if _, err := r.Exec("advance 36500d"); err != nil || int64(r.B.Now()) != engine.MaxAdvanceMs {
		t.Fatalf("advance 36500d: %v, now %d", err, r.B.Now())
	}
	if _, err := r.Exec("advance 1ms"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Exec("advance 36500d1ms"); err == nil {
		t.Fatal("advance just over 100 years was taken")
	}
	if _, err := r.Exec("advance -5s"); err == nil {
		t.Fatal("a negative advance was taken")
	}
}
