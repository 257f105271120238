package console_test

import (
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"warren/server/console"
)

// fakeClock is a Clock the test moves by hand: its timers fire only in
// Advance, so no test waits on real time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	clock *fakeClock
	at    time.Time
	c     chan time.Time
	done  bool // fired or stopped
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000, 0)} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) NewTimer(d time.Duration) console.Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{clock: f, at: f.now.Add(d), c: make(chan time.Time, 1)}
	f.timers = append(f.timers, t)
	f.fireLocked()
	return t
}

// Advance moves the clock and fires the timers that fall due.
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	f.fireLocked()
}

func (f *fakeClock) fireLocked() {
	live := f.timers[:0]
	for _, t := range f.timers {
		if !t.done && !t.at.After(f.now) {
			t.done = true
			t.c <- f.now
		}
		if !t.done {
			live = append(live, t)
		}
	}
	f.timers = live
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// lockedBuffer is the console's output, read by the test while Run's
// goroutine writes it.
type lockedBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

// Take returns what was written since the last Take.
func (b *lockedBuffer) Take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sb.String()
	b.sb.Reset()
	return s
}

// realSession runs a real-mode console on its own goroutine inside a
// synctest bubble, so that synctest.Wait tells when the console has done
// everything it can and is idle again.
type realSession struct {
	t     *testing.T
	clock *fakeClock
	in    *io.PipeWriter
	out   *lockedBuffer
	done  chan error
}

func startReal(t *testing.T) *realSession {
	pr, pw := io.Pipe()
	s := &realSession{t: t, clock: newFakeClock(), in: pw, out: &lockedBuffer{}, done: make(chan error, 1)}
	c := console.New(s.out, console.Options{Clock: s.clock, Echo: true})
	go func() { s.done <- c.Run(pr) }()
	synctest.Wait()
	return s
}

// Type sends a line and returns the output it caused.
func (s *realSession) Type(line string) string {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
	synctest.Wait()
	return s.out.Take()
}

// Wait moves the wall clock while the user is idle and returns the output.
func (s *realSession) Wait(d time.Duration) string {
	s.clock.Advance(d)
	synctest.Wait()
	return s.out.Take()
}

func (s *realSession) Close() {
	s.t.Helper()
	s.in.Close()
	if err := <-s.done; err != nil {
		s.t.Fatalf("Run: %v", err)
	}
}

func TestRealClockFiresTimersWhileIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startReal(t)
		if got := s.out.Take(); got != console.Prompt {
			t.Fatalf("start: got %q, want a prompt", got)
		}
		s.Type("declare queue q ttl=5s")
		if got := s.Type("publish q hi"); !strings.Contains(got, "enqueued q=q msg=1 via=(default):q expires=5s") {
			t.Fatalf("publish: %q", got)
		}
		if got := s.Wait(4999 * time.Millisecond); got != "" {
			t.Fatalf("nothing is due before 5s, got %q", got)
		}
		// The TTL falls due while the user is idle: the event prints on its
		// own lines and the prompt comes back.
		if got, want := s.Wait(time.Millisecond), "\n@5s\nexpired q=q msg=1\n"+console.Prompt; got != want {
			t.Fatalf("at 5s: got %q, want %q", got, want)
		}
		if got := s.Wait(time.Hour); got != "" {
			t.Fatalf("nothing more is scheduled, got %q", got)
		}
		s.Close()
	})
}

func TestRealClockAdvancesBeforeEachLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startReal(t)
		s.out.Take()
		s.clock.Advance(1500 * time.Millisecond)
		if got, want := s.Type("show time"), "show time\ntime 1.5s\n"+console.Prompt; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		// A typed advance jumps ahead; the wall clock continues from there.
		s.Type("advance 1m")
		s.clock.Advance(2 * time.Second)
		if got, want := s.Type("show time"), "show time\ntime 1m3.5s\n"+console.Prompt; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		s.Close()
	})
}

func TestRealClockCatchesUpWhenTimerIsLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startReal(t)
		s.Type("declare queue q ttl=1s")
		s.Type("publish q a")
		// The user types before the idle timer could be delivered: the
		// line itself first brings the engine up to the wall clock.
		s.clock.mu.Lock()
		s.clock.now = s.clock.now.Add(3 * time.Second) // move time without firing
		s.clock.mu.Unlock()
		got := s.Type("expect queue q ready=0")
		if want := "expect queue q ready=0\n@1s\nexpired q=q msg=1\n" + console.Prompt; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		s.Close()
	})
}

func TestRealClockSaveRecordsWallTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startReal(t)
		path := t.TempDir() + "/session.txt"
		s.Type("declare queue q ttl=5s")
		s.Wait(2 * time.Second)
		s.Type("publish q a")
		s.Wait(10 * time.Second) // expires at 7s, while idle
		s.Type("save " + path)
		s.Close()
		got := readFile(t, path)
		want := "declare queue q ttl=5s\nadvance to 2s\npublish q a\nadvance to 12s\n"
		if _, body, _ := strings.Cut(got, "\n"); body != want {
			t.Fatalf("saved script:\n%s\nwant after the header:\n%s", got, want)
		}
	})
}
