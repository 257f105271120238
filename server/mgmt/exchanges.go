package mgmt

import (
	"net/http"

	"warren/engine"
)

type exchangeJSON struct {
	Arguments  map[string]any `json:"arguments"`
	AutoDelete bool           `json:"auto_delete"`
	Durable    bool           `json:"durable"`
	Internal   bool           `json:"internal"`
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Vhost      string         `json:"vhost"`
}

func toExchangeJSON(vhost string, x *engine.ExchangeView) exchangeJSON {
	return exchangeJSON{Arguments: fromTable(x.Args), AutoDelete: x.AutoDelete, Durable: x.Durable, Internal: x.Internal,
		Name: x.Name, Type: x.Type, Vhost: vhost}
}

// exchangeName maps the path's name to the engine's: the management API
// calls the default exchange "amq.default".
func exchangeName(c *call) string {
	n := c.r.PathValue("name")
	if n == "amq.default" {
		return ""
	}
	return n
}

func (a *api) listExchanges(c *call) (int, any, error) { return list(c, exchangeLister, true) }

// exchangeItem is an exchange's view with its vhost.
type exchangeItem struct {
	vhost string
	x     engine.ExchangeView
}

var exchangeLister = lister[inVhost, exchangeItem]{
	index: namesIndex(engineReads.ExchangeNames),
	name:  func(r inVhost) string { return r.name },
	key:   func(r inVhost, k string) (term, bool) { return vhostNameKey(r.vhost, r.name, k) },
	ref:   func(it exchangeItem) inVhost { return inVhost{it.vhost, it.x.Name} },
	views: func(_ *call, e engineReads, rs []inVhost) []exchangeItem {
		var out []exchangeItem
		for len(rs) > 0 {
			n := sameVhost(rs, func(r inVhost) string { return r.vhost })
			for _, x := range e.ExchangeSummaries(rs[0].vhost, names(rs[:n])) {
				out = append(out, exchangeItem{rs[0].vhost, x})
			}
			rs = rs[n:]
		}
		return out
	},
	render: func(_ *call, it exchangeItem) any { return toExchangeJSON(it.vhost, &it.x) },
}

func (a *api) getExchange(c *call) (int, any, error) {
	vhost, name := c.r.PathValue("vhost"), exchangeName(c)
	var xs []engine.ExchangeView
	var err error
	rerr := a.read(func(e engineReads) {
		if _, err = c.scopeNames(e.Vhosts()); err == nil {
			xs = e.ExchangeSummaries(vhost, []string{name})
		}
	})
	if rerr != nil {
		return 0, nil, rerr
	}
	if err != nil {
		return 0, nil, err
	}
	if len(xs) == 0 {
		return 0, nil, errNotFound
	}
	a.reads.views.Add(1)
	return http.StatusOK, struct {
		exchangeJSON
		Incoming []any `json:"incoming"`
		Outgoing []any `json:"outgoing"`
	}{toExchangeJSON(vhost, &xs[0]), []any{}, []any{}}, nil
}

// exchangeProbe is a passive declare, which changes nothing and needs no
// permission: it finds whether the exchange exists.
func exchangeProbe(name string) engine.Command {
	return engine.CmdExchangeDeclare{Declare: engine.ExchangeDeclare{Exchange: name, Passive: true}}
}

// putExchange is PUT /api/exchanges/{vhost}/{name} with {"type": ..,
// "durable": .., "auto_delete": .., "internal": .., "arguments": {..}}:
// exchange.declare, 201 when created, 204 when an equivalent one existed.
func (a *api) putExchange(c *call) (int, any, error) {
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	d := engine.ExchangeDeclare{Exchange: exchangeName(c)}
	if e := checkName("exchange", d.Exchange); e != nil {
		return 0, nil, e
	}
	if d.Type, err = b.str("type", engine.KindDirect); err != nil {
		return 0, nil, err
	}
	if d.Durable, err = b.boolean("durable", false); err != nil {
		return 0, nil, err
	}
	if d.AutoDelete, err = b.boolean("auto_delete", false); err != nil {
		return 0, nil, err
	}
	if d.Internal, err = b.boolean("internal", false); err != nil {
		return 0, nil, err
	}
	if d.Args, err = b.table("arguments"); err != nil {
		return 0, nil, err
	}
	vhost := c.r.PathValue("vhost")
	existed := false
	err = a.do(c.user.Name, func(s *session) error {
		if err := c.writeTo(s, vhost); err != nil {
			return err
		}
		var r engine.Result
		if existed, r, err = s.probed(vhost, exchangeProbe(d.Exchange), engine.CmdExchangeDeclare{Declare: d}); err != nil {
			return err
		}
		return r.Err
	})
	if err != nil {
		return 0, nil, err
	}
	if existed {
		return http.StatusNoContent, nil, nil
	}
	return http.StatusCreated, nil, nil
}

// deleteExchange is DELETE /api/exchanges/{vhost}/{name}[?if-unused=true].
func (a *api) deleteExchange(c *call) (int, any, error) {
	vhost := c.r.PathValue("vhost")
	d := engine.ExchangeDelete{Exchange: exchangeName(c), IfUnused: c.r.URL.Query().Get("if-unused") == "true"}
	err := a.do(c.user.Name, func(s *session) error {
		if err := c.writeTo(s, vhost); err != nil {
			return err
		}
		return s.probedDelete(vhost, exchangeProbe(d.Exchange), engine.CmdExchangeDelete{Delete: d})
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
