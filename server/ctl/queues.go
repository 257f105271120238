package ctl

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// runDeleteQueue is delete_queue:
//
//	Deleting queue 'q' on vhost '/' ...
//	Queue was successfully deleted with 3 ready messages
func runDeleteQueue(e *env) int {
	name, vhost := e.args[0], e.opts.vhost
	var conds []string
	if e.opts.ifEmpty {
		conds = append(conds, "if queue is empty")
	}
	if e.opts.ifUnused {
		conds = append(conds, "if queue is unused")
	}
	cond := ""
	if len(conds) > 0 {
		cond = " " + strings.Join(conds, " and ")
	}
	e.info("Deleting queue '%s' on vhost '%s'%s ...", name, vhost, cond)
	var q struct {
		MessagesReady json.Number `json:"messages_ready"`
	}
	err := e.c.getJSON(path("queues", vhost, name), &q)
	if isStatus(err, http.StatusNotFound) {
		return e.fail(exitUsage, "Queue not found")
	}
	if err != nil {
		return e.failed(err)
	}
	query := url.Values{}
	if e.opts.ifEmpty {
		query.Set("if-empty", "true")
	}
	if e.opts.ifUnused {
		query.Set("if-unused", "true")
	}
	p := path("queues", vhost, name)
	if len(query) > 0 {
		p += "?" + query.Encode()
	}
	_, err = e.c.do("DELETE", p, nil)
	var ae *apiError
	switch {
	case isStatus(err, http.StatusNotFound):
		return e.fail(exitUsage, "Queue not found")
	case isStatus(err, http.StatusBadRequest) && errors.As(err, &ae) && strings.HasSuffix(ae.reason, " not empty"):
		return e.fail(exitUsage, "Queue is not empty")
	case isStatus(err, http.StatusBadRequest) && errors.As(err, &ae) && strings.HasSuffix(ae.reason, " in use"):
		return e.fail(exitUsage, "Queue is in use")
	case err != nil:
		return e.failed(err)
	}
	e.info("Queue was successfully deleted with %s ready messages", q.MessagesReady)
	return exitOK
}

func runPurgeQueue(e *env) int {
	name, vhost := e.args[0], e.opts.vhost
	e.info("Purging queue '%s' in vhost '%s' ...", name, vhost)
	_, err := e.c.do("DELETE", path("queues", vhost, name, "contents"), nil)
	if isStatus(err, http.StatusNotFound) {
		return e.fail(exitUnavailable, "not_found")
	}
	if err != nil {
		return e.failed(err)
	}
	return exitOK
}
