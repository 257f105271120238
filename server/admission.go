package server

import (
	"net"
	"net/http"
	"net/netip"
	"sync"

	"warren/server/addrlimit"
)

// Before login, one host cannot crowd out the rest. The sockets that have
// not logged in yet — AMQP over TCP and over WebSocket counted together —
// are bounded per source address and in total (Options.PreLogin), from
// accept until connection.open succeeds (server/conn gives the place
// back then) or the socket ends, at the latest at the handshake timeout.
// The HTTP listener's connections are bounded the same way
// (Options.HTTPConns), from accept until they close or are taken over by
// a WebSocket. Logged-in AMQP connections count under --max-connections
// only, so half-open sockets never eat that budget.
//
// RabbitMQ has no such bound: its listener accepts until connection_max
// and then stops accepting, which is what lets half-open sockets lock
// everyone out. A socket over the bound is closed at once, reset, with
// nothing written and nothing read. AMQP 0-9-1 has no way to refuse a
// client before connection.start: the one early reply the protocol has,
// sending the server's protocol header back, tells a client it spoke the
// wrong version, which would be false here; and whatever the server
// wrote or read for a refused socket would cost it work for every socket
// of a flood. A reset is what a client's connect loop already knows how
// to retry. A WebSocket client, which asks over HTTP first, is answered
// 429 instead, before the upgrade.

// Default bounds for Options.PreLogin and Options.HTTPConns (the `warren
// serve` flags' defaults).
const (
	DefaultPreLoginPerAddress  = 256
	DefaultPreLoginTotal       = 4096
	DefaultHTTPConnsPerAddress = 256
	DefaultHTTPConnsTotal      = 4096
)

// defaultLimits fills the zero fields of l.
func defaultLimits(l addrlimit.Limits, perAddress, total int) addrlimit.Limits {
	if l.PerAddress == 0 {
		l.PerAddress = perAddress
	}
	if l.Total == 0 {
		l.Total = total
	}
	return l
}

// refuse drops a socket over a bound: SO_LINGER 0, so that the close
// resets it and leaves the server no TIME_WAIT.
func refuse(nc net.Conn) {
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	nc.Close()
}

// preLoginWebSocket takes an AMQP-over-WebSocket request's place before
// login, or answers 429 and reports false.
func (s *Server) preLoginWebSocket(w http.ResponseWriter, r *http.Request) (*addrlimit.Claim, bool) {
	var peer net.Addr = stringAddr(r.RemoteAddr)
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		peer = net.TCPAddrFromAddrPort(ap)
	}
	claim, ok := s.preLogin.Take(peer)
	if !ok {
		http.Error(w, "too many AMQP connections before login from your address 来自你的地址的未登录 AMQP 连接过多", http.StatusTooManyRequests)
	}
	return claim, ok
}

type stringAddr string

func (a stringAddr) Network() string { return "tcp" }
func (a stringAddr) String() string  { return string(a) }

// httpConns holds the HTTP listener's places (Options.HTTPConns) through
// http.Server's ConnState hook: taken when a connection is accepted (one
// over the bound is refused there, before a request is read), given back
// when it closes or is hijacked — a WebSocket, which from then on counts
// as an AMQP connection (preLogin, then --max-connections) or as a
// shared session's participant.
type httpConns struct {
	lim    *addrlimit.Limiter
	mu     sync.Mutex
	claims map[net.Conn]*addrlimit.Claim
}

func newHTTPConns(limits addrlimit.Limits) *httpConns {
	return &httpConns{lim: addrlimit.New(limits), claims: map[net.Conn]*addrlimit.Claim{}}
}

// connState is the http.Server's ConnState.
func (h *httpConns) connState(nc net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		claim, ok := h.lim.Take(nc.RemoteAddr())
		if !ok {
			refuse(nc)
			return
		}
		h.mu.Lock()
		h.claims[nc] = claim
		h.mu.Unlock()
	case http.StateHijacked, http.StateClosed:
		h.mu.Lock()
		claim := h.claims[nc]
		delete(h.claims, nc)
		h.mu.Unlock()
		claim.Release()
	}
}
