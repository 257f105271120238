package conn

import (
	"errors"
	"net"

	"warren/driver/sink"
	"warren/engine"
)

// Backend is the broker a connection's commands run on: the server's own
// (*broker.Broker) or a shared session's (driver/sessions). A connection
// hands it commands and gets their results (Apply); the backend hands the
// connection's events to its sink (Attach), from wherever it applies
// commands, before Apply returns for the commands that caused them.
type Backend interface {
	// Apply applies cmds in order until one fails, appending each
	// applied command's result to res (broker.Broker.Apply); an error
	// means the broker has stopped and nothing was applied.
	Apply(cmds []engine.Command, res []engine.Result) ([]engine.Result, error)
	// OpenConnection opens the connection in the engine
	// (CmdOpenConnection): the server's broker gives it the user's
	// permissions in the same turn (broker.Broker.OpenConnection); a
	// shared session's own user may do anything in its broker. An error
	// means the broker has stopped.
	OpenConnection(o engine.ConnectionOpen) (engine.Result, error)
	// Attach routes connection id's events to s; Detach stops that.
	Attach(id engine.ConnID, s sink.Sink)
	Detach(id engine.ConnID)
	// LogEnd and AfterDurable hold durable confirms until the command log
	// is on disk (broker/durable.go); a broker without a disk runs f at once.
	LogEnd() uint64
	AfterDurable(pos uint64, f func())
}

// Home is where a logged-in connection lives: a broker, and what the
// connections of that broker share with each other. The server's own
// broker is one home; each shared session is another, which a Router
// hands out at login.
type Home struct {
	// Alarm blocks the home's publishers (memory, disk, a session's
	// bytes).
	Alarm *Alarm
	// Ended, when set, closes when the home's broker ends for good (a
	// shared session ends): its connections are closed with 320
	// CONNECTION_FORCED and EndText.
	Ended   <-chan struct{}
	EndText func() string

	// inline says which connections' frames a request's goroutine writes
	// after it (inline.go).
	inline inlineWrites
}

// NewHome returns the home of the connections of one broker, blocked by
// alarm (nil: never).
func NewHome(alarm *Alarm) *Home {
	if alarm == nil {
		alarm = &Alarm{}
	}
	alarm.init()
	return &Home{Alarm: alarm}
}

// Router sends a login that is not one of the server's users to the
// broker it belongs to: a shared session's own user and password. It
// returns the session's home and a Backend for this one connection (whose
// commands the session records as that connection's), or ok false for a
// login it does not know, which then goes to the server's users.
type Router interface {
	Route(user, pass string, remote net.Addr) (home *Home, b Backend, ok bool)
}

// unackedReader is a backend that tells how many deliveries a channel
// has unacknowledged (the server's broker): a consumer's acks may then
// pace its reads (acks.go).
type unackedReader interface {
	Unacked(id engine.ChannelID) int
}

// ErrStopped is a Backend's error once its broker is gone: the server is
// stopping, or the shared session has ended.
var ErrStopped = errors.New("broker stopped")

// noBroker is the Backend of a server with no broker of its own (the
// edge, where every login goes to a shared session through the Router):
// nothing runs on it, since no login reaches it.
type noBroker struct{}

func (noBroker) Apply(_ []engine.Command, res []engine.Result) ([]engine.Result, error) {
	return res, ErrStopped
}
func (noBroker) OpenConnection(engine.ConnectionOpen) (engine.Result, error) {
	return engine.Result{}, ErrStopped
}
func (noBroker) Attach(engine.ConnID, sink.Sink) {}
func (noBroker) Detach(engine.ConnID)            {}
func (noBroker) LogEnd() uint64                  { return 0 }
func (noBroker) AfterDurable(_ uint64, f func()) { f() }
