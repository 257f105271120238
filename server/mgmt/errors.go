package mgmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"warren/engine"
)

// apiError is an error reply: RabbitMQ's {"error": kind, "reason": reason}.
type apiError struct {
	status int
	kind   string
	reason string
	// detail, when set, is the reason as a JSON term, for the replies
	// where RabbitMQ's reason is a list (["not_boolean","yes"]).
	detail any
}

func (e *apiError) Error() string { return e.kind + ": " + e.reason }

// The error replies RabbitMQ 3.10.8 sends, observed with curl.
var (
	errNotFound      = &apiError{status: http.StatusNotFound, kind: "Object Not Found", reason: "Not Found"}
	errLoginFailed   = &apiError{status: http.StatusUnauthorized, kind: "not_authorized", reason: "Login failed"}
	errNotManagement = &apiError{status: http.StatusUnauthorized, kind: "not_authorised", reason: "Not management user"}
	errNotAdmin      = &apiError{status: http.StatusUnauthorized, kind: "not_authorised", reason: "Not administrator user"}
	errNoVhostAccess = &apiError{status: http.StatusUnauthorized, kind: "not_authorised", reason: "User not authorised to access virtual host"}
	errNoObjAccess   = &apiError{status: http.StatusUnauthorized, kind: "not_authorised", reason: "User not authorised to access object"}
	errAccessRefused = &apiError{status: http.StatusUnauthorized, kind: "not_authorised", reason: "Access refused."}
	errLoopbackOnly  = &apiError{status: http.StatusUnauthorized, kind: "not_authorised", reason: "User can only log in via localhost"}
	errNotJSON       = badRequest("not_json")
)

func badRequest(reason string) *apiError {
	return &apiError{status: http.StatusBadRequest, kind: "bad_request", reason: reason}
}

// keyMissing is RabbitMQ's reply to a body without a required key.
func keyMissing(key string) *apiError { return badRequest("[{key_missing," + key + "}]") }

// asAPIError maps any error from an endpoint to its reply. Engine
// exceptions become the statuses RabbitMQ's management plugin gives them:
// 403 ACCESS_REFUSED is 401 "Access refused.", 404 NOT_FOUND is 404
// not_found with the engine's text, anything else 400 bad_request with the
// text after RabbitMQ's "NAME - " prefix.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var ee *engine.Error
	if !errors.As(err, &ee) {
		return &apiError{status: http.StatusInternalServerError, kind: "internal_server_error", reason: err.Error()}
	}
	reason := strings.TrimPrefix(ee.Text, engine.ReplyName(ee.Code)+" - ")
	switch ee.Code {
	case engine.AccessRefused:
		return errAccessRefused
	case engine.NotFound:
		return &apiError{status: http.StatusNotFound, kind: "not_found", reason: reason}
	}
	if strings.HasPrefix(reason, "Validation failed") && !strings.HasSuffix(reason, "\n") {
		// rabbit_policy's validation replies end with a newline.
		reason += "\n"
	}
	return badRequest(reason)
}

// writeError writes an error reply. RabbitMQ escapes angle brackets in
// reasons (rabbit_mgmt_format:escape_html_tags), so <<"foo">> reads
// &lt;&lt;"foo"&gt;&gt;; Warren does the same.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.kind == "" {
		w.WriteHeader(e.status) // 401 to a request without credentials
		return
	}
	var reason any = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(e.reason)
	if e.detail != nil {
		reason = e.detail
	}
	data, _ := marshal(struct {
		Error  string `json:"error"`
		Reason any    `json:"reason"`
	}{e.kind, reason})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	w.Write(data)
}

// marshal encodes v as RabbitMQ does: compact, no trailing newline, and
// without Go's escaping of <, > and & (a routing key "a&b" stays "a&b").
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// isEngineCode reports whether err is an engine exception with code.
func isEngineCode(err error, code int) bool {
	var e *engine.Error
	return errors.As(err, &e) && e.Code == code
}
