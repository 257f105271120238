package conn

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// wakeup interrupts the owner, which is usually blocked reading its
// socket, when another goroutine left something in its inbox that cannot
// wait for the client's next bytes (a forced close, the engine closing a
// channel, back-pressure). It sets the transport's read deadline to now,
// which ends a read under way (or the next) with os.ErrDeadlineExceeded;
// the reader turns that into errWoken, the owner takes the inbox and
// puts the deadline back (reader.restoreDeadline). ch wakes a wait that
// is not a read (a publish held by the memory alarm). Wake-ups are rare:
// the connection's own commands' events come back with their results.
type wakeup struct {
	mu    sync.Mutex
	woken atomic.Bool
	t     Transport
	ch    chan struct{}
}

func (w *wakeup) init(t Transport) {
	w.t = t
	w.ch = make(chan struct{}, 1)
}

// wake interrupts the owner once until it clears the wake-up.
func (w *wakeup) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.woken.Load() {
		return
	}
	w.woken.Store(true)
	w.t.SetReadDeadline(time.Now())
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// clear ends a wake-up: restore puts the read deadline back, under the
// same lock as wake, so that a later wake's deadline is not lost.
func (w *wakeup) clear(restore func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.woken.Store(false)
	restore()
	select {
	case <-w.ch:
	default:
	}
}

// errWoken is a read ended by a wake-up.
var errWoken = errors.New("conn: woken")
