package mgmt

import "warren/engine"

// Connections and channels are listed from the engine's references to
// them (see list.go): users see their own, monitoring and administrators
// everyone's (rabbit_mgmt_util:filter_conn_ch_list); /api/connections and
// /api/channels cover every vhost, /api/vhosts/{vhost}/... one.

// seesUser reports whether the caller sees the connections of user.
func (c *call) seesUser(user string) bool { return c.seesAll() || user == c.user.Name }

// connScope returns the vhost a connection or channel list is limited to
// ("" for all), checking that it exists and is visible.
func (c *call) connScope(e engineReads) (string, error) {
	name, one := c.pathVhost()
	if !one {
		return "", nil
	}
	_, err := c.scopeNames(e.Vhosts())
	return name, err
}

// visibleRefs flattens the engine's chunks of connection or channel
// references, keeping those in vhost ("" for all) whose user the caller
// sees; of reports a reference's vhost and user.
func visibleRefs[R any](c *call, vhost string, chunks [][]R, of func(R) (vhost, user string)) []R {
	refs := concat(chunks)
	kept := refs[:0]
	for _, r := range refs {
		if v, u := of(r); (vhost == "" || v == vhost) && c.seesUser(u) {
			kept = append(kept, r)
		}
	}
	return kept
}

// connItem is a connection's view with its vhost.
type connItem struct {
	vhost string
	cv    engine.ConnectionView
}

var connectionLister = lister[engine.ConnRef, connItem]{
	index: func(c *call, e engineReads) (func() []engine.ConnRef, error) {
		vhost, err := c.connScope(e)
		if err != nil {
			return nil, err
		}
		chunks := e.ConnectionRefs()
		return func() []engine.ConnRef {
			return visibleRefs(c, vhost, chunks, func(r engine.ConnRef) (string, string) { return r.Vhost, r.User })
		}, nil
	},
	name: func(r engine.ConnRef) string { return r.Name },
	key:  func(r engine.ConnRef, k string) (term, bool) { return vhostNameKey(r.Vhost, r.Name, k) },
	ref: func(it connItem) engine.ConnRef {
		return engine.ConnRef{ID: it.cv.ID, Name: it.cv.Name, User: it.cv.User, Vhost: it.vhost}
	},
	views: func(_ *call, e engineReads, rs []engine.ConnRef) []connItem {
		ids := make([]engine.ConnID, len(rs))
		vhosts := make(map[engine.ConnID]string, len(rs))
		for i, r := range rs {
			ids[i] = r.ID
			vhosts[r.ID] = r.Vhost
		}
		var out []connItem
		for _, cv := range e.ConnectionSummaries(ids) {
			out = append(out, connItem{vhosts[cv.ID], cv})
		}
		return out
	},
	render: func(c *call, it connItem) any { return c.api.toConnectionJSON(it.vhost, &it.cv) },
}

// chanItem is a channel's view with its reference.
type chanItem struct {
	r  engine.ChannelRef
	ch engine.ChannelView
}

var channelLister = lister[engine.ChannelRef, chanItem]{
	index: func(c *call, e engineReads) (func() []engine.ChannelRef, error) {
		vhost, err := c.connScope(e)
		if err != nil {
			return nil, err
		}
		chunks := e.ChannelRefs()
		return func() []engine.ChannelRef {
			return visibleRefs(c, vhost, chunks, func(r engine.ChannelRef) (string, string) { return r.Vhost, r.User })
		}, nil
	},
	name: func(r engine.ChannelRef) string { return channelName(r.Connection, r.ID.Num) },
	key: func(r engine.ChannelRef, k string) (term, bool) {
		return vhostNameKey(r.Vhost, channelName(r.Connection, r.ID.Num), k)
	},
	ref: func(it chanItem) engine.ChannelRef { return it.r },
	views: func(_ *call, e engineReads, rs []engine.ChannelRef) []chanItem {
		ids := make([]engine.ChannelID, len(rs))
		refs := make(map[engine.ChannelID]engine.ChannelRef, len(rs))
		for i, r := range rs {
			ids[i] = r.ID
			refs[r.ID] = r
		}
		var out []chanItem
		for _, ch := range e.ChannelSummaries(ids) {
			out = append(out, chanItem{refs[ch.ID], ch})
		}
		return out
	},
	render: func(c *call, it chanItem) any { return c.api.toChannelJSON(it.r, &it.ch) },
}

// connections calls f with the view of each connection named name that
// the user may see, in the path's vhost if it names one.
func (a *api) connections(c *call, name string, f func(vhost string, cv *engine.ConnectionView)) error {
	var unpack func() []engine.ConnRef
	var err error
	if rerr := a.read(func(e engineReads) { unpack, err = connectionLister.index(c, e) }); rerr != nil {
		return rerr
	}
	if err != nil {
		return err
	}
	var named []engine.ConnRef
	for _, r := range unpack() {
		if r.Name == name {
			named = append(named, r)
		}
	}
	var items []connItem
	if err := a.read(func(e engineReads) { items = connectionLister.views(c, e, named) }); err != nil {
		return err
	}
	a.reads.views.Add(int64(len(items)))
	for i := range items {
		f(items[i].vhost, &items[i].cv)
	}
	return nil
}
