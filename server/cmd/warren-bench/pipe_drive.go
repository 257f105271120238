package main

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// pipeProgress is what the goroutines of one pipelined load share: the
// deliveries counted as they arrive, a signal once all are in, and the
// end of the run that tells the listeners to stop.
type pipeProgress struct {
	delivered atomic.Int64  // messages received whole, over every consumer
	target    int64         // deliveries that end the run; 0: nothing is consumed
	all       chan struct{} // closed when delivered reaches target
	allOnce   sync.Once
	finished  chan struct{} // closed to tell listeners the run is over
}

func newPipeProgress(target int) *pipeProgress {
	return &pipeProgress{target: int64(target), all: make(chan struct{}), finished: make(chan struct{})}
}

// add counts n more whole deliveries.
func (g *pipeProgress) add(n int) {
	if g.delivered.Add(int64(n)) >= g.target {
		g.allOnce.Do(func() { close(g.all) })
	}
}

// pipeLoad is the goroutines of one pipelined load, for drive.
type pipeLoad struct {
	// work are the writers (and confirm readers): each returns nil when
	// it is done.
	work []func(ctx context.Context) error
	// listen are the consumers (and the readers of publishers that do not
	// confirm): each returns nil only once the run is over (over).
	listen []func() error
	// listeners are the connections listen reads, which end wakes.
	listeners []*pipeConn
	// settle, when set, is run once the work is done and every delivery
	// is in (pipeJob.settle).
	settle func(ctx context.Context) error
	// abort closes every socket, ending every goroutine's I/O.
	abort func()
}

// drive runs load until the work is done, every delivery is in (when
// something is consumed) and the settle has returned, then ends the run
// (end) and waits for the listeners. It returns when the settle began
// (0 without one) and when the run ended, both counted from its start.
// On the first error, or when ctx ends, it aborts the load and returns
// the error once every goroutine has stopped.
func (g *pipeProgress) drive(ctx context.Context, load pipeLoad) (wrote, elapsed time.Duration, err error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	doneErrs := make(chan error, len(load.work))
	listenErrs := make(chan error, len(load.listen))
	settled := make(chan error, 1)
	var wg sync.WaitGroup
	// fail ends the run: closing every socket ends every goroutine's read
	// or write, and cancel a writer waiting for room in its window, or
	// for its next message to fall due, or a settle.
	fail := func(err error) (time.Duration, time.Duration, error) {
		cancel()
		load.abort()
		wg.Wait()
		return 0, 0, err
	}
	start := time.Now()
	for _, listen := range load.listen {
		wg.Go(func() { listenErrs <- listen() })
	}
	for _, work := range load.work {
		wg.Go(func() { doneErrs <- work(runCtx) })
	}

	working, listening := len(load.work), len(load.listen)
	var allSeen <-chan struct{}
	if g.target > 0 {
		allSeen = g.all
	}
	settle := load.settle
	settling, over := false, false
	for {
		if working == 0 && allSeen == nil && !settling {
			if settle != nil {
				wrote = time.Since(start)
				f := settle
				settle, settling = nil, true
				wg.Go(func() { settled <- f(runCtx) })
			} else {
				if !over {
					over = true
					if err := g.end(load.listeners); err != nil {
						return fail(err)
					}
				}
				if listening == 0 {
					break
				}
			}
		}
		select {
		case err := <-doneErrs:
			if err != nil {
				return fail(err)
			}
			working--
		case err := <-listenErrs:
			if err == nil && !over {
				err = errors.New("a consumer or a publisher's reader stopped before the end")
			}
			if err != nil {
				return fail(err)
			}
			listening--
		case <-allSeen:
			allSeen = nil
		case err := <-settled:
			if err != nil {
				return fail(err)
			}
			settling = false
		case <-runCtx.Done():
			return fail(runCtx.Err())
		}
	}
	// The clock stops when every message is confirmed and delivered, or
	// settled, and the consumers have sent their last acks.
	elapsed = time.Since(start)
	wg.Wait()
	return wrote, elapsed, nil
}

// end tells the listeners that the run is over and wakes each from its
// read on conns with a deadline in the past: a consumer then sends its
// last acks.
func (g *pipeProgress) end(conns []*pipeConn) error {
	close(g.finished)
	for _, c := range conns {
		if err := c.c.SetReadDeadline(time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// over reports whether err, from a listener's read, is end's wake-up.
func (g *pipeProgress) over(err error) bool {
	select {
	case <-g.finished:
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	default:
		return false
	}
}

// run reads deliveries, frames many at a time, and after each read sends
// the acks that are due in one write; when the run is over it acks what
// is left and returns.
func (s *pipeConsumer) run(g *pipeProgress) error {
	reported := 0
	stamp := s.state.take != nil // the time of each read is wanted
	if stamp {
		s.state.readAtNs = time.Now().UnixNano()
	}
	for {
		for {
			f, ok, err := s.conn.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if err := s.state.handle(f); err != nil {
				return err
			}
		}
		if d := s.state.delivered - reported; d > 0 {
			reported = s.state.delivered
			g.add(d)
		}
		s.conn.out = s.state.appendAcks(s.conn.out, false)
		if err := s.conn.flush(); err != nil {
			return err
		}
		if err := s.conn.fill(); err != nil {
			if !g.over(err) {
				return err
			}
			if err := s.conn.c.SetReadDeadline(time.Time{}); err != nil {
				return err
			}
			s.conn.out = s.state.appendAcks(s.conn.out, true)
			return s.conn.flush()
		}
		if stamp {
			s.state.readAtNs = time.Now().UnixNano()
		}
	}
}
