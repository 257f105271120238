package sessions

import (
	"net"
	"net/http"

	"warren/driver/addrlimit"
)

// Creating a session takes no credentials (the id it returns is the
// capability), so what bounds one visitor is where the request comes
// from: every shared resource is bounded per source address as well as in
// total. Without it one address could take all of Config.MaxSessions and
// keep everyone else out until its sessions idle out (issue 26). Two
// bounds hold per address: the sessions it has running at once
// (Config.MaxPerAddr), and the sessions it may create a minute
// (Config.CreatesPerMinute), so that ending and recreating sessions in a
// loop cannot churn the server either.

// sourceAddr is the address a request comes from, as the connection says
// (http.Request.RemoteAddr's host): never a header such as
// X-Forwarded-For, which the client writes itself. An IPv6 address counts
// as its /64, the block one subscriber is given: a client picks any
// address in it at will, and would otherwise be 2⁶⁴ sources. The server's
// connection bounds count sources the same way (driver/addrlimit).
func sourceAddr(r *http.Request) string {
	return addrlimit.Describe(addrlimit.SourceOf(r.RemoteAddr))
}

// remoteHost is the host of the connection's address, exactly: what the
// logs name.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// addrUse is one source address's share: its running sessions and its
// creation bucket.
type addrUse struct {
	live int
	// credit is the bucket, in units of which a creation costs one
	// minute's worth (60,000) and a millisecond gains perMinute: exact
	// integers, so that no refill is lost to rounding. lastMs is when it
	// was counted.
	credit int64
	lastMs int64
}

// creationCost is what one creation takes from addrUse.credit.
const creationCost = 60_000

// refill counts the credit gained since lastMs, up to perMinute
// creations.
func (u *addrUse) refill(nowMs int64, perMinute int) {
	if nowMs > u.lastMs {
		u.credit = min(u.credit+(nowMs-u.lastMs)*int64(perMinute), int64(perMinute)*creationCost)
		u.lastMs = nowMs
	}
}

// idle reports whether u holds nothing worth remembering: no session
// running and a full bucket, so forgetting it changes nothing.
func (u *addrUse) idle(perMinute int) bool {
	return u.live == 0 && u.credit >= int64(perMinute)*creationCost
}

// admit takes a creation for addr at nowMs, or says which bound refuses
// it (errAddrSessions, errAddrRate); m.mu is held.
func (m *Manager) admit(addr string, nowMs int64) error {
	per := m.cfg.CreatesPerMinute
	u := m.byAddr[addr]
	if u == nil {
		m.forgetIdleAddrs(nowMs)
		u = &addrUse{credit: int64(per) * creationCost, lastMs: nowMs}
		m.byAddr[addr] = u
	}
	u.refill(nowMs, per)
	switch {
	case u.live >= m.cfg.MaxPerAddr:
		return errAddrSessions
	case u.credit < creationCost:
		return errAddrRate
	}
	u.credit -= creationCost
	u.live++
	return nil
}

// release frees a session's slot of addr; m.mu is held.
func (m *Manager) release(addr string) {
	if u := m.byAddr[addr]; u != nil && u.live > 0 {
		u.live--
	}
}

// forgetIdleAddrs drops the addresses that hold nothing, once there are
// many: the map stays as large as the addresses with a session running or
// a creation in the last minute; m.mu is held.
func (m *Manager) forgetIdleAddrs(nowMs int64) {
	if len(m.byAddr) < 1024 {
		return
	}
	for a, u := range m.byAddr {
		u.refill(nowMs, m.cfg.CreatesPerMinute)
		if u.idle(m.cfg.CreatesPerMinute) {
			delete(m.byAddr, a)
		}
	}
}
