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

func (t *messageTotals) add(q *engine.QueueView) {
	t.Messages += q.ReadyCount + q.Unacked
	t.MessagesReady += q.ReadyCount
	t.MessagesUnacknowledged += q.Unacked
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
// (rates_mode "none"); totals cover the vhosts the user can see.
func (a *api) overview(c *call) (int, any, error) {
	snap, err := a.snapshot()
	if err != nil {
		return 0, nil, err
	}
	o := overview{ManagementVersion: rabbitVersion, RatesMode: "none", ExchangeTypes: exchangeTypes,
		ProductVersion: productVersion, ProductName: productName, RabbitMQVersion: rabbitVersion,
		ClusterName: a.node, Node: a.node}
	vhosts, _ := c.scope(&snap)
	for _, v := range vhosts {
		o.ObjectTotals.Exchanges += len(v.Exchanges)
		o.ObjectTotals.Queues += len(v.Queues)
		for i := range v.Queues {
			o.QueueTotals.add(&v.Queues[i])
			o.ObjectTotals.Consumers += len(v.Queues[i].Consumers)
		}
		for _, cv := range v.Connections {
			if c.seesConnection(cv) {
				o.ObjectTotals.Connections++
				o.ObjectTotals.Channels += len(cv.Channels)
			}
		}
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
