package sessions

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"warren/driver/conn"
	"warren/engine/hub"
)

// Host runs one session for a driver that owns its sockets and its
// storage itself: the edge's Durable Object (issue 12) hosts one Go
// instance per session, whose JavaScript accepts the WebSockets and keeps
// the object's storage. The session runs exactly as under warren serve
// (its goroutine, its hub, its history, its AMQP clients through the
// Manager's Router); the driver
//
//   - gives each page's socket a Peer (OpenPage) and pumps it,
//   - serves each AMQP socket with ServeAMQP (the same codec and
//     connection state machine as warren serve),
//   - answers the session's HTTP endpoints with ServeHTTP (its clock, its
//     history, DELETE),
//   - stores what its Keeper is given and, when its memory went (evicted,
//     or woken by an alarm), restores with RestoreHost before anything
//     else,
//   - arms its alarm for the time Wake is told, so that a live session's
//     TTLs fire with nobody connected.
type Host struct {
	m    *Manager
	s    *session
	amqp *conn.Config
	// kept are the Peers of the participants RestoreHost kept, by id,
	// until their pages are adopted (AdoptPage).
	keptMu sync.Mutex
	kept   map[hub.ParticipantID]*Peer
}

// Hosted names a hosted session and what it starts with. The driver makes
// the ids (the edge routes by them) and keeps them.
type Hosted struct {
	ID, ReadOnlyID, Name string
	// CreatedMs is the session's creation, Unix milliseconds: its
	// broker's time 0.
	CreatedMs int64
	// Login is the session's own AMQP login; nil takes no AMQP clients.
	Login *hub.AMQPLogin
	// Keeper stores the session as it goes; Wake is told, on the
	// session's goroutine, each time the session's next wake-up (a live
	// clock's next timer, the idle expiry) moves, and false when it has
	// none (ended).
	Keeper Keeper
	Wake   func(atMs int64, ok bool)
	// AlarmOnly leaves the session's wake-ups to the driver, which calls
	// Tick when its alarm (set from Wake) goes off: the session keeps no
	// timer of its own, so that a Durable Object with nothing pending
	// can hibernate.
	AlarmOnly bool
}

// NewHost starts a new session: cfg.Hub with the clock mode given ("" for
// cfg.Hub's), then lines run as its start (hub.Session.Seed; an error
// there ends it and is returned).
func NewHost(cfg Config, hs Hosted, clock hub.ClockMode, lines []string) (*Host, error) {
	hc := cfg.Hub
	if clock != "" {
		hc.Clock = clock
	}
	hc.AMQP = hs.Login
	hc.Engine.EpochMs = hs.CreatedMs
	h := host(cfg, hs, hub.New(hc, hs.CreatedMs), nil)
	if len(lines) > 0 {
		var err error
		h.s.call(func(now int64) { err = h.s.hub.Seed(now, lines) })
		if err != nil {
			h.Close()
			return nil, err
		}
	}
	return h, nil
}

// RestoreHost restores a session from what its Keeper stored (the hub's
// snapshot with the entries after it, and its State); see hub.Restore.
// The participants the State names are back; keep names those whose
// pages' sockets outlived the host's memory (a Durable Object's
// hibernated WebSockets), which the driver then adopts (AdoptPage); the
// others leave.
func RestoreHost(cfg Config, hs Hosted, snap *hub.Snapshot, st hub.State, keep []hub.ParticipantID) (*Host, error) {
	hc := cfg.Hub
	hc.AMQP = hs.Login
	hs2, err := hub.Restore(hc, snap, st, time.Now().UnixMilli())
	if err != nil {
		return nil, err
	}
	h := host(cfg, hs, hs2, keep)
	h.s.call(func(now int64) {
		for _, p := range h.s.hub.Presence().Participants {
			if !slices.Contains(keep, p.ID) {
				h.s.hub.Leave(now, p.ID)
			}
		}
	})
	return h, nil
}

// keepPeers gives each kept participant still in the session its Peer
// before the session's goroutine starts, so that every message from the
// first on — the entries the restore itself makes (a live clock catching
// up, the leaves of those not kept) and whatever comes before the object
// has adopted the page back — waits in the Peer's queue for its socket
// (AdoptPage). Registered only at adoption, a page that only listened
// missed those entries and saw a gap in the log.
func (h *Host) keepPeers(keep []hub.ParticipantID) {
	h.kept = map[hub.ParticipantID]*Peer{}
	for _, q := range h.s.hub.Presence().Participants {
		if !slices.Contains(keep, q.ID) {
			continue
		}
		h.kept[q.ID] = h.joinedPeer(q)
	}
}

// joinedPeer makes the Peer of participant q, already in the session, and
// registers its socket: what is sent to q from now on waits in its queue.
// On the session's goroutine, or before it starts.
func (h *Host) joinedPeer(q hub.Participant) *Peer {
	p := newPeer(h.s, q.Role, h.m.cfg.QueueLen)
	p.joined = true
	h.s.socks[q.ID], h.s.ids[p.k] = p.k, q.ID
	return p
}

// AdoptPage returns the Peer of a page whose socket outlived the host's
// memory: participant id, restored with the session (RestoreHost's keep).
// Its next message is not a join: the page is in the session already.
func (h *Host) AdoptPage(id hub.ParticipantID) (*Peer, error) {
	h.keptMu.Lock()
	p, ok := h.kept[id]
	delete(h.kept, id)
	h.keptMu.Unlock()
	if ok {
		return p, nil
	}
	h.s.call(func(int64) {
		for _, q := range h.s.hub.Presence().Participants {
			if q.ID == id {
				p = h.joinedPeer(q)
			}
		}
	})
	if p == nil {
		return nil, ErrUnknownID
	}
	return p, nil
}

func host(cfg Config, hs Hosted, h *hub.Session, keep []hub.ParticipantID) *Host {
	m := New(cfg)
	s := sessionOf(m, h, hs.Name, time.UnixMilli(hs.CreatedMs))
	s.id, s.roID, s.login = hs.ID, hs.ReadOnlyID, hs.Login
	s.keeping = &keeping{k: hs.Keeper}
	s.wake = hs.Wake
	s.alarmOnly = hs.AlarmOnly && hs.Wake != nil
	// Every login goes to the session (its Router); there is no broker of
	// the host's own to log in to.
	ac := &conn.Config{Router: m}
	ac.Defaults()
	ho := &Host{m: m, s: s, amqp: ac}
	ho.keepPeers(keep) // before the goroutine: nothing is sent yet
	m.mu.Lock()
	m.start(s)
	m.mu.Unlock()
	return ho
}

// ErrUnknownID is OpenPage's error for an id that is neither of the
// session's, and the reason of every answer about an unknown id: the hub
// error a page says in its reader's language (KeyNoSession).
var ErrUnknownID = hub.NewError(hub.KeyNoSession)

// OpenPage returns the Peer of a page that opened the session's socket
// with id: the editor id makes an editor, the read-only id a watcher.
func (h *Host) OpenPage(id string) (*Peer, error) {
	s, role, ok := h.m.find(id)
	if !ok {
		return nil, ErrUnknownID
	}
	return newPeer(s, role, h.m.cfg.QueueLen), nil
}

// ServeAMQP serves one AMQP connection on t until it ends; it closes t.
func (h *Host) ServeAMQP(ctx context.Context, t conn.Transport) { conn.Serve(ctx, t, h.amqp) }

// ServeHTTP answers the session's endpoints as warren serve does:
// /api/sessions/{id}/clock, /api/sessions/{id}/history and DELETE
// /api/sessions/{id}. (Creating a session and its page's socket are the
// driver's.)
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.m.ServeHTTP(w, r) }

// Done closes when the session has ended (DELETE, idle, Close).
func (h *Host) Done() <-chan struct{} { return h.s.done }

// Close ends the session for the server's shutdown (pages told, AMQP
// clients 320) and waits for it.
func (h *Host) Close() { h.m.Shutdown(context.Background()) }

// Tick is the driver's alarm: the session catches up with the wall
// clock (a live clock's timers, the idle expiry).
func (h *Host) Tick() { h.s.call(func(now int64) { h.s.hub.Tick(now) }) }

// Created returns the session's ids and links as POST /api/sessions
// answers them, with its AMQP login.
func (h *Host) Created() Created {
	c := h.s.created()
	c.AMQP = h.s.login
	return c
}
