package mgmt

import (
	"net/http"

	"warren/engine"
)

type vhostMetadata struct {
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

type vhostJSON struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Tags         []string          `json:"tags"`
	Metadata     vhostMetadata     `json:"metadata"`
	Tracing      bool              `json:"tracing"`
	ClusterState map[string]string `json:"cluster_state"`
	messageTotals
}

func (a *api) vhostJSON(name string, t engine.VhostTotals) vhostJSON {
	desc := ""
	if name == "/" {
		desc = "Default virtual host"
	}
	j := vhostJSON{Name: name, Description: desc, Tags: []string{}, Metadata: vhostMetadata{desc, []string{}},
		ClusterState: map[string]string{a.node: "running"}}
	j.addTotals(t)
	return j
}

// listVhosts is GET /api/vhosts: the vhosts the user can see.
func (a *api) listVhosts(c *call) (int, any, error) { return list(c, vhostLister, true) }

// vhostItem is a vhost's totals.
type vhostItem struct {
	name string
	t    engine.VhostTotals
}

var vhostLister = lister[string, vhostItem]{
	index: func(c *call, e engineReads) (func() []string, error) {
		vhosts, err := c.scopeNames(e.Vhosts())
		return func() []string { return vhosts }, err
	},
	name: func(v string) string { return v },
	key: func(v, k string) (term, bool) {
		switch k {
		case "name":
			return stringTerm(v), true
		case "vhost":
			return numberTerm(0), true // vhosts have no vhost field
		}
		return term{}, false
	},
	ref: func(v vhostItem) string { return v.name },
	views: func(_ *call, e engineReads, vhosts []string) []vhostItem {
		var out []vhostItem
		for _, v := range vhosts {
			if t, ok := e.VhostTotals(v); ok {
				out = append(out, vhostItem{v, t})
			}
		}
		return out
	},
	render: func(c *call, v vhostItem) any { return c.api.vhostJSON(v.name, v.t) },
}

func (a *api) getVhost(c *call) (int, any, error) {
	name := c.r.PathValue("vhost")
	var t engine.VhostTotals
	var err error
	if rerr := a.read(func(e engineReads) {
		if _, err = c.scopeNames(e.Vhosts()); err == nil {
			var ok bool
			if t, ok = e.VhostTotals(name); !ok {
				err = errNotFound // deleted since the first read
			}
		}
	}); rerr != nil {
		return 0, nil, rerr
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.vhostJSON(name, t), nil
}

// putVhost is PUT /api/vhosts/{vhost}: 201 when created, 204 when it
// existed. As RabbitMQ's management plugin does, it grants the creating
// user full permissions on the new vhost.
func (a *api) putVhost(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	if _, err := readBody(c.r); err != nil {
		return 0, nil, err
	}
	name := c.r.PathValue("vhost")
	if e := checkName("vhost", name); e != nil {
		return 0, nil, e
	}
	created := false
	err := a.do(c.user.Name, func(s *session) error {
		if s.hasVhost(name) {
			return nil
		}
		created = true
		_, err := s.apply(engine.CmdAddVhost{Name: name})
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	if !created {
		return http.StatusNoContent, nil, nil
	}
	if err := a.users.SetPermissions(c.user.Name, name, ".*", ".*", ".*"); err != nil {
		return 0, nil, usersErr(err, err)
	}
	return http.StatusCreated, nil, nil
}

// deleteVhost is DELETE /api/vhosts/{vhost}: everything in it goes, its
// connections are closed, and so do all permissions on it (the engine
// deletes them with the vhost; the auth.Store follows in the same turn).
func (a *api) deleteVhost(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	name := c.r.PathValue("vhost")
	err := a.do(c.user.Name, func(s *session) error {
		if !s.hasVhost(name) {
			return errNotFound
		}
		if _, err := s.apply(engine.CmdDeleteVhost{Name: name}); err != nil {
			return err
		}
		return a.users.VhostDeleted(name)
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
