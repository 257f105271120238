package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"warren/server/amqp"
)

// pipePublisher is one publishing connection: a writer that sends batches
// of publishes while the confirm window has room, and a reader of the
// broker's confirms.
type pipePublisher struct {
	conn      *pipeConn
	tmpl      publishTemplate
	index     int
	count     int
	published atomic.Uint64
	confirmed atomic.Uint64
	wake      chan struct{} // the reader's nudge to a writer waiting for room
	nacked    int
}

// openPublishers connects the publishers, each with channel 1 in confirm
// mode and its publish encoded once.
func (r *pipeRun) openPublishers(ctx context.Context) error {
	b := body(r.e.sizeBytes)
	for i, n := range r.sent {
		conn, err := dialPipe(ctx, r.e.url)
		if err != nil {
			return err
		}
		p := &pipePublisher{conn: conn, index: i, count: n, wake: make(chan struct{}, 1)}
		r.pubs = append(r.pubs, p)
		if err := conn.openChannel(1); err != nil {
			return err
		}
		if _, err := rpc[*amqp.ConfirmSelectOk](conn, 1, &amqp.ConfirmSelect{}); err != nil {
			return err
		}
		if p.tmpl, err = newPublishTemplate(1, r.job.exchange, r.job.key, r.job.props, b, conn.frameMax); err != nil {
			return err
		}
	}
	return nil
}

// write publishes the publisher's messages in batches of at most batch
// per write, keeping at most window unconfirmed.
func (p *pipePublisher) write(ctx context.Context, window, batch int) error {
	for seq := 0; seq < p.count; {
		var room int
		for {
			room = window - int(p.published.Load()-p.confirmed.Load())
			if room > 0 {
				break
			}
			select {
			case <-p.wake:
			case <-ctx.Done():
				return ctx.Err()
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

// readConfirms reads the broker's acks and nacks until every publish is
// confirmed.
func (p *pipePublisher) readConfirms() error {
	var t confirmTracker
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
		class, method, _ := methodIDs(f.Payload)
		if class != classBasic || (method != methodAck && method != methodNack) {
			if err := closeReason(f); err != nil {
				return fmt.Errorf("publisher %d: %w", p.index, err)
			}
			continue
		}
		tag, multiple, err := parseConfirm(f.Payload)
		if err != nil {
			return err
		}
		if _, err := t.confirm(tag, multiple, method == methodNack, p.published.Load()); err != nil {
			return fmt.Errorf("publisher %d: %w", p.index, err)
		}
		p.confirmed.Store(t.confirmed())
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	p.nacked = t.nacked
	return nil
}
