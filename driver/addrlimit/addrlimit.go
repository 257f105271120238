// Package addrlimit bounds how many of a shared resource one source
// address may hold, and how many all addresses hold together: the house
// rule that every shared resource is bounded per source address as well
// as in total. The server counts with it the AMQP connections that have
// not logged in yet (over TCP and over WebSocket, one Limiter for both)
// and its HTTP connections.
//
// A source address is the peer's IP address, its port ignored. An IPv6
// peer counts by its /64 network: one host is usually given a whole /64,
// so counting its single addresses would bound nothing.
package addrlimit

import (
	"net"
	"net/netip"
	"sync"
)

// Limits are the bounds a Limiter keeps; 0 leaves a bound out.
type Limits struct {
	PerAddress int // most held by one source address
	Total      int // most held by all addresses together
}

// Limiter counts what each source address holds. A nil *Limiter bounds
// nothing.
type Limiter struct {
	limits Limits
	mu     sync.Mutex
	held   map[netip.Addr]int // by source address (an IPv6 /64's first address)
	total  int
}

// New returns a Limiter keeping limits.
func New(limits Limits) *Limiter {
	return &Limiter{limits: limits, held: map[netip.Addr]int{}}
}

// Claim is one place taken from a Limiter. Release gives it back; a
// second Release does nothing, so an owner may release early (a
// connection that has logged in) and again when it ends.
type Claim struct {
	l    *Limiter
	addr netip.Addr
	once sync.Once
}

// Take claims a place for the source address of peer (a *net.TCPAddr, or
// any net.Addr whose String is host:port). It reports false, taking
// nothing, when the address or everyone together already holds the most
// allowed. An address that cannot be read counts as one shared address,
// so that it is still bounded.
func (l *Limiter) Take(peer net.Addr) (*Claim, bool) {
	if l == nil {
		return nil, true
	}
	a := source(peer)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limits.Total > 0 && l.total >= l.limits.Total {
		return nil, false
	}
	if l.limits.PerAddress > 0 && l.held[a] >= l.limits.PerAddress {
		return nil, false
	}
	l.held[a]++
	l.total++
	return &Claim{l: l, addr: a}, true
}

// Release gives the place back. It may be called on a nil *Claim (what a
// nil Limiter hands out).
func (c *Claim) Release() {
	if c == nil {
		return
	}
	c.once.Do(func() {
		l := c.l
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.held[c.addr]--; l.held[c.addr] <= 0 {
			delete(l.held, c.addr)
		}
		l.total--
	})
}

// Held reports how many places the source address of peer holds, and how
// many all addresses hold (for tests and the management API).
func (l *Limiter) Held(peer net.Addr) (address, total int) {
	if l == nil {
		return 0, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[source(peer)], l.total
}

// source is the address peer counts under: its IP, IPv4-mapped IPv6
// unmapped, an IPv6 address cut to its /64 network.
func source(peer net.Addr) netip.Addr {
	var ip netip.Addr
	switch a := peer.(type) {
	case *net.TCPAddr:
		ip, _ = netip.AddrFromSlice(a.IP)
	case nil:
	default:
		return SourceOf(a.String())
	}
	return counted(ip)
}

// SourceOf is the address a peer given as host:port (an
// http.Request's RemoteAddr) counts under, as source says; an address
// that cannot be read is the zero Addr, one shared source.
func SourceOf(hostport string) netip.Addr {
	var ip netip.Addr
	if ap, err := netip.ParseAddrPort(hostport); err == nil {
		ip = ap.Addr()
	} else if host, _, err := net.SplitHostPort(hostport); err == nil {
		ip, _ = netip.ParseAddr(host)
	}
	return counted(ip)
}

// counted unmaps ip, drops its zone and cuts an IPv6 address to its /64.
func counted(ip netip.Addr) netip.Addr {
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			ip = p.Addr()
		}
	}
	return ip
}

// Describe writes a source for a person: an IPv4 address as it is, an
// IPv6 source as the /64 network it stands for.
func Describe(src netip.Addr) string {
	if src.Is6() {
		return src.String() + "/64"
	}
	return src.String()
}
