package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"warren/engine/amqp"
)

// pipePublisher is one publishing connection: a writer that sends batches
// of publishes, and a reader. With confirms the writer keeps at most a
// window of publishes unconfirmed and the reader takes in the broker's
// confirms; without, the writer writes as fast as the socket takes the
// batches and the reader only watches for the broker closing the channel
// or the connection.
type pipePublisher struct {
	conn      *pipeConn
	tmpl      publishTemplate
	index     int
	count     int
	confirm   bool // channel 1 is in confirm mode
	published atomic.Uint64
	confirmed atomic.Uint64
	wake      chan struct{} // the reader's nudge to a writer waiting for room
	confirms  confirmTracker
}

// openPublishers connects the publishers, each with channel 1 (in confirm
// mode when the job confirms) and its publish encoded once.
func (r *pipeRun) openPublishers(ctx context.Context) error {
	b := body(r.e.sizeBytes)
	for i, n := range r.sent {
		conn, err := dialPipe(ctx, r.e.url)
		if err != nil {
			return err
		}
		p := &pipePublisher{conn: conn, index: i, count: n, confirm: r.job.confirm, wake: make(chan struct{}, 1)}
		r.pubs = append(r.pubs, p)
		if err := conn.openChannel(1); err != nil {
			return err
		}
		if p.confirm {
			if _, err := rpc[*amqp.ConfirmSelectOk](conn, 1, &amqp.ConfirmSelect{}); err != nil {
				return err
			}
		}
		if p.tmpl, err = newPublishTemplate(1, r.job.exchange, r.job.key, r.job.props, b, conn.frameMax); err != nil {
			return err
		}
	}
	return nil
}

// write publishes the publisher's messages in batches of at most batch
// per write, keeping at most window unconfirmed when it confirms.
func (p *pipePublisher) write(ctx context.Context, window, batch int) error {
	for seq := 0; seq < p.count; {
		room := batch
		if p.confirm {
			var err error
			if room, err = p.room(ctx, window); err != nil {
				return err
			}
		}
		n := min(room, batch, p.count-seq)
		p.conn.out = p.tmpl.appendBatch(p.conn.out[:0], msgID(p.index, seq), n)
		p.published.Add(uint64(n))
		if err := p.conn.write(p.conn.out); err != nil {
			return fmt.Errorf("publisher %d: %w", p.index, err)
		}
		p.conn.out = p.conn.out[:0]
		seq += n
	}
	return nil
}

// room waits until fewer than window publishes are unconfirmed and
// returns how many more may be sent.
func (p *pipePublisher) room(ctx context.Context, window int) (int, error) {
	for {
		if room := window - int(p.published.Load()-p.confirmed.Load()); room > 0 {
			return room, nil
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// readConfirms reads the broker's acks and nacks until every publish is
// confirmed.
func (p *pipePublisher) readConfirms() error {
	t := &p.confirms
	for t.confirmed() < uint64(p.count) {
		f, ok, err := p.conn.next()
		if err != nil {
			return err
		}
		if !ok {
			if err := p.conn.fill(); err != nil {
				return fmt.Errorf("publisher %d after %d of %d confirms: %w", p.index, t.confirmed(), p.count, err)
			}
			continue
		}
		if f.Type != amqp.FrameMethod {
			continue // heartbeats; nothing else comes to a publisher
		}
		if err := p.takeConfirm(f); err != nil {
			return err
		}
		p.confirmed.Store(t.confirmed())
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// takeConfirm records the confirm that method frame f carries; a frame
// that is no confirm is an error when it closes the channel or the
// connection, and is skipped otherwise.
func (p *pipePublisher) takeConfirm(f amqp.Frame) error {
	class, method, _ := methodIDs(f.Payload)
	if class != classBasic || (method != methodAck && method != methodNack) {
		if err := closeReason(f); err != nil {
			return fmt.Errorf("publisher %d: %w", p.index, err)
		}
		return nil
	}
	tag, multiple, err := parseConfirm(f.Payload)
	if err != nil {
		return err
	}
	if _, err := p.confirms.confirm(tag, multiple, method == methodNack, p.published.Load()); err != nil {
		return fmt.Errorf("publisher %d: %w", p.index, err)
	}
	return nil
}

// afterRun checks a frame that reaches the publisher after the run, while
// its connection closes, with the same tracker as readConfirms: a confirm
// of a tag already confirmed on its own, or of one never published, is an
// error, so that each publish was confirmed exactly once. (A multiple ack
// over tags already confirmed confirms nothing, and is let pass.)
func (p *pipePublisher) afterRun(f amqp.Frame) error {
	if !p.confirm || f.Type != amqp.FrameMethod {
		return nil
	}
	return p.takeConfirm(f)
}

// watch reads what the broker sends a publisher without confirms, which
// is nothing unless it closes the channel or the connection: that is
// returned as an error. It returns nil once the run is over (pipeProgress.over).
func (p *pipePublisher) watch(g *pipeProgress) error {
	for {
		f, ok, err := p.conn.next()
		if err != nil {
			return err
		}
		if !ok {
			if err := p.conn.fill(); err != nil {
				if g.over(err) {
					return nil
				}
				return fmt.Errorf("publisher %d: %w", p.index, err)
			}
			continue
		}
		if f.Type != amqp.FrameMethod {
			continue
		}
		if err := closeReason(f); err != nil {
			return fmt.Errorf("publisher %d: %w", p.index, err)
		}
	}
}
