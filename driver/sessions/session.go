package sessions

import (
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"

	"warren/driver/conn"
	"warren/engine"
	"warren/engine/hub"
)

// session is one shared session: its hub.Session, owned by the goroutine
// that runs run, and the channels everything else talks to it through.
type session struct {
	m         *Manager
	id, roID  string
	name      string
	login     *hub.AMQPLogin // for real AMQP clients; nil when the server takes none
	addr      string         // the source address that created it ("" hosted): its slot (addrs.go)
	num       uint64
	createdAt time.Time

	// in carries what the sockets read; stopc the server's reason to end
	// the session (hub.KeyShutdown or hub.KeyClosed); done closes when
	// the goroutine has ended the session and closed its sockets.
	in       chan input
	stopc    chan string
	stopOnce sync.Once
	done     chan struct{}

	// home is where the session's AMQP clients live (amqp.go): its alarm
	// blocks their publishes while the queues hold the session's bytes
	// limit, and its Ended is done. endText, set before done closes, is
	// the 320 they get then.
	home    *conn.Home
	endText string

	// Owned by the goroutine.
	hub      *hub.Session
	socks    map[hub.ParticipantID]*socket
	ids      map[*socket]hub.ParticipantID
	sinks    map[engine.ConnID]connSink // the AMQP connections'
	nextConn int                        // names them amqp-1, amqp-2, ...
	history  *hub.History               // the log kept whole, for export (history.go)
	keeping  *keeping                   // what the Keeper was given (keep.go); nil without one
	// wake is the driver's Wake (Host), and woke* what it was told last.
	wake         func(atMs int64, ok bool)
	woke, wokeOK bool
	wokeAt       int64
	alarmOnly    bool // the driver's alarm calls Tick: no timer of our own (Hosted.AlarmOnly)

	// summary is what the list shows, updated by the goroutine after each
	// step.
	mu      sync.Mutex
	summary summary
}

// summary is a session's state as GET /api/sessions shows it.
type summary struct {
	Participants int
	Seq          uint64
	Clock        hub.ClockMode
}

// input is one thing a socket tells its session.
type input struct {
	kind inputKind
	sock *socket
	data []byte
	// fn and done are an HTTP request's work on the session (inCall):
	// fn runs on the goroutine with the wall time, then done closes.
	fn   func(nowMs int64)
	done chan struct{}
}

type inputKind int

const (
	inJoin    inputKind = iota // data is the page's first message
	inMessage                  // data is a later message
	inLeave                    // the socket closed
	inCall                     // fn, from an HTTP request (the clock API)
)

// inQueue bounds the inputs waiting for a session's goroutine; a reader
// that finds it full waits, and so does its page's TCP connection.
const inQueue = 64

func newSession(m *Manager, cfg hub.Config, name string) *session {
	now := time.Now()
	// The session's engine time 0 is its creation: timestamps that leave
	// the engine (x-death's time) are wall-clock times.
	cfg.Engine.EpochMs = now.UnixMilli()
	return sessionOf(m, hub.New(cfg, now.UnixMilli()), name, now)
}

// sessionOf wraps a hub session, new or restored, created at createdAt.
func sessionOf(m *Manager, h *hub.Session, name string, createdAt time.Time) *session {
	s := &session{
		m: m, name: name, createdAt: createdAt,
		in: make(chan input, inQueue), stopc: make(chan string, 1), done: make(chan struct{}),
		hub:   h,
		socks: map[hub.ParticipantID]*socket{},
		ids:   map[*socket]hub.ParticipantID{},
		sinks: map[engine.ConnID]connSink{},
	}
	s.home = conn.NewHome(nil)
	s.home.Ended = s.done
	s.home.EndText = func() string { return s.endText }
	s.summary = summary{Clock: s.hub.Mode()}
	return s
}

// stop asks the goroutine to end the session for reason (hub.KeyShutdown
// or hub.KeyClosed).
func (s *session) stop(reason string) {
	s.stopOnce.Do(func() { s.stopc <- reason })
}

// send passes an input to the goroutine, unless the session has ended;
// it reports whether it did.
func (s *session) send(in input) bool {
	select {
	case s.in <- in:
		return true
	case <-s.done:
		return false
	}
}

// run is the session's goroutine: the only caller of s.hub.
func (s *session) run() {
	// The ids are free before done closes: whoever waits on done (a
	// DELETE, a test) finds them gone.
	defer close(s.done)
	defer s.m.drop(s)
	timer := time.NewTimer(time.Hour)
	timer.Stop() // armed by arm, never otherwise: a Durable Object with a pending timer cannot hibernate
	defer timer.Stop()
	s.deliver()
	for s.hub.Ended() == nil {
		s.arm(timer)
		select {
		case in := <-s.in:
			s.take(in)
		case <-timer.C:
			s.hub.Tick(s.nowMs())
		case reason := <-s.stopc:
			s.hub.End(reason)
		}
		s.deliver()
	}
	s.endText = endText(s.hub.Ended())
	s.tellWake(0, false)
}

// tellWake tells the driver's Wake (a Durable Object's alarm) the
// session's next wake-up when it differs from the last it was told.
func (s *session) tellWake(at int64, ok bool) {
	if s.wake == nil || (s.woke && at == s.wokeAt && ok == s.wokeOK) {
		return
	}
	s.woke, s.wokeAt, s.wokeOK = true, at, ok
	s.wake(at, ok)
}

func (s *session) nowMs() int64 { return time.Now().UnixMilli() }

// arm sets the timer for the hub's next wake-up (duty 5), and tells the
// driver's Wake when it moved.
func (s *session) arm(timer *time.Timer) {
	wake, ok := s.hub.NextWakeMs()
	s.tellWake(wake, ok)
	if !ok || s.alarmOnly {
		return
	}
	timer.Reset(time.Duration(max(wake-s.nowMs(), 0)) * time.Millisecond)
}

// take passes one socket input to the hub (duty 2).
func (s *session) take(in input) {
	now := s.nowMs()
	switch in.kind {
	case inJoin:
		msg, err := s.hub.DecodeInbound(in.data)
		if err != nil {
			in.sock.enqueue(encode(hub.ErrorMessage(err)))
			in.sock.finish(websocket.StatusPolicyViolation, hub.CloseReason(hub.NewError(hub.KeyJoinFirst)), true)
			return
		}
		if msg.Type != hub.InJoin {
			in.sock.finish(websocket.StatusPolicyViolation, hub.CloseReason(hub.NewError(hub.KeyJoinFirst)), true)
			return
		}
		id, err := s.hub.Join(now, msg.Name, in.sock.role)
		if err != nil {
			in.sock.enqueue(encode(hub.ErrorMessage(err)))
			in.sock.finish(websocket.StatusPolicyViolation, joinCloseReason(err), true)
			return
		}
		s.socks[id], s.ids[in.sock] = in.sock, id
		if in.sock.onJoin != nil {
			in.sock.onJoin(id)
		}
	case inCall:
		in.fn(now)
		if in.done != nil {
			close(in.done)
		}
	case inMessage:
		if id, ok := s.ids[in.sock]; ok {
			s.hub.Handle(now, id, in.data)
		}
	case inLeave:
		if id, ok := s.ids[in.sock]; ok {
			delete(s.ids, in.sock)
			delete(s.socks, id)
			s.hub.Leave(now, id)
		}
	}
}

// deliver acts on Ready until the hub has nothing more (duty 4): dropping
// a page that cannot keep up is a Leave, which makes more.
func (s *session) deliver() {
	for {
		r := s.hub.Ready()
		s.keepHistory(r.Entries)
		s.keep(r.Entries)
		if len(r.Messages) == 0 && len(r.Events) == 0 && len(r.Divergences) == 0 && r.Ended == nil {
			break
		}
		encoded := map[*hub.Message][]byte{}
		for _, o := range r.Messages {
			sock := s.socks[o.To]
			if sock == nil {
				continue // a page dropped earlier in this Ready
			}
			data, ok := encoded[o.Msg]
			if !ok {
				data = encode(o.Msg)
				encoded[o.Msg] = data
			}
			if !sock.enqueue(data) {
				s.m.cfg.Logf("sessions: session %s: dropped participant %d: its page fell %d messages behind", s.id, o.To, s.m.cfg.QueueLen)
				sock.finish(websocket.StatusPolicyViolation, hub.CloseReason(hub.NewError(hub.KeyTooSlow)), false)
				delete(s.ids, sock)
				delete(s.socks, o.To)
				s.hub.Leave(s.nowMs(), o.To)
			}
		}
		s.dispatch(r.Events)
		for _, d := range r.Divergences {
			s.logReport(d)
		}
		if r.Ended != nil {
			code := websocket.StatusNormalClosure
			if r.Ended.Key == hub.KeyShutdown {
				code = websocket.StatusGoingAway
			}
			for sock := range s.ids {
				sock.finish(code, hub.CloseReason(r.Ended), true)
			}
			clear(s.ids)
			clear(s.socks)
		}
	}
	s.home.Alarm.SetMemory(s.hub.AllowPublish() != nil)
	s.mu.Lock()
	s.summary = summary{Participants: len(s.socks), Seq: s.hub.Seq(), Clock: s.hub.Mode()}
	s.mu.Unlock()
}

// encode writes a message as the protocol does: JSON, one object.
func encode(m *hub.Message) []byte {
	data, err := json.Marshal(m)
	if err != nil {
		panic("sessions: cannot encode a hub message: " + err.Error()) // programmer error
	}
	return data
}

// joinCloseReason is the close reason of a page whose join the hub
// refused with err: a hub *Error (Join's), keyed as every page close is.
func joinCloseReason(err error) string {
	var he *hub.Error
	if errors.As(err, &he) {
		return hub.CloseReason(he)
	}
	return err.Error()
}

// call runs fn on the session's goroutine, with the wall time, and waits
// for it; it reports false if the session ended first.
func (s *session) call(fn func(nowMs int64)) bool {
	in := input{kind: inCall, fn: fn, done: make(chan struct{})}
	if !s.send(in) {
		return false
	}
	select {
	case <-in.done:
		return true
	case <-s.done:
		return false
	}
}
