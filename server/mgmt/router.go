package mgmt

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// router matches paths segment by segment on the escaped path, unescaping
// each segment after splitting. RabbitMQ's default vhost "/" travels as
// "%2F", a whole segment; net/http's ServeMux unescapes that segment to
// "/" and then takes it for a trailing slash that no wildcard matches, so
// /api/queues/%2F/q would never reach its handler.
type router struct {
	routes []route
}

type route struct {
	pattern string
	segs    []string // literal, or "{name}" for a wildcard
	h       http.HandlerFunc
}

func (rt *router) handle(pattern string, h http.HandlerFunc) {
	rt.routes = append(rt.routes, route{pattern: pattern, segs: strings.Split(strings.TrimPrefix(pattern, "/"), "/"), h: h})
}

// ServeHTTP runs the first route whose segments match, with the wildcards
// set as path values (r.PathValue) and r.Pattern set; a trailing slash is
// ignored. No match is RabbitMQ's JSON 404, and a segment that is not
// UTF-8 a 400.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	segs := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil {
			writeError(w, errNotFound)
			return
		}
		if !utf8.ValidString(u) {
			// No name can hold such bytes (see names.go): say so,
			// rather than look for it.
			writeError(w, badRequest("path segment is not valid UTF-8"))
			return
		}
		segs[i] = u
	}
	// Cowboy, RabbitMQ's HTTP server, routes "/path/" as "/path"
	// (observed, RabbitMQ 3.10.8: GET /api/connections/ is 200).
	if n := len(segs); n > 1 && segs[n-1] == "" {
		segs = segs[:n-1]
	}
next:
	for _, rte := range rt.routes {
		if len(rte.segs) != len(segs) {
			continue
		}
		for i, p := range rte.segs {
			if !isWildcard(p) && p != segs[i] {
				continue next
			}
		}
		for i, p := range rte.segs {
			if isWildcard(p) {
				r.SetPathValue(p[1:len(p)-1], segs[i])
			}
		}
		r.Pattern = rte.pattern
		rte.h(w, r)
		return
	}
	writeError(w, errNotFound)
}

func isWildcard(seg string) bool {
	return len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}'
}
