package mgmt

import (
	"net/http"
	"sort"

	"warren/engine"
)

// listConsumers is GET /api/consumers[/{vhost}]: every consumer of the
// queues in scope, by vhost, queue and tag. It visits every queue, so it
// reads their views readBatch at a time, letting the engine serve others
// between reads.
func (a *api) listConsumers(c *call) (int, any, error) {
	var unpack func() []inVhost
	var conns [][]engine.ConnRef
	var err error
	if rerr := a.read(func(e engineReads) {
		if unpack, err = queueLister.index(c, e); err == nil {
			conns = e.ConnectionRefs()
		}
	}); rerr != nil {
		return 0, nil, rerr
	}
	if err != nil {
		return 0, nil, err
	}
	refs := unpack()
	sort.Slice(refs, func(i, j int) bool {
		return refs[i].vhost < refs[j].vhost || refs[i].vhost == refs[j].vhost && refs[i].name < refs[j].name
	})
	// Consumers name their channels by connection: index the connections
	// by vhost once.
	indexes := map[string]*vhostIndex{}
	for _, r := range concat(conns) {
		ix := indexes[r.Vhost]
		if ix == nil {
			ix = newVhostIndex(&engine.VhostView{Name: r.Vhost}, a.node)
			indexes[r.Vhost] = ix
		}
		ix.conns[r.ID] = &engine.ConnectionView{ID: r.ID, Name: r.Name, User: r.User}
	}
	out := []consumerJSON{}
	for len(refs) > 0 {
		batch := refs[:min(readBatch, len(refs))]
		refs = refs[len(batch):]
		var views []engine.QueueView
		var vhosts []string
		if err := a.read(func(e engineReads) {
			for rs := batch; len(rs) > 0; {
				n := sameVhost(rs, func(r inVhost) string { return r.vhost })
				for _, q := range e.QueueSummaries(rs[0].vhost, names(rs[:n])) {
					views = append(views, q)
					vhosts = append(vhosts, rs[0].vhost)
				}
				rs = rs[n:]
			}
		}); err != nil {
			return 0, nil, err
		}
		a.reads.views.Add(int64(len(views)))
		for i := range views {
			ix := indexes[vhosts[i]]
			if ix == nil {
				ix = newVhostIndex(&engine.VhostView{Name: vhosts[i]}, a.node)
			}
			out = append(out, ix.consumers(&views[i])...)
		}
	}
	return http.StatusOK, out, nil
}
