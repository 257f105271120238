package mgmt

import (
	"net"
	"net/http"
	"strconv"
	"strings"

	"warren/engine"
)

// endpoints splits a connection name into its peer and local addresses.
// RabbitMQ names a connection "PEER -> LOCAL" ("127.0.0.1:39666 ->
// 127.0.0.1:5672"); a name that is one address is taken as the peer's.
func endpoints(name string) (peerHost string, peerPort int, host string, port int) {
	peer, local, _ := strings.Cut(name, " -> ")
	split := func(addr string) (string, int) {
		h, p, err := net.SplitHostPort(strings.TrimSpace(addr))
		if err != nil {
			return "", 0
		}
		n, _ := strconv.Atoi(p)
		return h, n
	}
	peerHost, peerPort = split(peer)
	host, port = split(local)
	return
}

func channelName(conn string, num uint16) string {
	return conn + " (" + strconv.Itoa(int(num)) + ")"
}

type channelDetails struct {
	ConnectionName string `json:"connection_name"`
	Name           string `json:"name"`
	Node           string `json:"node"`
	Number         int    `json:"number"`
	PeerHost       string `json:"peer_host"`
	PeerPort       int    `json:"peer_port"`
	User           string `json:"user"`
}

type queueRef struct {
	Name  string `json:"name"`
	Vhost string `json:"vhost"`
}

type consumerJSON struct {
	Arguments      map[string]any `json:"arguments"`
	AckRequired    bool           `json:"ack_required"`
	Active         bool           `json:"active"`
	ActivityStatus string         `json:"activity_status"`
	ChannelDetails channelDetails `json:"channel_details"`
	ConsumerTag    string         `json:"consumer_tag"`
	Exclusive      bool           `json:"exclusive"`
	PrefetchCount  int            `json:"prefetch_count"`
	Queue          queueRef       `json:"queue"`
}

// vhostIndex finds a vhost's connections by id, for naming the channels
// that consumers and unacked messages belong to.
type vhostIndex struct {
	v     *engine.VhostView
	node  string
	conns map[engine.ConnID]*engine.ConnectionView
}

func newVhostIndex(v *engine.VhostView, node string) *vhostIndex {
	ix := &vhostIndex{v: v, node: node, conns: make(map[engine.ConnID]*engine.ConnectionView, len(v.Connections))}
	for i := range v.Connections {
		ix.conns[v.Connections[i].ID] = &v.Connections[i]
	}
	return ix
}

func (ix *vhostIndex) channelDetails(id engine.ChannelID) channelDetails {
	d := channelDetails{Node: ix.node, Number: int(id.Num)}
	if c, ok := ix.conns[id.Conn]; ok {
		d.ConnectionName, d.User = c.Name, c.User
		d.Name = channelName(c.Name, id.Num)
		d.PeerHost, d.PeerPort, _, _ = endpoints(c.Name)
	}
	return d
}

// consumers renders a queue's consumers. activity_status is RabbitMQ's:
// "up", or for a single-active-consumer queue "single_active" and
// "waiting".
func (ix *vhostIndex) consumers(q *engine.QueueView) []consumerJSON {
	sac, _ := q.Args["x-single-active-consumer"].(bool)
	out := make([]consumerJSON, 0, len(q.Consumers))
	for _, cv := range q.Consumers {
		status := "up"
		if sac {
			status = "waiting"
			if cv.Active {
				status = "single_active"
			}
		}
		args := map[string]any{}
		if cv.Priority != 0 {
			args["x-priority"] = cv.Priority
		}
		out = append(out, consumerJSON{Arguments: args, AckRequired: !cv.NoAck, Active: cv.Active, ActivityStatus: status,
			ChannelDetails: ix.channelDetails(cv.Channel), ConsumerTag: cv.Tag, Exclusive: cv.Exclusive,
			PrefetchCount: cv.Prefetch, Queue: queueRef{q.Name, ix.v.Name}})
	}
	return out
}

// connectionJSON is a connection as RabbitMQ lists it. client_properties
// are the client's own, from connection.start-ok; user_provided_name is
// their connection_name, present only when the client gave one as a
// string (rabbit_reader:user_provided_connection_name/1). The name itself
// stays "PEER -> LOCAL", as in RabbitMQ.
type connectionJSON struct {
	Channels         int            `json:"channels"`
	ClientProperties map[string]any `json:"client_properties"`
	Host             string         `json:"host"`
	Name             string         `json:"name"`
	Node             string         `json:"node"`
	PeerHost         string         `json:"peer_host"`
	PeerPort         int            `json:"peer_port"`
	Port             int            `json:"port"`
	Protocol         string         `json:"protocol"`
	State            string         `json:"state"`
	Type             string         `json:"type"`
	User             string         `json:"user"`
	UserProvidedName *string        `json:"user_provided_name,omitempty"`
	Vhost            string         `json:"vhost"`
}

func (a *api) toConnectionJSON(vhost string, cv *engine.ConnectionView) connectionJSON {
	j := connectionJSON{Channels: len(cv.Channels), ClientProperties: fromTable(cv.ClientProperties), Name: cv.Name, Node: a.node,
		Protocol: "AMQP 0-9-1", State: "running", Type: "network", User: cv.User, Vhost: vhost}
	if name, ok := cv.ClientProperties["connection_name"].(string); ok {
		j.UserProvidedName = &name
	}
	j.PeerHost, j.PeerPort, j.Host, j.Port = endpoints(cv.Name)
	return j
}

func (a *api) listConnections(c *call) (int, any, error) {
	_, one := c.pathVhost()
	return list(c, connectionLister, !one)
}

func (a *api) getConnection(c *call) (int, any, error) {
	var found *connectionJSON
	err := a.connections(c, c.r.PathValue("name"), func(vhost string, cv *engine.ConnectionView) {
		if found == nil {
			j := a.toConnectionJSON(vhost, cv)
			found = &j
		}
	})
	if err == nil && found == nil {
		err = errNotFound
	}
	return http.StatusOK, found, err
}

// deleteConnection is DELETE /api/connections/{name}: the engine closes the
// connection as if its socket dropped, and the connection's driver sees
// the connection.closed event.
func (a *api) deleteConnection(c *call) (int, any, error) {
	var id engine.ConnID
	err := a.connections(c, c.r.PathValue("name"), func(_ string, cv *engine.ConnectionView) {
		if id == 0 {
			id = cv.ID
		}
	})
	if err != nil {
		return 0, nil, err
	}
	if id == 0 {
		return 0, nil, errNotFound
	}
	// RabbitMQ tells the client 320 CONNECTION_FORCED with the X-Reason
	// header's text, by default "Closed via management plugin".
	reason := c.r.Header.Get("X-Reason")
	if reason == "" {
		reason = "Closed via management plugin"
	}
	if err := a.do(c.user.Name, func(s *session) error {
		_, err := s.apply(engine.CmdForceCloseConnection{Conn: id, Reason: reason})
		return err
	}); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

type connectionDetails struct {
	Name     string `json:"name"`
	PeerHost string `json:"peer_host"`
	PeerPort int    `json:"peer_port"`
}

type channelJSON struct {
	Confirm                bool              `json:"confirm"`
	ConnectionDetails      connectionDetails `json:"connection_details"`
	ConsumerCount          int               `json:"consumer_count"`
	GlobalPrefetchCount    int               `json:"global_prefetch_count"`
	MessagesUnacknowledged int               `json:"messages_unacknowledged"`
	Name                   string            `json:"name"`
	Node                   string            `json:"node"`
	Number                 int               `json:"number"`
	PrefetchCount          int               `json:"prefetch_count"`
	State                  string            `json:"state"`
	Transactional          bool              `json:"transactional"`
	User                   string            `json:"user"`
	Vhost                  string            `json:"vhost"`
}

func (a *api) listChannels(c *call) (int, any, error) {
	_, one := c.pathVhost()
	return list(c, channelLister, !one)
}

func (a *api) toChannelJSON(r engine.ChannelRef, ch *engine.ChannelView) channelJSON {
	peerHost, peerPort, _, _ := endpoints(r.Connection)
	return channelJSON{Confirm: ch.Confirm, ConnectionDetails: connectionDetails{r.Connection, peerHost, peerPort},
		ConsumerCount: len(ch.Consumers), GlobalPrefetchCount: ch.GlobalPrefetch, MessagesUnacknowledged: ch.UnackedCount,
		Name: channelName(r.Connection, ch.ID.Num), Node: a.node, Number: int(ch.ID.Num), PrefetchCount: ch.Prefetch,
		State: "running", Transactional: ch.Tx, User: r.User, Vhost: r.Vhost}
}
