package server

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"warren/driver/addrlimit"
)

// Before login, one host cannot crowd out the rest. The sockets that have
// not logged in yet — AMQP over TCP and over WebSocket counted together —
// are bounded per source address and in total (Options.PreLogin), from
// accept until connection.open succeeds (driver/conn gives the place
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

// refusalNoteEvery is how often at most the log says that sockets were
// refused: an operator learns of a flood without the log becoming one.
const refusalNoteEvery = 10 * time.Second

// refusals counts the sockets refused over one kind of bound and notes
// them in the server's log (Options.Log), at most once every
// refusalNoteEvery, with how many since the last note and where the last
// came from.
type refusals struct {
	what, whatZh string // what was refused, in English and in Chinese
	flag         string // the flags that set the bounds
	log          func(format string, args ...any)

	mu     sync.Mutex
	n      int
	noted  time.Time
	latest string
}

func (r *refusals) note(peer net.Addr) {
	if r.log == nil {
		return
	}
	r.mu.Lock()
	r.n++
	r.latest = peer.String()
	if time.Since(r.noted) < refusalNoteEvery {
		r.mu.Unlock()
		return
	}
	n, latest := r.n, r.latest
	r.n, r.noted = 0, time.Now()
	r.mu.Unlock()
	r.log("refused %d %s over %s, the latest from %s 已拒绝 %d 个超出 %s 的%s，最近一个来自 %s",
		n, r.what, r.flag, latest, n, r.flag, r.whatZh, latest)
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
		s.preLoginRefused.note(peer)
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
	lim     *addrlimit.Limiter
	refused *refusals
	mu      sync.Mutex
	claims  map[net.Conn]*addrlimit.Claim
}

func newHTTPConns(limits addrlimit.Limits, log func(string, ...any)) *httpConns {
	return &httpConns{lim: addrlimit.New(limits), claims: map[net.Conn]*addrlimit.Claim{},
		refused: &refusals{what: "HTTP connections", whatZh: "HTTP 连接", flag: "--max-http-connections-per-address/--max-http-connections", log: log}}
}

// connState is the http.Server's ConnState.
func (h *httpConns) connState(nc net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		claim, ok := h.lim.Take(nc.RemoteAddr())
		if !ok {
			h.refused.note(nc.RemoteAddr())
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
