// Package mgmt is the subset of RabbitMQ's management HTTP API that Warren
// serves: the same paths, the same JSON shapes and the same error bodies,
// so that curl recipes, rabbitmqadmin-style scripts and `warren ctl` work
// against it.
//
// Every handler is thin: it authorises the caller against the auth.Store,
// hands its changes to the broker as engine commands (broker.Visit, with
// the results back), reads the engine through the engine's own read
// methods (a broker.Reader: one short turn each, returning copies), and
// writes JSON. None of its code runs while it holds the engine. Reads
// cost the engine what they show, not what the broker holds: totals the
// engine keeps, an index it lends, and views of at most readBatch objects
// per read (see list.go); what must see everything (binding lists, the
// definitions export) copies readBatch items per read, and the
// definitions import applies importBatch units of weighted work per
// visit, so no request holds the broker for long.
// Queue, exchange and binding actions need an AMQP channel in the engine,
// so the broker runs them on an internal connection it opens and closes
// within the same turn (broker.Visit), as RabbitMQ's management plugin
// uses an internal direct connection.
package mgmt

import (
	"net/http"
	"os"
	"sort"
	"strings"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// The versions reported by /api/overview and definitions: Warren mirrors
// the API of this RabbitMQ release.
const (
	rabbitVersion  = "3.10.8"
	productName    = "Warren"
	productVersion = "dev"
)

// api is the handler's state: the broker it drives and the users it checks.
type api struct {
	// maxMessageSize bounds an HTTP publish's payload as the AMQP
	// listeners bound a message (Options.MaxMessageSize).
	maxMessageSize uint64
	b              *broker.Broker
	users          *auth.Store
	node           string
	mux            *router
	reads          readStats
}

// call is one authenticated request.
type call struct {
	r          *http.Request
	user       auth.User
	api        *api
	header     http.Header // the response's, for Location
	queueBatch queueBatch
}

// queueBatch is what queueLister.views reads one batch of a listing
// into, reused for the next: a batch's views are rendered before the next
// is read, and fresh slices each batch would be 5 MB for the collector
// over 100,000 queues.
type queueBatch struct {
	views []engine.QueueView
	items []queueItem
	names []string
}

// endpoint handles one method of one path. It returns the status and a
// value to encode as JSON (nil for no body), or an error (an *apiError, or
// anything else for a 500).
type endpoint func(c *call) (int, any, error)

// methods maps HTTP methods to endpoints for one path.
type methods map[string]endpoint

// Options are the settings the management API shares with the rest of
// the server.
type Options struct {
	// MaxMessageSize is the largest payload an HTTP publish takes: the
	// AMQP listeners' bound (conn.Config.MaxMessageSize, after its
	// defaults), so a message refused over AMQP is refused here too. 0
	// leaves only the request body's bound (maxBody).
	MaxMessageSize uint64
}

// New returns the management API handler. It serves paths beginning with
// /api/, so it can be mounted at "/api/" on a larger mux.
func New(b *broker.Broker, users *auth.Store, o Options) http.Handler {
	a := newAPI(b, users)
	a.maxMessageSize = o.MaxMessageSize
	return a.mux
}

func newAPI(b *broker.Broker, users *auth.Store) *api {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	a := &api{b: b, users: users, node: "warren@" + host, mux: &router{}}
	a.routes()
	return a
}

func (a *api) routes() {
	a.handle("/api/overview", methods{"GET": a.overview})
	a.handle("/api/whoami", methods{"GET": a.whoami})

	a.handle("/api/vhosts", methods{"GET": a.listVhosts})
	a.handle("/api/vhosts/{vhost}", methods{"GET": a.getVhost, "PUT": a.putVhost, "DELETE": a.deleteVhost})

	a.handle("/api/users", methods{"GET": a.listUsers})
	a.handle("/api/users/{user}", methods{"GET": a.getUser, "PUT": a.putUser, "DELETE": a.deleteUser})
	a.handle("/api/permissions", methods{"GET": a.listPermissions})
	a.handle("/api/permissions/{vhost}/{user}", methods{"GET": a.getPermission, "PUT": a.putPermission, "DELETE": a.deletePermission})
	a.handle("/api/users/{user}/permissions", methods{"GET": a.userPermissions})
	a.handle("/api/vhosts/{vhost}/permissions", methods{"GET": a.vhostPermissions})
	topic := methods{"GET": a.getTopicPermission, "PUT": a.putTopicPermission, "DELETE": a.deleteTopicPermission}
	a.handle("/api/topic-permissions", methods{"GET": a.listTopicPermissions})
	a.handle("/api/topic-permissions/{vhost}/{user}", topic)
	a.handle("/api/topic-permissions/{vhost}/{user}/{exchange}", topic)
	a.handle("/api/users/{user}/topic-permissions", methods{"GET": a.userTopicPermissions})
	a.handle("/api/vhosts/{vhost}/topic-permissions", methods{"GET": a.vhostTopicPermissions})

	for _, p := range []*policies{{a: a, path: "policies"}, {a: a, path: "operator-policies", operator: true}} {
		base := "/api/" + p.path
		a.handle(base, methods{"GET": p.list})
		a.handle(base+"/{vhost}", methods{"GET": p.list})
		a.handle(base+"/{vhost}/{name}", methods{"GET": p.get, "PUT": p.put, "DELETE": p.delete})
	}

	a.handle("/api/exchanges", methods{"GET": a.listExchanges})
	a.handle("/api/exchanges/{vhost}", methods{"GET": a.listExchanges})
	a.handle("/api/exchanges/{vhost}/{name}", methods{"GET": a.getExchange, "PUT": a.putExchange, "DELETE": a.deleteExchange})
	a.handle("/api/exchanges/{vhost}/{name}/publish", methods{"POST": a.publishExchange})
	a.handle("/api/exchanges/{vhost}/{name}/bindings/source", methods{"GET": a.exchangeBindings(true)})
	a.handle("/api/exchanges/{vhost}/{name}/bindings/destination", methods{"GET": a.exchangeBindings(false)})

	a.handle("/api/queues", methods{"GET": a.listQueues})
	a.handle("/api/queues/{vhost}", methods{"GET": a.listQueues})
	a.handle("/api/queues/{vhost}/{name}", methods{"GET": a.getQueue, "PUT": a.putQueue, "DELETE": a.deleteQueue})
	a.handle("/api/queues/{vhost}/{name}/contents", methods{"DELETE": a.purgeQueue})
	a.handle("/api/queues/{vhost}/{name}/bindings", methods{"GET": a.queueBindings})
	a.handle("/api/queues/{vhost}/{name}/get", methods{"POST": a.getMessages})

	a.handle("/api/bindings", methods{"GET": a.listBindings})
	a.handle("/api/bindings/{vhost}", methods{"GET": a.listBindings})
	for _, kind := range []string{"q", "e"} {
		base := "/api/bindings/{vhost}/e/{source}/" + kind + "/{destination}"
		a.handle(base, methods{"GET": a.listBindingsBetween(kind), "POST": a.postBinding(kind)})
		a.handle(base+"/{props}", methods{"GET": a.getBinding(kind), "DELETE": a.deleteBinding(kind)})
	}

	a.handle("/api/connections", methods{"GET": a.listConnections})
	a.handle("/api/connections/{name}", methods{"GET": a.getConnection, "DELETE": a.deleteConnection})
	a.handle("/api/vhosts/{vhost}/connections", methods{"GET": a.listConnections})
	a.handle("/api/channels", methods{"GET": a.listChannels})
	a.handle("/api/vhosts/{vhost}/channels", methods{"GET": a.listChannels})
	a.handle("/api/consumers", methods{"GET": a.listConsumers})
	a.handle("/api/consumers/{vhost}", methods{"GET": a.listConsumers})

	a.handle("/api/clock", methods{"GET": a.getClock, "POST": a.postClock})

	a.handle("/api/definitions", methods{"GET": a.exportDefinitions, "POST": a.importDefinitions})
	a.handle("/api/definitions/{vhost}", methods{"GET": a.exportDefinitions, "POST": a.importDefinitions})
}

// handle registers a path: it authenticates, picks the endpoint by method
// (GET also answers HEAD; others are 405 with Allow, empty-bodied as
// RabbitMQ's), and writes the reply.
func (a *api) handle(pattern string, ms methods) {
	allow := make([]string, 0, len(ms)+1)
	for m := range ms {
		allow = append(allow, m)
	}
	if _, ok := ms["GET"]; ok {
		allow = append(allow, "HEAD")
	}
	sort.Strings(allow)
	a.mux.handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		method := r.Method
		if method == "HEAD" {
			method = "GET"
		}
		ep, ok := ms[method]
		if !ok {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		u, aerr := a.authenticate(r)
		if aerr != nil {
			if aerr.status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="RabbitMQ Management"`)
			}
			writeError(w, aerr)
			return
		}
		status, body, err := ep(&call{r: r, user: u, api: a, header: w.Header()})
		if err != nil {
			writeError(w, asAPIError(err))
			return
		}
		writeJSON(w, status, body)
	})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	if body == nil {
		w.WriteHeader(status)
		return
	}
	if s, ok := body.(streamedList); ok {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(status)
		s.write(w) // a failure part way can only cut the reply short
		return
	}
	data, err := marshal(body)
	if err != nil {
		writeError(w, &apiError{status: 500, kind: "internal_server_error", reason: err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	w.Write(data)
}
