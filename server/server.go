// Package server runs Warren natively: the engine on its wall-clock driver,
// AMQP 0-9-1 over TCP and over WebSocket, and the management HTTP API.
package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
	"warren/server/conn"
	"warren/server/mgmt"
	"warren/web"
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
	// OriginPatterns are the browser origins allowed to open the AMQP
	// WebSocket (coder/websocket checks the Origin header).
	OriginPatterns []string
}

// Server is a running Warren.
type Server struct {
	opts   Options
	broker *broker.Broker
	users  *auth.Store
	amqpLn net.Listener
	http   *http.Server
	httpLn net.Listener

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
	s := &Server{opts: opts}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.broker = broker.Start(opts.Engine, nil)
	var err error
	if s.users, err = startUsers(s.broker, opts.UsersFile); err != nil {
		s.broker.Stop()
		return nil, err
	}
	s.opts.Conn.Broker, s.opts.Conn.Users = s.broker, s.users
	s.opts.Conn.Defaults()
	s.broker.Observe(s.opts.Conn.Alarm)

	if s.amqpLn, err = net.Listen("tcp", opts.AMQPAddr); err != nil {
		s.broker.Stop()
		return nil, err
	}
	if s.httpLn, err = net.Listen("tcp", opts.HTTPAddr); err != nil {
		s.amqpLn.Close()
		s.broker.Stop()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/amqp", s.serveWebSocket)
	mux.HandleFunc("/ws/amqp", s.serveWebSocket)
	mux.Handle("/api/", mgmt.New(s.broker, s.users))
	mux.Handle("/", web.Handler()) // the home page, /playground and /static/
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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
func startUsers(b *broker.Broker, usersFile string) (*auth.Store, error) {
	users, err := auth.NewStore(b)
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
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			conn.Serve(s.ctx, conn.TCP(nc), &s.opts.Conn)
		}()
	}
}

func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	t, err := conn.WebSocket(w, r, s.opts.OriginPatterns)
	if err != nil {
		return // Accept has answered the request
	}
	s.wg.Add(1)
	defer s.wg.Done()
	conn.Serve(s.ctx, t, &s.opts.Conn)
}

// Shutdown stops accepting, sends connection.close 320 CONNECTION_FORCED to
// every client, and waits (until ctx ends) for connections to finish.
func (s *Server) Shutdown(ctx context.Context) error {
	s.amqpLn.Close()
	s.cancel()
	err := s.http.Shutdown(ctx)
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
	return err
}
