package ctl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// runSetPolicy is set_policy (or set_operator_policy):
//
//	Setting policy "TTL" for pattern ".*" to "{"message-ttl":60000}" with priority "0" for vhost "/" ...
//
// The definition goes to the server as written, so its numbers keep their
// kind (60000 an integer, 1.5 a float).
func runSetPolicy(operator bool) func(e *env) int {
	return func(e *env) int {
		name, pattern, def := e.args[0], e.args[1], e.args[2]
		kind, resource := "policy", "policies"
		if operator {
			kind, resource = "operator policy override", "operator-policies"
		}
		e.info("Setting %s %s for pattern %s to %s with priority %s for vhost %s ...",
			kind, quoted(name), quoted(pattern), quoted(def), quoted(fmt.Sprint(e.opts.priority)), quoted(e.opts.vhost))
		var probe any
		dec := json.NewDecoder(bytes.NewReader([]byte(def)))
		if err := dec.Decode(&probe); err != nil || dec.More() {
			return e.fail(exitUnavailable, "JSON decoding error. Reason: badarg")
		}
		if _, ok := probe.(map[string]any); !ok {
			return e.fail(exitUnavailable, "Validation failed\n\ndefinition must be a JSON object\n")
		}
		body := map[string]any{"pattern": pattern, "definition": json.RawMessage(def), "priority": e.opts.priority}
		if e.opts.applyTo != "" {
			body["apply-to"] = e.opts.applyTo
		}
		_, err := e.c.do("PUT", path(resource, e.opts.vhost, name), body)
		if isStatus(err, http.StatusNotFound) {
			fmt.Fprintf(e.stderr, "Virtual host '%s' does not exist\n", e.opts.vhost)
			return exitDataErr
		}
		if err != nil {
			return e.failed(err)
		}
		return exitOK
	}
}

// runClearPolicy is clear_policy (or clear_operator_policy).
func runClearPolicy(operator bool) func(e *env) int {
	return func(e *env) int {
		name := e.args[0]
		kind, resource := "policy", "policies"
		if operator {
			kind, resource = "operator policy", "operator-policies"
		}
		e.info("Clearing %s %s on vhost %s ...", kind, quoted(name), quoted(e.opts.vhost))
		_, err := e.c.do("DELETE", path(resource, e.opts.vhost, name), nil)
		if isStatus(err, http.StatusNotFound) {
			return e.fail(exitUnavailable, "Parameter does not exist")
		}
		if err != nil {
			return e.failed(err)
		}
		return exitOK
	}
}
