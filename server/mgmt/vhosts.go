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

func (a *api) vhostJSON(v *engine.VhostView) vhostJSON {
	desc := ""
	if v.Name == "/" {
		desc = "Default virtual host"
	}
	j := vhostJSON{Name: v.Name, Description: desc, Tags: []string{}, Metadata: vhostMetadata{desc, []string{}},
		ClusterState: map[string]string{a.node: "running"}}
	for i := range v.Queues {
		j.add(&v.Queues[i])
	}
	return j
}

// listVhosts is GET /api/vhosts: the vhosts the user can see.
func (a *api) listVhosts(c *call) (int, any, error) {
	snap, err := a.snapshot()
	if err != nil {
		return 0, nil, err
	}
	vhosts, _ := c.scope(&snap)
	out := make([]vhostJSON, 0, len(vhosts))
	for _, v := range vhosts {
		out = append(out, a.vhostJSON(v))
	}
	return http.StatusOK, out, nil
}

func (a *api) getVhost(c *call) (int, any, error) {
	vhosts, err := a.scoped(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.vhostJSON(vhosts[0]), nil
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
		return s.e.AddVhost(name)
	})
	if err != nil {
		return 0, nil, err
	}
	if !created {
		return http.StatusNoContent, nil, nil
	}
	if err := a.users.SetPermissions(c.user.Name, name, ".*", ".*", ".*"); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, nil, nil
}

// deleteVhost is DELETE /api/vhosts/{vhost}: everything in it goes, its
// connections are closed, and so do all permissions on it.
func (a *api) deleteVhost(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	name := c.r.PathValue("vhost")
	err := a.do(c.user.Name, func(s *session) error {
		if !s.hasVhost(name) {
			return errNotFound
		}
		return s.e.DeleteVhost(name)
	})
	if err != nil {
		return 0, nil, err
	}
	a.users.ClearVhost(name)
	return http.StatusNoContent, nil, nil
}
