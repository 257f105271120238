package sessions

import (
	"context"
	"errors"
	"log"
	"net/http"
	"sort"
	"sync"
	"time"

	"warren/engine/hub"
)

// Config sets a server's sessions and their limits. A zero field takes the
// default named beside it.
type Config struct {
	// Hub is every session's configuration (limits, idle time, engine);
	// a create's clock mode overrides Hub.Clock.
	Hub hub.Config
	// MaxSessions bounds the sessions the server runs at once.
	MaxSessions int
	// MaxPerAddr bounds the sessions one source address runs at once, and
	// CreatesPerMinute the sessions it may create a minute (addrs.go), so
	// that one address cannot take all of MaxSessions.
	MaxPerAddr       int
	CreatesPerMinute int
	// History bounds the history each session keeps for export
	// (history.go); zero fields take hub's defaults.
	History hub.HistoryLimits
	// QueueLen bounds the messages waiting for one socket's writer; past
	// it the page is dropped (see socket.go).
	QueueLen int
	// OriginPatterns are the browser origins allowed to open a session's
	// WebSocket (coder/websocket checks the Origin header).
	OriginPatterns []string
	// Admin checks a request to list the sessions, writing the refusal
	// itself; nil refuses every list (mgmt.AdminOnly in the server).
	Admin func(w http.ResponseWriter, r *http.Request) bool
	// PingInterval is how often a page's socket is pinged; a page that
	// has not answered by the next ping has left.
	PingInterval time.Duration
	// AMQPPort and AMQPWebSocket are where the server takes AMQP clients
	// (its TCP port, the WebSocket's path): a session's page shows them
	// with the session's own login. Both unset: sessions take no AMQP
	// clients.
	AMQPPort      int
	AMQPWebSocket string
	// Chinese says a hub error in Chinese for the API's refusals
	// (reasons["zh-CN"]), as the pages say it; nil leaves them English
	// alone. The server lends the pages' catalog (web/i18n), which the
	// edge's build must not link.
	Chinese func(key string, args map[string]string) string
	// Logf receives the loud logs (divergences, dropped pages); nil is
	// log.Printf.
	Logf func(format string, args ...any)
}

// The defaults of Config's zero fields.
const (
	DefaultMaxSessions = 100
	// DefaultMaxPerAddr and DefaultCreatesPerMinute are MaxPerAddr's and
	// CreatesPerMinute's defaults: a class behind one NAT shares an
	// address, and a teacher starts a few sessions for it; a tenth of
	// the server's sessions each way leaves the rest to everyone else.
	DefaultMaxPerAddr       = 10
	DefaultCreatesPerMinute = 10
	DefaultQueueLen         = 256
	// DefaultPingInterval is PingInterval's default: well inside the
	// idle timeouts of common proxies (60 s).
	DefaultPingInterval = 25 * time.Second
)

// Manager owns the sessions of one server: it creates them, finds them by
// either id, lists and ends them, and serves their HTTP endpoints
// (ServeHTTP).
type Manager struct {
	cfg Config

	mu      sync.Mutex
	byID    map[string]*session // by id and by read-only id
	byUser  map[string]*session // by its AMQP user (amqp.go)
	byAddr  map[string]*addrUse // by the source address that created them (addrs.go)
	nextNum uint64              // creation order, for the list
	closed  bool

	wg sync.WaitGroup // session goroutines and socket handlers
}

// New returns a manager with no sessions.
func New(cfg Config) *Manager {
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxPerAddr <= 0 {
		cfg.MaxPerAddr = DefaultMaxPerAddr
	}
	if cfg.CreatesPerMinute <= 0 {
		cfg.CreatesPerMinute = DefaultCreatesPerMinute
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = DefaultQueueLen
	}
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = DefaultPingInterval
	}
	if cfg.Logf == nil {
		cfg.Logf = log.Printf
	}
	return &Manager{cfg: cfg, byID: map[string]*session{}, byUser: map[string]*session{}, byAddr: map[string]*addrUse{}}
}

// Errors of Create.
var (
	errTooMany      = errors.New("too many sessions")
	errAddrSessions = errors.New("too many sessions from one address")
	errAddrRate     = errors.New("too many sessions created from one address")
	errShutdown     = errors.New("the server is shutting down")
)

// create starts a session named name on the clock mode given ("" for
// Config.Hub's) for source address addr, within the server's and the
// address's bounds.
func (m *Manager) create(name string, mode hub.ClockMode, addr string) (*session, error) {
	cfg := m.cfg.Hub
	if mode != "" {
		cfg.Clock = mode
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errShutdown
	}
	if len(m.byID)/2 >= m.cfg.MaxSessions {
		return nil, errTooMany
	}
	if err := m.admit(addr, time.Now().UnixMilli()); err != nil {
		return nil, err
	}
	cfg.AMQP = m.amqpLogin()
	for cfg.AMQP != nil && m.byUser[cfg.AMQP.User] != nil {
		cfg.AMQP = m.amqpLogin()
	}
	s := newSession(m, cfg, name)
	s.login, s.addr = cfg.AMQP, addr
	for s.id = newID(); m.byID[s.id] != nil; s.id = newID() {
	}
	for s.roID = newID(); m.byID[s.roID] != nil || s.roID == s.id; s.roID = newID() {
	}
	m.start(s)
	return s, nil
}

// start registers s under its ids and AMQP user and runs its goroutine;
// m.mu is held.
func (m *Manager) start(s *session) {
	if s.login != nil {
		m.byUser[s.login.User] = s
	}
	m.nextNum++
	s.num = m.nextNum
	m.byID[s.id], m.byID[s.roID] = s, s
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		s.run()
	}()
}

// find returns the session with id or read-only id, and the role the id
// grants.
func (m *Manager) find(id string) (*session, hub.Role, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.byID[id]
	if s == nil {
		return nil, "", false
	}
	if id == s.roID {
		return s, hub.ReadOnly, true
	}
	return s, hub.Editor, true
}

// Exists reports whether id is a running session's id or read-only id:
// what the web pages ask to answer /s/{id} (web.Sessions).
func (m *Manager) Exists(id string) bool {
	_, _, ok := m.find(id)
	return ok
}

// drop forgets an ended session and frees its ids; its goroutine calls it
// on the way out.
func (m *Manager) drop(s *session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID[s.id] == s {
		delete(m.byID, s.id)
		delete(m.byID, s.roID)
		m.release(s.addr)
	}
	if s.login != nil && m.byUser[s.login.User] == s {
		delete(m.byUser, s.login.User)
	}
}

// sessions returns the running sessions in the order they were created.
func (m *Manager) sessions() []*session {
	m.mu.Lock()
	list := make([]*session, 0, len(m.byID)/2)
	for id, s := range m.byID {
		if id == s.id {
			list = append(list, s)
		}
	}
	m.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].num < list[j].num })
	return list
}

// Len returns the number of running sessions.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byID) / 2
}

// Shutdown ends every session for the server's shutdown: each hub ends
// with KeyShutdown, its pages are told and their sockets closed. It
// refuses new sessions and joins from the start, and waits (until ctx
// ends) for every session goroutine and socket to finish.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	for _, s := range m.sessions() {
		s.stop(hub.KeyShutdown)
	}
	done := make(chan struct{})
	go func() {
		m.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
