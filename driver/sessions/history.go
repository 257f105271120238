package sessions

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"warren/engine/hub"
)

// A session's history (issue 11): its goroutine keeps every entry of its
// log in a hub.History as the entries go out (the hub's duty 6), within
// Config.History's bounds, and GET /api/sessions/{id}/history (the
// editor id or the read-only id) answers with it as a script the
// offline playground replays to the session's state hash:
//
//	GET /api/sessions/{id}/history[?lang=zh-CN]   text/plain, a download
//
// The script's comments come in the language lang names (hub.ExportLangs;
// English otherwise). Past a bound the history starts again from the
// hub's latest snapshot, and the script says from which entry; its
// replay still reaches the session's hash.

// keepHistory adds the entries of one Ready to the session's history,
// which it starts at the first Ready (the session's creation: its
// starting state, no entries).
func (s *session) keepHistory(entries []hub.Entry) {
	if s.history == nil {
		s.history = hub.NewHistory(s.hub, s.m.cfg.History)
	}
	s.history.Add(s.hub, entries)
}

func (m *Manager) serveHistory(w http.ResponseWriter, r *http.Request, id string) {
	s, _, ok := m.find(id)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", ErrUnknownID.Error())
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	lang := r.URL.Query().Get("lang")
	if !slices.Contains(hub.ExportLangs, lang) {
		lang = "en"
	}
	var text []byte
	var last uint64
	if !s.call(func(now int64) {
		s.keepHistory(nil)
		at := time.UnixMilli(now).UTC().Format(time.RFC3339)
		text, last = s.history.Script(s.hub, hub.Export{Name: s.name, Lang: lang, At: at}), s.history.Last()
	}) {
		writeError(w, http.StatusNotFound, "not_found", "the session has ended")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="warren-history-`+strconv.FormatUint(last, 10)+`.txt"`)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Length", strconv.Itoa(len(text)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(text)
	}
}
