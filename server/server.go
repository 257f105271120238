// Package server runs Warren natively: the engine on its wall-clock driver,
// AMQP 0-9-1 over TCP and over WebSocket, and the management HTTP API.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"warren/driver/addrlimit"
	"warren/driver/conn"
	"warren/driver/sessions"
	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
	"warren/server/httpguard"
	"warren/server/mgmt"
	"warren/server/store"
	"warren/server/tcp"
	"warren/server/ws"
	"warren/web"
	"warren/web/i18n"
)

// Options configure a server.
type Options struct {
	AMQPAddr string // default 127.0.0.1:5672
	HTTPAddr string // default 127.0.0.1:8080
	// UsersFile is a JSON file of users and permissions (auth.Definitions,
	// RabbitMQ's definitions shape) imported at start, after the default
	// user guest; "" imports none.
	UsersFile string
	Engine    engine.Config
	Conn      conn.Config
	// PreLogin bounds the AMQP connections (over TCP and WebSocket
	// together) that have not logged in yet, per source address and in
	// total (admission.go); zero fields take DefaultPreLoginPerAddress
	// and DefaultPreLoginTotal.
	PreLogin addrlimit.Limits
	// HTTPConns bounds the HTTP listener's connections per source
	// address and in total (admission.go); zero fields take
	// DefaultHTTPConnsPerAddress and DefaultHTTPConnsTotal.
	HTTPConns addrlimit.Limits
	// OriginPatterns are the browser origins allowed to open the AMQP
	// WebSocket and the shared sessions' WebSocket (coder/websocket checks the Origin header).
	OriginPatterns []string
	// DataDir, when set, keeps the broker's state on disk there (the
	// command log and snapshots, server/store) and restores it at start;
	// empty keeps everything in memory.
	DataDir string
	// Store tunes the data directory's store (tests inject disk faults
	// through it).
	Store store.Options
	// Sessions configures the shared sessions (driver/sessions): their
	// limits and idle time. Its origins and the administrator check are
	// the server's.
	Sessions sessions.Config
	// Clock is the mode the broker's clock starts in (broker.ClockMode):
	// live follows the wall clock; paused and manual stand still until
	// told (POST /api/clock). The flag decides at every start; the data
	// directory does not keep it.
	Clock broker.ClockMode
	// Log receives start-up notes (what recovery found and repaired);
	// nil discards them.
	Log func(format string, args ...any)
}

// Server is a running Warren.
type Server struct {
	opts     Options
	broker   *broker.Broker
	users    *auth.Store
	sessions *sessions.Manager
	amqpLn   net.Listener
	http     *http.Server
	httpLn   net.Listener
	// preLogin counts the AMQP connections before login; httpConns the
	// HTTP listener's (admission.go).
	preLogin        *addrlimit.Limiter
	preLoginRefused *refusals
	httpConns       *httpConns

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start listens on both addresses and serves until Shutdown.
func Start(opts Options) (*Server, error) {
	if opts.AMQPAddr == "" {
		opts.AMQPAddr = "127.0.0.1:5672"
	}
	if opts.HTTPAddr == "" {
		opts.HTTPAddr = "127.0.0.1:8080"
	}
	if len(opts.OriginPatterns) == 0 {
		opts.OriginPatterns = []string{"127.0.0.1:*", "localhost:*"}
	}
	s := &Server{opts: opts,
		preLogin:        addrlimit.New(defaultLimits(opts.PreLogin, DefaultPreLoginPerAddress, DefaultPreLoginTotal)),
		preLoginRefused: &refusals{what: "AMQP connections before login", whatZh: "登录前 AMQP 连接", flag: "--max-prelogin-per-address/--max-prelogin", log: opts.Log},
		httpConns:       newHTTPConns(defaultLimits(opts.HTTPConns, DefaultHTTPConnsPerAddress, DefaultHTTPConnsTotal), opts.Log)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	fresh := true
	if opts.DataDir == "" {
		s.broker = broker.StartWith(opts.Engine, broker.Options{Clock: opts.Clock})
	} else {
		b, restored, err := startDurable(opts)
		if err != nil {
			return nil, err
		}
		s.broker, fresh = b, !restored
	}
	var err error
	if s.users, err = startUsers(s.broker, opts.UsersFile, fresh); err != nil {
		s.broker.Stop()
		s.broker.CloseStore()
		return nil, err
	}
	s.opts.Conn.Broker, s.opts.Conn.Users = s.broker, s.users
	s.opts.Conn.Defaults()
	s.broker.WatchTotals(s.opts.Conn.Alarm.Totals)
	s.broker.OnDiskError(s.opts.Conn.Alarm.DiskFailed)

	// The data directory is read before the ports open, so that a client
	// connecting meanwhile is refused rather than kept waiting. A start
	// refused for a taken address closes the store, so that what the
	// start wrote (guest, on a fresh directory) is kept: a directory left
	// initialised without it made the next start, finding it not fresh,
	// create no guest.
	if s.amqpLn, err = listen("AMQP", "amqp", "AMQP", opts.AMQPAddr); err != nil {
		s.broker.Stop()
		s.broker.CloseStore()
		return nil, err
	}
	if s.httpLn, err = listen("HTTP", "http", "HTTP", opts.HTTPAddr); err != nil {
		s.amqpLn.Close()
		s.broker.Stop()
		s.broker.CloseStore()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/amqp", s.serveWebSocket)
	mux.HandleFunc("/ws/amqp", s.serveWebSocket)
	mux.Handle("/api/", mgmt.New(s.broker, s.users, mgmt.Options{MaxMessageSize: s.opts.Conn.MaxMessageSize}))
	// The shared sessions sit beside the management API rather than in
	// its router: each has its own goroutine and broker (the API's
	// handlers all run on the server's broker), creating and ending one
	// take no credentials (the id is the capability), and only the list
	// needs the API's authentication, which mgmt.AdminOnly lends.
	scfg := opts.Sessions
	scfg.OriginPatterns = s.opts.OriginPatterns
	scfg.Admin = mgmt.AdminOnly(s.users)
	scfg.Chinese = func(key string, args map[string]string) string { return i18n.HubError("zh-CN", key, args) }
	// Real AMQP clients join a session by logging in with its own user
	// on the server's listeners: the manager routes those logins.
	scfg.AMQPPort = s.amqpLn.Addr().(*net.TCPAddr).Port
	scfg.AMQPWebSocket = "/ws/amqp"
	s.sessions = sessions.New(scfg)
	s.opts.Conn.Router = s.sessions
	mux.Handle("/api/sessions", s.sessions)
	mux.Handle("/api/sessions/", s.sessions)
	mux.Handle("/ws/sessions/", s.sessions)
	mux.Handle("/", web.Handler(web.WithSessions(s.sessions))) // the home page, /playground, /s/{id} and /static/
	// Every endpoint sits behind the one guard (server/httpguard): no
	// change from a page of another site, no body that is not JSON.
	// Slow headers are bounded by ReadHeaderTimeout and idle keep-alive
	// connections by IdleTimeout (cowboy's idle_timeout, which RabbitMQ's
	// management listener keeps at its default of 60 s); how many
	// connections one address holds at all, by httpConns.
	s.http = &http.Server{Handler: httpguard.Wrap(mux), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second,
		ConnState: s.httpConns.connState}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		s.acceptAMQP()
	}()
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(s.httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err
		}
	}()
	return s, nil
}

// AMQPAddr and HTTPAddr report where the server listens (useful with port 0).
func (s *Server) AMQPAddr() string { return s.amqpLn.Addr().String() }

// HTTPAddr reports the HTTP listener's address.
func (s *Server) HTTPAddr() string { return s.httpLn.Addr().String() }

// Broker exposes the driver (for tests and sessions).
func (s *Server) Broker() *broker.Broker { return s.broker }

// Users exposes the users and permissions (for tests): changes made
// through it go to the engine, as the management API's do.
func (s *Server) Users() *auth.Store { return s.users }

// startUsers gives a fresh broker its users, through the engine like every
// later change: RabbitMQ's default user, then those of the users file.
func startUsers(b *broker.Broker, usersFile string, fresh bool) (*auth.Store, error) {
	var users *auth.Store
	var err error
	if fresh {
		users, err = auth.NewStore(b)
	} else {
		// A restored broker has the users it had (guest only if it
		// was not deleted); the users file is imported again at every
		// start, as RabbitMQ loads its definitions file at boot.
		users, err = auth.Mirror(b)
	}
	if err != nil {
		return nil, err
	}
	if usersFile != "" {
		if err := users.LoadFile(usersFile); err != nil {
			return nil, err
		}
	}
	return users, nil
}

func (s *Server) acceptAMQP() {
	for {
		nc, err := s.amqpLn.Accept()
		if err != nil {
			return
		}
		claim, ok := s.preLogin.Take(nc.RemoteAddr())
		if !ok {
			s.preLoginRefused.note(nc.RemoteAddr())
			refuse(nc) // admission.go says why without a word
			continue
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			conn.ServeAdmitted(s.ctx, tcp.New(nc), &s.opts.Conn, claim)
		}()
	}
}

func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	claim, ok := s.preLoginWebSocket(w, r)
	if !ok {
		return
	}
	t, err := ws.Accept(w, r, s.opts.OriginPatterns)
	if err != nil {
		claim.Release()
		return // Accept has answered the request
	}
	s.wg.Add(1)
	defer s.wg.Done()
	conn.ServeAdmitted(s.ctx, t, &s.opts.Conn, claim)
}

// PreLoginHeld reports how many AMQP connections before login the source
// address of peer holds, and how many all addresses hold (for tests).
func (s *Server) PreLoginHeld(peer net.Addr) (address, total int) { return s.preLogin.Held(peer) }

// HTTPHeld reports how many HTTP connections the source address of peer
// holds, and how many all addresses hold (for tests).
func (s *Server) HTTPHeld(peer net.Addr) (address, total int) { return s.httpConns.lim.Held(peer) }

// Sessions exposes the shared sessions (for tests).
func (s *Server) Sessions() *sessions.Manager { return s.sessions }

// Shutdown ends every shared session (its pages are told), stops
// accepting, sends connection.close 320 CONNECTION_FORCED to every client,
// and waits (until ctx ends) for connections to finish.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.sessions.Shutdown(ctx)
	s.amqpLn.Close()
	s.cancel()
	if herr := s.http.Shutdown(ctx); err == nil {
		err = herr
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.broker.Stop()
	if cerr := s.broker.CloseStore(); err == nil {
		err = cerr
	}
	return err
}

// startDurable opens the data directory, rebuilds the broker it holds and
// starts it, logging what recovery found; restored says the directory
// held a broker already.
func startDurable(opts Options) (b *broker.Broker, restored bool, err error) {
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	st, rec, err := store.Open(opts.DataDir, opts.Store)
	if de := (*store.DamagedError)(nil); errors.As(err, &de) {
		return nil, false, errDamaged(opts.DataDir, de)
	}
	if err != nil {
		return nil, false, fmt.Errorf("data directory %s: %w", opts.DataDir, err)
	}
	for _, n := range rec.Notes {
		logf("data directory 数据目录 %s: %s", opts.DataDir, n)
	}
	began := time.Now()
	eng, err := broker.Recover(opts.Engine, began, opts.Clock, st, rec)
	if err != nil {
		st.Close()
		return nil, false, err
	}
	restored = rec.Last > 0 || rec.Snapshot != nil
	if restored {
		logf("data directory 数据目录 %s: restored snapshot %d and %d log records in %v 已恢复快照 %[2]d 及其后的 %[3]d 条日志记录，用时 %[4]v",
			opts.DataDir, rec.SnapshotPos, rec.Last-rec.SnapshotPos, time.Since(began).Round(time.Millisecond))
	}
	return broker.StartDurable(eng, broker.Options{Clock: opts.Clock, Store: st}), restored, nil
}
