package script

import "warren/engine"

// A publisherRecord is what the publisher on one channel has been told by
// the broker: which of its publishes were confirmed (basic.ack) or refused
// (basic.nack) in confirm mode, and which messages came back to it
// (basic.return). A real client keeps the same: it waits for each confirm
// by delivery tag and hands returned messages to a return listener. Being
// state, the record lets a check judge what happened on a channel however
// many lines ran since (expect confirm, expect returned), where expect
// event sees only the previous command. A record lives as long as its
// channel: closing the channel forgets it.
type publisherRecord struct {
	confirms []confirmRun // ascending, not overlapping
	// floor is the lowest tag still recorded: the oldest runs are
	// forgotten beyond maxConfirmRuns.
	floor   uint64
	returns []returnedMsg // the last maxReturns, oldest first
}

// A confirmRun is consecutive delivery tags with the same outcome.
type confirmRun struct {
	first, last uint64
	nack        bool
}

// A returnedMsg is one basic.return.
type returnedMsg struct {
	exchange, key string
	code          int
	text          string
	msg           *engine.Message
}

// The record is bounded: a million confirms with one outcome are one run,
// and only runs (changes between ack and nack) and returns take room.
const (
	maxConfirmRuns = 1024
	maxReturns     = 100
)

// notePublisher keeps the records up to date with one event.
func (r *Runner) notePublisher(e engine.Event) {
	switch e.Kind {
	case engine.EvChannelOpened, engine.EvChannelClosed:
		delete(r.pubs, e.Channel)
	case engine.EvConnectionClosed:
		for id := range r.pubs {
			if id.Conn == e.Channel.Conn {
				delete(r.pubs, id)
			}
		}
	case engine.EvConfirmed, engine.EvNacked:
		r.publisher(e.Channel).confirm(e.DeliveryTag, e.Multiple, e.Kind == engine.EvNacked)
	case engine.EvReturned:
		p := r.publisher(e.Channel)
		if len(p.returns) == maxReturns {
			p.returns = append(p.returns[:0], p.returns[1:]...)
		}
		p.returns = append(p.returns, returnedMsg{exchange: e.Exchange, key: e.RoutingKey, code: e.Code, text: e.Text, msg: e.Msg})
	}
}

func (r *Runner) publisher(id engine.ChannelID) *publisherRecord {
	if r.pubs == nil {
		r.pubs = map[engine.ChannelID]*publisherRecord{}
	}
	p := r.pubs[id]
	if p == nil {
		p = &publisherRecord{floor: 1}
		r.pubs[id] = p
	}
	return p
}

// highest is the highest tag confirmed either way, 0 for none.
func (p *publisherRecord) highest() uint64 {
	if len(p.confirms) == 0 {
		return p.floor - 1
	}
	return p.confirms[len(p.confirms)-1].last
}

// confirm records a basic.ack or basic.nack. With multiple it covers every
// tag up to tag not confirmed yet; the broker confirms in publish order.
func (p *publisherRecord) confirm(tag uint64, multiple, nack bool) {
	first := tag
	if h := p.highest(); multiple {
		first = h + 1
	} else if tag <= h {
		return // confirmed already
	}
	if first > tag {
		return
	}
	if n := len(p.confirms); n > 0 && p.confirms[n-1].nack == nack && p.confirms[n-1].last+1 == first {
		p.confirms[n-1].last = tag
		return
	}
	if len(p.confirms) == maxConfirmRuns {
		p.floor = p.confirms[0].last + 1
		p.confirms = append(p.confirms[:0], p.confirms[1:]...)
	}
	p.confirms = append(p.confirms, confirmRun{first: first, last: tag, nack: nack})
}

// outcome returns "ack" or "nack" for a tag, or "" when it has not been
// confirmed yet (or a gap the broker never confirmed); forgotten is true
// for a tag older than the record keeps.
func (p *publisherRecord) outcome(tag uint64) (out string, forgotten bool) {
	if tag < p.floor {
		return "", true
	}
	for _, c := range p.confirms {
		if tag >= c.first && tag <= c.last {
			if c.nack {
				return "nack", false
			}
			return "ack", false
		}
	}
	return "", false
}
