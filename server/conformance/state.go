package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Count logs a queue's ready messages and consumers, from a passive
// declare on a fresh control channel (which, note, counts as use for
// x-expires).
func (s *S) Count(short string) {
	ch := s.ctlCh()
	defer ch.Close()
	q, err := ch.QueueDeclarePassive(s.N(short), false, false, false, false, nil)
	if err != nil {
		s.Log("count %q: %s", short, errText(err))
		return
	}
	s.Log("count %q: messages=%d consumers=%d", short, q.Messages, q.Consumers)
}

// dumpLimit bounds how many messages Dump takes.
const dumpLimit = 100

// Dump takes every ready message (no-ack) and logs the bodies in order,
// marking redelivered ones with "(r)".
func (s *S) Dump(short string) {
	ch := s.ctlCh()
	defer ch.Close()
	var bodies []string
	for range dumpLimit {
		d, ok, err := ch.Get(s.N(short), true)
		if err != nil {
			s.Log("dump %q: %s after [%s]", short, errText(err), strings.Join(bodies, " "))
			return
		}
		if !ok {
			break
		}
		b := string(d.Body)
		if d.Redelivered {
			b += "(r)"
		}
		bodies = append(bodies, b)
	}
	s.Log("dump %q: [%s]", short, strings.Join(bodies, " "))
}

// policyWait lets a broker apply a changed policy to its queues: the
// management API answers before RabbitMQ's queue processes have seen it.
const policyWait = 200 * time.Millisecond

// Policy sets a policy on exactly the named queue through the management
// API (PUT /api/policies/%2F/NAME), then waits for it to apply.
func (s *S) Policy(name, queue string, def map[string]any) {
	full := s.N(name)
	s.mu.Lock()
	s.policies = append(s.policies, full)
	s.mu.Unlock()
	body := map[string]any{
		"pattern":    "^" + regexp.QuoteMeta(s.N(queue)) + "$",
		"definition": def,
		"apply-to":   "queues",
		"priority":   0,
	}
	code, resp, err := s.t.api("PUT", policyPath(full), body)
	d, _ := json.Marshal(def)
	s.Log("policy %q on %q %s: %s", name, queue, d, httpResult(code, resp, err))
	time.Sleep(policyWait)
}

// ClearPolicy deletes a policy.
func (s *S) ClearPolicy(name string) {
	code, resp, err := s.t.api("DELETE", policyPath(s.N(name)), nil)
	s.Log("clear policy %q: %s", name, httpResult(code, resp, err))
	time.Sleep(policyWait)
}

// httpResult renders a management API answer: any 2xx is "ok" (RabbitMQ
// answers 201 or 204 as the policy is new or not).
func httpResult(code int, body string, err error) string {
	switch {
	case err != nil:
		return "error " + err.Error()
	case code >= 200 && code < 300:
		return "ok"
	}
	return fmt.Sprintf("HTTP %d %s", code, strings.TrimSpace(body))
}
