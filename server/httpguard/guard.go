// Package httpguard keeps what a browser can be made to send away from
// every state-changing endpoint of Warren's HTTP servers: a page on
// another site, visited by someone whose browser holds guest's Basic
// credentials for warren serve, could otherwise submit a form (text/plain,
// urlencoded or multipart: the kinds a page may send anywhere without
// asking) whose body reads as JSON, and change the broker — import
// definitions that add an administrator, move the clock, create sessions.
//
// Two rules, applied to every request whose method is not GET, HEAD or
// OPTIONS, in front of the whole server (server.Start wraps its mux):
//
//  1. A request a browser marks as coming from another site is refused
//     with 403: Sec-Fetch-Site other than same-origin or none, or (from a
//     browser too old to send it) an Origin whose host is not the
//     request's Host. Go's http.CrossOriginProtection decides this.
//     Clients that are not browsers send neither header and pass.
//  2. A body, when there is one, is JSON: its Content-Type is
//     application/json (parameters such as charset allowed), or the
//     request is refused with 415, as RabbitMQ 3.10.8 refuses a
//     definitions import sent as text/plain, urlencoded or with no
//     Content-Type. A request with no body (PUT /api/vhosts/v, DELETE)
//     needs no Content-Type, as with RabbitMQ.
//
// The refusals are hub errors (engine/hub's catalog), so a page says them
// in its reader's language, and are written in the management API's
// shape, {"error": kind, "reason": text}, with the key and its values
// beside them as the sessions' errors carry them. The edge worker, whose
// state-changing endpoints are JavaScript, applies the same rules in
// wasm/worker/guard.mjs; its test compares its replies with Check's.
package httpguard

import (
	"encoding/json"
	"mime"
	"net/http"

	"warren/engine/hub"
)

// Wrap returns h behind the guard: a refused request gets its error, and
// h never sees it.
func Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, err := Check(r); err != nil {
			Write(w, status, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// crossOrigin is Go's check of Sec-Fetch-Site and Origin against Host;
// it trusts no other origin (the playground's pages are the server's
// own).
var crossOrigin = http.NewCrossOriginProtection()

// Check returns the status and error that refuse r, or 0 and nil when r
// may go on.
func Check(r *http.Request) (int, *hub.Error) {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return 0, nil
	}
	if crossOrigin.Check(r) != nil {
		return http.StatusForbidden, hub.NewError(hub.KeyCrossSite, "from", from(r), "own", ownOrigin(r))
	}
	if r.ContentLength == 0 {
		return 0, nil // no body (-1 is a body of unknown length)
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, hub.NewError(hub.KeyNotJSON, "type", ct)
	}
	return 0, nil
}

// from names where a refused request came from: its Origin, or the
// browser's Sec-Fetch-Site when it sent no Origin.
func from(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		return o
	}
	return "Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site")
}

// ownOrigin is the origin the request was sent to, the only one whose
// pages may change anything.
func ownOrigin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// kinds are the management API's error kinds of the refusals.
var kinds = map[int]string{
	http.StatusForbidden:            "not_authorised",
	http.StatusUnsupportedMediaType: "unsupported_media_type",
}

// Write answers a refusal: {"error": kind, "reason": the English text,
// "key": its key, "args": its values}.
func Write(w http.ResponseWriter, status int, err *hub.Error) {
	data, _ := json.Marshal(map[string]any{"error": kinds[status], "reason": err.Error(), "key": err.Key, "args": err.Args})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	w.Write(data)
}
