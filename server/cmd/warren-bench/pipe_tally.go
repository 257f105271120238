package main

import (
	"fmt"
	"math/bits"
)

// idSet records which message ids one queue's consumers received: a bit
// per message of each publisher. Every run of the pipelining client checks
// that each queue got every published message exactly once, so a broker
// that loses or duplicates messages fails the run instead of looking fast.
type idSet struct {
	sent   []int      // messages each publisher sends
	seen   [][]uint64 // per publisher, one bit per sequence number
	dups   int        // ids received more than once
	strays int        // ids no publisher sent
}

// newIDSet returns an empty set for publishers that send sent[i] messages.
func newIDSet(sent []int) *idSet {
	s := &idSet{sent: sent, seen: make([][]uint64, len(sent))}
	for i, n := range sent {
		s.seen[i] = make([]uint64, (n+63)/64)
	}
	return s
}

// mark records id.
func (s *idSet) mark(id uint64) {
	p, seq := splitMsgID(id)
	if p >= len(s.sent) || seq >= s.sent[p] {
		s.strays++
		return
	}
	w, bit := &s.seen[p][seq/64], uint64(1)<<(seq%64)
	if *w&bit != 0 {
		s.dups++
		return
	}
	*w |= bit
}

// merge adds o (another consumer's record of the same queue) to s; an id
// both received counts as a duplicate.
func (s *idSet) merge(o *idSet) {
	s.dups += o.dups
	s.strays += o.strays
	for p := range s.seen {
		for i, w := range o.seen[p] {
			s.dups += bits.OnesCount64(s.seen[p][i] & w)
			s.seen[p][i] |= w
		}
	}
}

// received returns how many distinct ids s holds.
func (s *idSet) received() int {
	n := 0
	for _, ws := range s.seen {
		for _, w := range ws {
			n += bits.OnesCount64(w)
		}
	}
	return n
}

// check returns nil when every id was received exactly once and nothing
// else was, or else what went wrong.
func (s *idSet) check() error {
	want := 0
	for _, n := range s.sent {
		want += n
	}
	got := s.received()
	if got == want && s.dups == 0 && s.strays == 0 {
		return nil
	}
	return fmt.Errorf("received %d of %d messages, %d more than once, %d unknown", got, want, s.dups, s.strays)
}

// confirmTracker counts a publisher's confirms. The broker acks (or
// nacks) delivery tags 1, 2, ... in publish order, one at a time or with
// multiple=true for every tag up to one; single confirms may arrive out of
// order, so tags above the contiguous watermark are kept apart until it
// reaches them.
type confirmTracker struct {
	upTo   uint64          // every tag ≤ upTo is confirmed
	above  map[uint64]bool // confirmed tags > upTo+1, each with whether it was a nack
	nacked int
}

// confirm records a basic.ack (nack false) or basic.nack for tag and
// returns how many publishes it confirmed that were not confirmed before.
// A tag beyond published is a protocol error.
func (c *confirmTracker) confirm(tag uint64, multiple, nack bool, published uint64) (int, error) {
	if tag == 0 || tag > published {
		return 0, fmt.Errorf("confirm of delivery tag %d with %d published", tag, published)
	}
	if tag <= c.upTo {
		if multiple {
			return 0, nil // a repeat of what a later multiple covered
		}
		return 0, fmt.Errorf("delivery tag %d confirmed twice", tag)
	}
	n := 0
	switch {
	case multiple && len(c.above) == 0: // the usual case: in order
		n = int(tag - c.upTo)
		if nack {
			c.nacked += n
		}
		c.upTo = tag
	case multiple:
		for t := c.upTo + 1; t <= tag; t++ {
			if _, ok := c.above[t]; ok {
				delete(c.above, t)
				continue
			}
			n++
			if nack {
				c.nacked++
			}
		}
		c.upTo = tag
	default:
		if _, ok := c.above[tag]; ok {
			return 0, fmt.Errorf("delivery tag %d confirmed twice", tag)
		}
		if c.above == nil {
			c.above = map[uint64]bool{}
		}
		c.above[tag] = nack
		n = 1
		if nack {
			c.nacked++
		}
	}
	for { // the watermark climbs over single confirms it has reached
		if _, ok := c.above[c.upTo+1]; !ok {
			break
		}
		delete(c.above, c.upTo+1)
		c.upTo++
	}
	return n, nil
}

// confirmed returns how many publishes are confirmed.
func (c *confirmTracker) confirmed() uint64 { return c.upTo + uint64(len(c.above)) }
