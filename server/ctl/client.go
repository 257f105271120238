package ctl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// client talks to a server's management API.
type client struct {
	base       string // "http://127.0.0.1:8080"
	user, pass string
	http       *http.Client
}

// maxResponse bounds what the client reads from the server.
const maxResponse = 64 << 20

func newClient(addr, user, pass string, timeout time.Duration) *client {
	base := addr
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	return &client{base: strings.TrimSuffix(base, "/"), user: user, pass: pass, http: &http.Client{Timeout: timeout}}
}

// unreachableError is a failure to talk HTTP to the server at all.
type unreachableError struct {
	base string
	err  error
}

func (e *unreachableError) Error() string { return e.err.Error() }

// apiError is an error reply from the management API.
type apiError struct {
	status int
	kind   string
	reason string
}

func (e *apiError) Error() string { return e.reason }

// path builds an API path from segments, escaping each ("/" is "%2F").
func path(segs ...string) string {
	var sb strings.Builder
	sb.WriteString("/api")
	for _, s := range segs {
		sb.WriteByte('/')
		sb.WriteString(url.PathEscape(s))
	}
	return sb.String()
}

// do sends a request; body, when not nil, is encoded as JSON (a
// json.RawMessage goes as is). It returns the response body of a 2xx reply.
func (c *client) do(method, p string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+p, rd)
	if err != nil {
		return nil, &unreachableError{c.base, err}
	}
	req.SetBasicAuth(c.user, c.pass)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &unreachableError{c.base, err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, &unreachableError{c.base, err}
	}
	if resp.StatusCode/100 == 2 {
		return data, nil
	}
	ae := &apiError{status: resp.StatusCode}
	var e struct {
		Error  string          `json:"error"`
		Reason json.RawMessage `json:"reason"`
	}
	if json.Unmarshal(data, &e) == nil {
		ae.kind = e.Error
		var s string
		if json.Unmarshal(e.Reason, &s) == nil {
			// The API escapes angle brackets as RabbitMQ's does; a
			// terminal wants them back.
			ae.reason = html.UnescapeString(s)
		} else {
			ae.reason = string(e.Reason)
		}
	}
	if ae.reason == "" {
		ae.reason = fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return nil, ae
}

// getJSON decodes a GET reply into v, keeping numbers exact.
func (c *client) getJSON(p string, v any) error {
	data, err := c.do("GET", p, nil)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// isStatus reports whether err is an API reply with the given status.
func isStatus(err error, status int) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.status == status
}
