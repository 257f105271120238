package broker

import (
	"errors"
	"fmt"
	"time"

	"warren/engine"
)

// A Visit is a batch of commands from a driver that has no connection of
// its own (the management API): queue, exchange and binding commands need
// a channel, so the owner opens, for the batch, a connection and channel
// per vhost the steps name, applies the steps on them, and closes them
// before the turn ends. No such connection outlives its Visit or shows in
// a listing, and all of it is one turn: nothing else runs between a
// step's probe (Unless) and its command, or between the steps.
//
// An engine exception closes the channel it happened on (a channel
// exception) or its connection: the owner then closes that connection and
// opens a new one for the vhost's next step, so one step's failure does
// not fail the next.
type Visit struct {
	// User acts in the visit: the connections are opened in their name.
	User string
	// Name names the visit's connections in events ("management").
	Name string
	// Checked says the connections carry User's permissions as the engine
	// has them (engine.Broker.UserGrants), so the engine refuses what it
	// would refuse User over AMQP; false checks none.
	Checked bool
	// Turn, when set, is told after the visit how long it held the engine.
	Turn func(time.Duration)
}

// A Step is one command of a Visit.
type Step struct {
	// Vhost, when set, is where Cmd runs: the owner sets its channel to
	// the visit's channel there, whatever Cmd's Channel said. A step in a
	// vhost that does not exist fails with ErrNoVhost. Empty for commands
	// without a channel (AddVhost, SetPolicy, ForceCloseConnection ...).
	Vhost string
	// Probe runs Cmd on a channel that checks no permissions, even in a
	// checked visit: for asking whether something exists, which RabbitMQ
	// answers 404 before any permission.
	Probe bool
	// Unless, when set, is a probe applied first in Vhost on an
	// unchecked channel (a passive declare): Cmd is applied only when it
	// fails with 404 NOT_FOUND; otherwise the step's result is Unless's,
	// with Skipped set. "Declare unless it exists", as a definitions
	// import does, in one turn.
	Unless engine.Command
	Cmd    engine.Command
	// Events asks for the events Cmd caused on the visit's channel, in
	// StepResult.Events: how the management API learns what a publish
	// became (returned, confirmed, nacked), as RabbitMQ's management
	// plugin learns it from basic.return and publisher confirms on its
	// internal channel.
	Events bool
	// AfterGot applies Cmd only when the step before it fetched a message
	// (a basic.get that got one): a run of gets stops at the first
	// basic.get-empty, and the rest are Skipped.
	AfterGot bool
}

// A StepResult is a step's result.
type StepResult struct {
	engine.Result
	// Skipped says the step's Unless found its object (or failed other
	// than with NOT_FOUND), or a step AfterGot followed one that fetched
	// nothing, and Cmd was not applied.
	Skipped bool
	// Events are, for a step that asked, the events Cmd caused on the
	// visit's channel, in order, without the message (Msg, Via and
	// Detail are nil: the visit's caller reads them after the turn).
	Events []engine.Event
	// DurableAt is, when Events hold a confirm of a publish that a queue
	// keeps across a restart, the log position that must be on disk
	// before the confirm may be told (AfterDurable); 0 when nothing waits.
	DurableAt uint64
}

// ErrNoVhost is a Step's error when its vhost does not exist.
var ErrNoVhost = errors.New("no such vhost")

// Visit applies steps in order in one turn, as the visitor v, appends
// each one's result to res and returns it; the error is ErrStopped after
// Stop.
func (b *Broker) Visit(v Visit, steps []Step, res []StepResult) ([]StepResult, error) {
	var took time.Duration
	err := b.own(func() {
		start := time.Now()
		vs := visitor{b: b, v: v}
		got := false
		for i := range steps {
			r := StepResult{Skipped: true}
			if !steps[i].AfterGot || got {
				r = vs.step(&steps[i])
			}
			res, got = append(res, r), r.Got && !r.Skipped
		}
		vs.close()
		took = time.Since(start)
	})
	if err == nil && v.Turn != nil {
		v.Turn(took) // after the turn, with the engine free
	}
	return res, err
}

// visitor holds a Visit's connections while it runs, under the lock.
type visitor struct {
	b *Broker
	v Visit
	// chans are the checked channels by vhost, probes the unchecked.
	chans, probes map[string]engine.ChannelID
}

func (vs *visitor) step(s *Step) StepResult {
	if s.Vhost == "" {
		return StepResult{Result: vs.b.eng.Apply(s.Cmd)}
	}
	if s.Unless != nil {
		r := vs.on(s.Vhost, false, s.Unless)
		if r.Err == ErrNoVhost {
			return StepResult{Result: r}
		}
		var ee *engine.Error
		if !errors.As(r.Err, &ee) || ee.Code != engine.NotFound {
			return StepResult{Result: r, Skipped: true}
		}
	}
	if s.Events {
		return vs.watched(s)
	}
	return StepResult{Result: vs.on(s.Vhost, vs.v.Checked && !s.Probe, s.Cmd)}
}

// watched applies a step that asked for its events. The events before
// it are handed on first (with the log records of what caused them, as
// ownLocked orders them), so what the engine holds after the step is
// the step's alone; they are then handed on as ownLocked would, after
// the step's own are copied out.
func (vs *visitor) watched(s *Step) StepResult {
	b := vs.b
	b.persistDeferred()
	b.dispatch()
	res, ch := vs.onChannel(s.Vhost, vs.v.Checked && !s.Probe, s.Cmd)
	r := StepResult{Result: res}
	b.persistDeferred()
	b.eng.DrainEventsTo(func(evs []engine.Event) {
		for i := range evs {
			ev := evs[i]
			if ch == (engine.ChannelID{}) || ev.Channel != ch {
				continue // no channel opened (no vhost): nothing is the step's
			}
			ev.Msg, ev.Via, ev.Detail = nil, nil, nil
			r.Events = append(r.Events, ev)
			if ev.Kind == engine.EvConfirmed && ev.Durable && b.dur != nil {
				r.DurableAt = b.dur.endPos()
			}
		}
		b.dispatchFn(evs)
	})
	return r
}

// on applies c on the visit's channel in vhost, checked or not.
func (vs *visitor) on(vhost string, checked bool, c engine.Command) engine.Result {
	r, _ := vs.onChannel(vhost, checked, c)
	return r
}

// onChannel is on, and returns the channel c ran on too (the zero
// ChannelID when none could be opened).
func (vs *visitor) onChannel(vhost string, checked bool, c engine.Command) (engine.Result, engine.ChannelID) {
	chans := &vs.probes
	if checked {
		chans = &vs.chans
	}
	if *chans == nil {
		*chans = map[string]engine.ChannelID{}
	}
	ch, ok := (*chans)[vhost]
	if !ok {
		var err error
		if ch, err = vs.open(vhost, checked); err != nil {
			return engine.Result{Err: err}, engine.ChannelID{}
		}
		(*chans)[vhost] = ch
	}
	r := vs.b.eng.Apply(onChannel(c, ch))
	if r.Err != nil {
		vs.b.eng.Apply(engine.CmdCloseConnection{Conn: ch.Conn})
		delete(*chans, vhost)
	}
	return r, ch
}

func (vs *visitor) open(vhost string, checked bool) (engine.ChannelID, error) {
	e := vs.b.eng
	if _, ok := e.VhostTotals(vhost); !ok {
		return engine.ChannelID{}, ErrNoVhost
	}
	o := engine.ConnectionOpen{Vhost: vhost, User: vs.v.User, Name: vs.v.Name}
	if checked {
		o.Perms = e.UserGrants(vs.v.User, vhost)
	}
	r := e.Apply(engine.CmdOpenConnection{Open: o})
	if r.Err != nil {
		return engine.ChannelID{}, r.Err
	}
	rc := e.Apply(engine.CmdOpenChannel{Conn: r.Conn, Num: 1})
	if rc.Err != nil {
		e.Apply(engine.CmdCloseConnection{Conn: r.Conn})
		return engine.ChannelID{}, rc.Err
	}
	return rc.Channel, nil
}

func (vs *visitor) close() {
	for _, chans := range []map[string]engine.ChannelID{vs.chans, vs.probes} {
		for _, ch := range chans {
			vs.b.eng.Apply(engine.CmdCloseConnection{Conn: ch.Conn})
		}
	}
}

// onChannel returns c with its channel set to ch: the commands a Visit's
// step may run in a vhost. Any other command there is a programmer's
// error.
func onChannel(c engine.Command, ch engine.ChannelID) engine.Command {
	switch c := c.(type) {
	case engine.CmdExchangeDeclare:
		c.Channel = ch
		return c
	case engine.CmdExchangeDelete:
		c.Channel = ch
		return c
	case engine.CmdExchangeBind:
		c.Channel = ch
		return c
	case engine.CmdExchangeUnbind:
		c.Channel = ch
		return c
	case engine.CmdQueueDeclare:
		c.Channel = ch
		return c
	case engine.CmdQueueDelete:
		c.Channel = ch
		return c
	case engine.CmdQueueBind:
		c.Channel = ch
		return c
	case engine.CmdQueueUnbind:
		c.Channel = ch
		return c
	case engine.CmdQueuePurge:
		c.Channel = ch
		return c
	case engine.CmdConfirmSelect:
		c.Channel = ch
		return c
	case engine.CmdBasicPublish:
		c.Channel = ch
		return c
	case engine.CmdBasicGet:
		c.Channel = ch
		return c
	case engine.CmdBasicNack:
		c.Channel = ch
		return c
	}
	panic(fmt.Sprintf("broker: a Visit's step cannot run %s on a channel", engine.KindOf(c)))
}
