package mgmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// importDoc is a definitions document as read: numbers stay json.Number
// until toTable turns them into int64 or float64.
type importDoc struct {
	Users            []auth.UserDef         `json:"users"`
	Vhosts           []vhostDef             `json:"vhosts"`
	Permissions      []auth.Permission      `json:"permissions"`
	TopicPermissions []auth.TopicPermission `json:"topic_permissions"`
	Parameters       []struct {
		Value     map[string]any `json:"value"`
		Vhost     string         `json:"vhost"`
		Component string         `json:"component"`
		Name      string         `json:"name"`
	} `json:"parameters"`
	Policies []struct {
		Vhost      string         `json:"vhost"`
		Name       string         `json:"name"`
		Pattern    string         `json:"pattern"`
		ApplyTo    string         `json:"apply-to"`
		Definition map[string]any `json:"definition"`
		Priority   any            `json:"priority"`
	} `json:"policies"`
	Queues    []queueDef    `json:"queues"`
	Exchanges []exchangeDef `json:"exchanges"`
	Bindings  []bindingDef  `json:"bindings"`
}

// An import is applied in steps, a turn of the engine's owner (one
// broker.Visit) taking steps until their weights reach importBatch, so
// that a document of 100,000 queues never holds the broker for more than
// a bounded time; what an earlier turn applied stays, whatever happens
// later, as in RabbitMQ, whose import does not roll back either. The unit
// of weight is one queue imported (a passive declare, then a declare: a
// few microseconds).
const importBatch = 500

// Weights of the steps whose cost grows with the broker: binding walks
// the source exchange's bindings for a duplicate (about a nanosecond
// each, so a unit per bindingsPerUnit of them), and a policy recomputes
// the settings of the queues in its vhost, at most a batch of them in
// the command (engine/queuewalk.go), under a microsecond each: a unit per
// queue is generous.
const (
	bindingsPerUnit = 1024
	queuesPerUnit   = 1
)

// importStep is one step of an import: a command for the owner (st, with
// done reading its result), or work done here between two turns (here).
//
// A step's weight is read before its turn (nil weighs 1); a binding's is
// its source's bindings then, plus those the turn binds to it before it
// (source). A step heavier than importBatch runs in a turn of its own.
// A step that can stop the import (stops: a policy, whose failure ends
// it) is the last of its turn, so that nothing after it is applied when
// it fails; the other steps' failures are recorded by their category
// (stepList.concurrent) and reported by a here step after it.
type importStep struct {
	weight func(r engineReads) int
	source *bindingSource
	st     broker.Step
	done   func(res broker.StepResult) error
	stops  bool
	here   func(r engineReads) error
}

// bindingSource is the exchange a binding step binds from.
type bindingSource struct{ vhost, exchange string }

// runImport runs the steps in order, and stops at the first that fails.
func (a *api) runImport(user string, steps []importStep) error {
	var batch []broker.Step
	var res []broker.StepResult
	for i := 0; i < len(steps); {
		r := a.b.Reader(a.reads.took)
		if steps[i].here != nil {
			err := steps[i].here(r)
			if errors.Is(r.Err(), broker.ErrStopped) {
				return errUnavailable
			}
			if err != nil {
				return err
			}
			i++
			continue
		}
		used, j := 0, i
		counts := map[bindingSource]int{}
		batch = batch[:0]
		for ; j < len(steps) && steps[j].here == nil; j++ {
			st := &steps[j]
			w := 1
			switch {
			case st.weight != nil:
				w = max(st.weight(r), 1)
			case st.source != nil:
				n, ok := counts[*st.source]
				if !ok {
					n = r.BindingCount(st.source.vhost, st.source.exchange)
				}
				counts[*st.source] = n + 1
				w = 1 + n/bindingsPerUnit
			}
			if used > 0 && used+w > importBatch {
				break
			}
			used += w
			batch = append(batch, st.st)
			if st.stops {
				j++
				break
			}
		}
		if errors.Is(r.Err(), broker.ErrStopped) {
			return errUnavailable
		}
		var err error
		a.reads.turns.Add(1)
		res, err = a.b.Visit(broker.Visit{User: user, Name: internalConnName, Turn: a.reads.took}, batch, res[:0])
		if err != nil {
			return errUnavailable
		}
		a.reads.note(used)
		for k := i; k < j; k++ {
			if err := steps[k].done(res[k-i]); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// importDefinitions is POST /api/definitions (or /api/definitions/{vhost},
// whose items need not name their vhost): the users, then the steps of
// importSteps, in RabbitMQ's order. As in RabbitMQ, a queue or exchange
// that already exists is left as it is, and what was applied before an
// error stays.
func (a *api) importDefinitions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(c.r.Body, maxBody+1))
	if err != nil || len(data) > maxBody {
		return 0, nil, badRequest("request body too large or unreadable")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc importDoc
	// JSON is UTF-8 (RFC 8259); Go's decoder would quietly turn bad
	// bytes into U+FFFD, and so rename what the document names.
	if err := dec.Decode(&doc); err != nil || !utf8.Valid(data) {
		return 0, nil, badRequest("failed_to_parse_json")
	}
	if e := doc.checkNames(); e != nil {
		return 0, nil, e
	}
	pathVhost, one := c.pathVhost()
	if one {
		doc.Users, doc.Vhosts, doc.Permissions, doc.TopicPermissions = nil, nil, nil, nil
	}
	if err := a.users.Import(auth.Definitions{Users: doc.Users}); err != nil {
		return 0, nil, usersErr(err, badRequest(err.Error()))
	}
	if err := a.runImport(c.user.Name, a.importSteps(&doc, pathVhost, one)); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

// policyImportError words a policy's failure as RabbitMQ's import does:
// the validation message, then " (vhost/name)".
func policyImportError(err error, p engine.Policy) error {
	ae := asAPIError(err)
	if ae.status != http.StatusBadRequest {
		return ae
	}
	return badRequest(fmt.Sprintf("%s (%s/%s)", ae.reason, p.Vhost, p.Name))
}
