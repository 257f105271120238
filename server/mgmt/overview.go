package mgmt

import (
	"net/http"

	"warren/engine"
)

type exchangeType struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Enabled     bool   `json:"enabled"`
}

var exchangeTypes = []exchangeType{
	{"direct", "AMQP direct exchange, as per the AMQP specification", true},
	{"fanout", "AMQP fanout exchange, as per the AMQP specification", true},
	{"headers", "AMQP headers exchange, as per the AMQP specification", true},
	{"topic", "AMQP topic exchange, as per the AMQP specification", true},
	{engine.KindDelayed, "Delayed Message Exchange.", true},
}

type messageTotals struct {
	Messages               int `json:"messages"`
	MessagesReady          int `json:"messages_ready"`
	MessagesUnacknowledged int `json:"messages_unacknowledged"`
}

func (t *messageTotals) addTotals(v engine.VhostTotals) {
	t.Messages += int(v.Ready + v.Unacked)
	t.MessagesReady += int(v.Ready)
	t.MessagesUnacknowledged += int(v.Unacked)
}

type objectTotals struct {
	Channels    int `json:"channels"`
	Connections int `json:"connections"`
	Consumers   int `json:"consumers"`
	Exchanges   int `json:"exchanges"`
	Queues      int `json:"queues"`
}

type overview struct {
	ManagementVersion string         `json:"management_version"`
	RatesMode         string         `json:"rates_mode"`
	ExchangeTypes     []exchangeType `json:"exchange_types"`
	ProductVersion    string         `json:"product_version"`
	ProductName       string         `json:"product_name"`
	RabbitMQVersion   string         `json:"rabbitmq_version"`
	ClusterName       string         `json:"cluster_name"`
	QueueTotals       messageTotals  `json:"queue_totals"`
	ObjectTotals      objectTotals   `json:"object_totals"`
	Node              string         `json:"node"`
}

// overview is GET /api/overview. Warren keeps no message rates
// (rates_mode "none"); totals cover the vhosts the user can see, and
// connections and channels those the user sees (all, or their own). The
// engine keeps the totals as things change, so this reads O(vhosts).
func (a *api) overview(c *call) (int, any, error) {
	o := overview{ManagementVersion: rabbitVersion, RatesMode: "none", ExchangeTypes: exchangeTypes,
		ProductVersion: productVersion, ProductName: productName, RabbitMQVersion: rabbitVersion,
		ClusterName: a.node, Node: a.node}
	err := a.read(func(e *engine.Broker) {
		for _, v := range e.Vhosts() {
			if !c.canSee(v) {
				continue
			}
			t, _ := e.VhostTotals(v)
			o.ObjectTotals.Exchanges += t.Exchanges
			o.ObjectTotals.Queues += t.Queues
			o.ObjectTotals.Consumers += t.Consumers
			o.QueueTotals.addTotals(t)
			if c.seesAll() {
				o.ObjectTotals.Connections += t.Connections
				o.ObjectTotals.Channels += t.Channels
			} else {
				conns, chans := e.UserTotals(v, c.user.Name)
				o.ObjectTotals.Connections += conns
				o.ObjectTotals.Channels += chans
			}
		}
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, o, nil
}

// whoami is GET /api/whoami.
func (a *api) whoami(c *call) (int, any, error) {
	return http.StatusOK, struct {
		Name string   `json:"name"`
		Tags []string `json:"tags"`
	}{c.user.Name, c.user.Tags}, nil
}
