package sessions

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"warren/engine/hub"
)

// MaxSessionNameRunes bounds a session's name.
const MaxSessionNameRunes = 80

// maxCreateBody bounds the body of POST /api/sessions: room for a seed
// of hub.MaxSeedLines lines of the default length.
const maxCreateBody = hub.MaxSeedLines*hub.DefaultMaxLineBytes + 64<<10

// createRequest is the optional body of POST /api/sessions. Lines, when
// given, are what the session starts from (hub.Session.Seed): the
// playground's Share live sends its page's log.
type createRequest struct {
	Name  string        `json:"name"`
	Clock hub.ClockMode `json:"clock"`
	Lines []string      `json:"lines"`
}

// Created is the reply to POST /api/sessions: the two ids and their links.
// The id makes an editor, the read-only id a participant who watches.
type Created struct {
	ID           string        `json:"id"`
	ReadOnlyID   string        `json:"readOnlyId"`
	Name         string        `json:"name"`
	Clock        hub.ClockMode `json:"clock"`
	Link         string        `json:"link"`
	ReadOnlyLink string        `json:"readOnlyLink"`
	// AMQP is the session's own login for real AMQP clients (absent in
	// the list, which an administrator reads).
	AMQP *hub.AMQPLogin `json:"amqp,omitempty"`
}

// Listed is one session in GET /api/sessions.
type Listed struct {
	Created
	Participants int       `json:"participants"`
	Seq          uint64    `json:"seq"`
	CreatedAt    time.Time `json:"createdAt"`
}

// ServeHTTP serves the sessions' endpoints: /api/sessions,
// /api/sessions/{id} and /ws/sessions/{id}. The server mounts it beside
// the management API.
func (m *Manager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/api/sessions":
		switch r.Method {
		case http.MethodPost:
			m.serveCreate(w, r)
		case http.MethodGet, http.MethodHead:
			m.serveList(w, r)
		default:
			methodNotAllowed(w, "GET, HEAD, POST")
		}
	case strings.HasPrefix(path, "/api/sessions/") && strings.HasSuffix(path, "/history"):
		m.serveHistory(w, r, strings.TrimSuffix(strings.TrimPrefix(path, "/api/sessions/"), "/history"))
	case strings.HasPrefix(path, "/api/sessions/") && strings.HasSuffix(path, "/clock"):
		m.serveClock(w, r, strings.TrimSuffix(strings.TrimPrefix(path, "/api/sessions/"), "/clock"))
	case strings.HasPrefix(path, "/api/sessions/"):
		id := strings.TrimPrefix(path, "/api/sessions/")
		if r.Method != http.MethodDelete {
			methodNotAllowed(w, "DELETE")
			return
		}
		m.serveDelete(w, r, id)
	case strings.HasPrefix(path, "/ws/sessions/"):
		if r.Method != http.MethodGet {
			methodNotAllowed(w, "GET")
			return
		}
		m.serveSocket(w, r, strings.TrimPrefix(path, "/ws/sessions/"))
	default:
		writeError(w, http.StatusNotFound, "not_found", "Not Found")
	}
}

func (m *Manager) serveCreate(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCreateBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "cannot read the body: "+err.Error())
		return
	}
	if len(body) > maxCreateBody {
		writeError(w, http.StatusRequestEntityTooLarge, "bad_request", "the body may be "+strconv.Itoa(maxCreateBody)+" bytes at most")
		return
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", "the body is not a JSON object of name, clock and lines: "+err.Error())
			return
		}
	}
	if err := CheckCreate(req.Name, req.Clock); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	addr := sourceAddr(r)
	s, err := m.create(req.Name, req.Clock, addr)
	switch {
	case errors.Is(err, errTooMany):
		m.writeHubError(w, http.StatusTooManyRequests, "too_many_sessions", hub.NewError(hub.KeyTooManySessions, "max", strconv.Itoa(m.cfg.MaxSessions)))
		return
	case errors.Is(err, errAddrSessions):
		m.writeHubError(w, http.StatusTooManyRequests, "too_many_sessions", hub.NewError(hub.KeyAddrSessions, "max", strconv.Itoa(m.cfg.MaxPerAddr), "addr", addr))
		return
	case errors.Is(err, errAddrRate):
		w.Header().Set("Retry-After", strconv.Itoa(60/m.cfg.CreatesPerMinute+1))
		m.writeHubError(w, http.StatusTooManyRequests, "too_many_sessions", hub.NewError(hub.KeyAddrCreateRate, "rate", strconv.Itoa(m.cfg.CreatesPerMinute), "addr", addr))
		return
	case errors.Is(err, errShutdown):
		m.writeHubError(w, http.StatusServiceUnavailable, "service_unavailable", hub.NewError(hub.KeyStopping))
		return
	}
	if len(req.Lines) > 0 {
		var seedErr error
		s.call(func(now int64) { seedErr = s.hub.Seed(now, req.Lines) })
		if seedErr != nil {
			s.stop(hub.KeyClosed)
			<-s.done // its ids are free before the reply says there is no session
			m.writeHubError(w, http.StatusBadRequest, "bad_request", seedErr)
			return
		}
	}
	c := s.created()
	c.AMQP = s.login
	writeJSON(w, http.StatusCreated, c)
}

func (m *Manager) serveList(w http.ResponseWriter, r *http.Request) {
	if m.cfg.Admin == nil || !m.cfg.Admin(w, r) {
		if m.cfg.Admin == nil {
			writeError(w, http.StatusUnauthorized, "not_authorised", "Not administrator user")
		}
		return
	}
	list := []Listed{}
	for _, s := range m.sessions() {
		s.mu.Lock()
		sum := s.summary
		s.mu.Unlock()
		list = append(list, Listed{Created: s.created(), Participants: sum.Participants, Seq: sum.Seq, CreatedAt: s.createdAt.UTC()})
	}
	writeJSON(w, http.StatusOK, list)
}

// serveDelete ends a session. The editor id is the capability: whoever
// holds the session's link may end it; its read-only id may not.
func (m *Manager) serveDelete(w http.ResponseWriter, r *http.Request, id string) {
	s, role, ok := m.find(id)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", ErrUnknownID.Error())
		return
	}
	if role != hub.Editor {
		writeError(w, http.StatusForbidden, "not_authorised", "a read-only id cannot end its session")
		return
	}
	s.stop(hub.KeyClosed)
	select {
	case <-s.done:
	case <-r.Context().Done():
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *session) created() Created {
	s.mu.Lock()
	clock := s.summary.Clock
	s.mu.Unlock()
	return Created{ID: s.id, ReadOnlyID: s.roID, Name: s.name, Clock: clock,
		Link: "/s/" + s.id, ReadOnlyLink: "/s/" + s.roID}
}

// CheckCreate checks a new session's name and clock mode ("" for the
// default) as POST /api/sessions does, at warren serve and at the edge.
func CheckCreate(name string, clock hub.ClockMode) error {
	if !validSessionName(name) {
		return errors.New("a session's name is at most " + strconv.Itoa(MaxSessionNameRunes) + " characters without control characters")
	}
	if clock != "" && clock != hub.Live && clock != hub.Paused && clock != hub.Manual {
		return errors.New("unknown clock mode " + strconv.Quote(string(clock)) + " (use live, paused or manual)")
	}
	return nil
}

// validSessionName reports whether a name is at most MaxSessionNameRunes
// printable characters ("" is no name).
func validSessionName(name string) bool {
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxSessionNameRunes {
		return false
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	w.WriteHeader(http.StatusMethodNotAllowed)
}

// writeError writes an error as the management API does: {"error": kind,
// "reason": reason}.
func writeError(w http.ResponseWriter, status int, kind, reason string) {
	writeJSON(w, status, map[string]string{"error": kind, "reason": reason})
}

// writeHubError answers a hub *Error: the management API's error (kind)
// and reason, with the hub's key and args beside them for a page to say
// it in its reader's language, and the reason in each language the server
// speaks (reasons), for a reader with no page: curl, a script.
func (m *Manager) writeHubError(w http.ResponseWriter, status int, kind string, err error) {
	var he *hub.Error
	if !errors.As(err, &he) {
		writeError(w, status, kind, err.Error())
		return
	}
	reasons := map[string]string{"en": he.Error()}
	if m.cfg.Chinese != nil {
		reasons["zh-CN"] = m.cfg.Chinese(he.Key, he.Args)
	}
	writeJSON(w, status, map[string]any{"error": kind, "reason": he.Error(), "key": he.Key, "args": he.Args, "reasons": reasons})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	data, err := json.Marshal(body)
	if err != nil {
		panic("sessions: cannot encode a reply: " + err.Error()) // programmer error
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	w.Write(data)
}
