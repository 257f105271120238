package ctl

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// row is one object of an API listing.
type row = map[string]any

// list describes a list_* command: where its rows come from, its columns
// (in rabbitmqctl's names) and how each is read from a row.
type list struct {
	// heading prints the informational lines before the table.
	heading  func(e *env)
	path     func(e *env) string
	keep     func(e *env, r row) bool // nil keeps every row
	defaults []string
	columns  map[string]func(r row) string
	// notFound handles a 404 for the listing: rabbitmqctl lists nothing
	// for an unknown vhost, or for policies says it does not exist.
	notFound func(e *env) int
}

// field reads a top-level field.
func field(name string) func(r row) string {
	return func(r row) string { return cell(r[name]) }
}

// nested reads a field of an object field ("channel_details" "name").
func nested(outer, inner string) func(r row) string {
	return func(r row) string {
		if m, ok := r[outer].(map[string]any); ok {
			return cell(m[inner])
		}
		return ""
	}
}

func constant(s string) func(r row) string { return func(row) string { return s } }

// pid stands in for an Erlang pid column with the object's name in angle
// brackets: Warren has no processes to name.
func pid(f func(r row) string) func(r row) string {
	return func(r row) string { return "<" + f(r) + ">" }
}

func fields(names ...string) map[string]func(r row) string {
	m := map[string]func(r row) string{}
	for _, n := range names {
		m[n] = field(n)
	}
	return m
}

func emptyList(*env) int { return exitOK }

func listCommand(l *list) func(e *env) int {
	return func(e *env) int { return l.run(e) }
}

func (l *list) run(e *env) int {
	cols := l.defaults
	if len(e.args) > 0 {
		cols = nil
		for _, a := range e.args {
			for _, c := range strings.Split(a, ",") {
				if c = strings.TrimSpace(c); c != "" {
					cols = append(cols, c)
				}
			}
		}
	}
	var bad []string
	for _, c := range cols {
		if _, ok := l.columns[c]; !ok && !slices.Contains(bad, c) {
			bad = append(bad, c)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return e.usageError(fmt.Sprintf("Info key(s) %s are not supported", strings.Join(bad, ",")))
	}
	l.heading(e)
	var rows []row
	if err := e.c.getJSON(l.path(e), &rows); err != nil {
		if isStatus(err, http.StatusNotFound) {
			return l.notFound(e)
		}
		return e.failed(err)
	}
	if l.keep != nil {
		rows = slices.DeleteFunc(rows, func(r row) bool { return !l.keep(e, r) })
	}
	if len(rows) == 0 {
		return exitOK
	}
	var sb strings.Builder
	if !e.opts.silent && !e.opts.noHeaders {
		sb.WriteString(strings.Join(cols, "\t") + "\n")
	}
	for _, r := range rows {
		for i, c := range cols {
			if i > 0 {
				sb.WriteByte('\t')
			}
			sb.WriteString(l.columns[c](r))
		}
		sb.WriteByte('\n')
	}
	fmt.Fprint(e.stdout, sb.String())
	return exitOK
}

var queuesList = &list{
	heading: func(e *env) {
		e.info("Timeout: %.1f seconds ...", e.opts.timeoutS)
		e.info("Listing queues for vhost %s ...", e.opts.vhost)
	},
	path:     func(e *env) string { return path("queues", e.opts.vhost) },
	defaults: []string{"name", "messages"},
	columns: fields("name", "durable", "auto_delete", "exclusive", "arguments", "policy", "messages", "messages_ready",
		"messages_unacknowledged", "consumers", "type", "state", "message_bytes", "message_bytes_ready",
		"message_bytes_unacknowledged", "exclusive_consumer_tag", "operator_policy", "effective_policy_definition"),
	notFound: emptyList,
}

var exchangesList = &list{
	heading:  func(e *env) { e.info("Listing exchanges for vhost %s ...", e.opts.vhost) },
	path:     func(e *env) string { return path("exchanges", e.opts.vhost) },
	defaults: []string{"name", "type"},
	columns:  fields("name", "type", "durable", "auto_delete", "internal", "arguments", "policy"),
	notFound: emptyList,
}

var bindingsList = &list{
	heading:  func(e *env) { e.info("Listing bindings for vhost %s...", e.opts.vhost) },
	path:     func(e *env) string { return path("bindings", e.opts.vhost) },
	defaults: []string{"source_name", "source_kind", "destination_name", "destination_kind", "routing_key", "arguments"},
	columns: map[string]func(r row) string{
		"source_name":      field("source"),
		"source_kind":      constant("exchange"),
		"destination_name": field("destination"),
		"destination_kind": field("destination_type"),
		"routing_key":      field("routing_key"),
		"arguments":        field("arguments"),
	},
	notFound: emptyList,
}

var connectionsList = &list{
	heading:  func(e *env) { e.info("Listing connections ...") },
	path:     func(e *env) string { return path("connections") },
	defaults: []string{"user", "peer_host", "peer_port", "state"},
	columns:  fields("name", "user", "vhost", "channels", "peer_host", "peer_port", "host", "port", "state", "protocol"),
	notFound: emptyList,
}

var channelsList = &list{
	heading:  func(e *env) { e.info("Listing channels ...") },
	path:     func(e *env) string { return path("channels") },
	defaults: []string{"pid", "user", "consumer_count", "messages_unacknowledged"},
	columns: func() map[string]func(r row) string {
		m := fields("name", "number", "user", "vhost", "consumer_count", "messages_unacknowledged", "prefetch_count",
			"global_prefetch_count", "confirm", "transactional")
		m["pid"] = pid(field("name"))
		m["connection"] = pid(nested("connection_details", "name"))
		return m
	}(),
	notFound: emptyList,
}

var consumersList = &list{
	heading:  func(e *env) { e.info("Listing consumers in vhost %s ...", e.opts.vhost) },
	path:     func(e *env) string { return path("consumers", e.opts.vhost) },
	defaults: []string{"queue_name", "channel_pid", "consumer_tag", "ack_required", "prefetch_count", "active", "arguments"},
	columns: func() map[string]func(r row) string {
		m := fields("consumer_tag", "ack_required", "prefetch_count", "active", "activity_status", "arguments", "exclusive")
		m["queue_name"] = nested("queue", "name")
		m["channel_pid"] = pid(nested("channel_details", "name"))
		return m
	}(),
	notFound: emptyList,
}

func policiesList(operator bool) *list {
	resource, what := "policies", "policies"
	if operator {
		resource, what = "operator-policies", "operator policy overrides"
	}
	return &list{
		heading:  func(e *env) { e.info("Listing %s for vhost %s ...", what, quoted(e.opts.vhost)) },
		path:     func(e *env) string { return path(resource, e.opts.vhost) },
		defaults: []string{"vhost", "name", "pattern", "apply-to", "definition", "priority"},
		columns: func() map[string]func(r row) string {
			m := fields("vhost", "name", "pattern", "apply-to", "priority")
			m["definition"] = func(r row) string { return compactJSON(r["definition"]) }
			return m
		}(),
		notFound: func(e *env) int {
			fmt.Fprintf(e.stderr, "Virtual host '%s' does not exist\n", e.opts.vhost)
			return exitDataErr
		},
	}
}

var usersList = &list{
	heading:  func(e *env) { e.info("Listing users ...") },
	path:     func(e *env) string { return path("users") },
	defaults: []string{"user", "tags"},
	columns:  map[string]func(r row) string{"user": field("name"), "tags": field("tags")},
	notFound: emptyList,
}

var vhostsList = &list{
	heading:  func(e *env) { e.info("Listing vhosts ...") },
	path:     func(e *env) string { return path("vhosts") },
	defaults: []string{"name"},
	columns:  fields("name", "description", "tags", "tracing"),
	notFound: emptyList,
}

var permissionsList = &list{
	heading:  func(e *env) { e.info("Listing permissions for vhost %s ...", quoted(e.opts.vhost)) },
	path:     func(e *env) string { return path("permissions") },
	keep:     func(e *env, r row) bool { return r["vhost"] == e.opts.vhost },
	defaults: []string{"user", "configure", "write", "read"},
	columns:  fields("user", "configure", "write", "read"),
	notFound: emptyList,
}

var topicPermissionsList = &list{
	heading:  func(e *env) { e.info("Listing topic permissions for vhost %s ...", quoted(e.opts.vhost)) },
	path:     func(e *env) string { return path("vhosts", e.opts.vhost, "topic-permissions") },
	defaults: []string{"user", "exchange", "write", "read"},
	columns:  fields("user", "exchange", "write", "read"),
	notFound: func(e *env) int {
		fmt.Fprintf(e.stderr, "Virtual host '%s' does not exist\n", e.opts.vhost)
		return exitDataErr
	},
}
