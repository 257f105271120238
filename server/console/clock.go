package console

import "time"

// Clock is the console's view of wall time in real mode. It is an interface
// so that tests drive time themselves instead of sleeping; WallClock is the
// real one.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that delivers on its channel once d has
	// passed.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer made by a Clock.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it stopped
	// the timer before it fired.
	Stop() bool
}

// WallClock returns the operating system's clock.
func WallClock() Clock { return wallClock{} }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) NewTimer(d time.Duration) Timer { return wallTimer{time.NewTimer(d)} }

type wallTimer struct{ t *time.Timer }

func (w wallTimer) C() <-chan time.Time { return w.t.C }

func (w wallTimer) Stop() bool { return w.t.Stop() }
