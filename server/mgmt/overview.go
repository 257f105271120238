package mgmt

import (
	"net/http"
	"time"

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
	// Storage is Warren's own: where the broker keeps its state (RabbitMQ
	// reports its data directory on the node instead).
	Storage storage `json:"storage"`
}

// storage describes the data directory (server/store) for /api/overview
// and `warren ctl status`: where it is, how big, the last snapshot, how
// long the log after it is (what a restart replays), and the write error
// that blocks publishers, if any.
type storage struct {
	Mode          string `json:"mode"` // "disk" or "memory"
	DataDir       string `json:"data_dir,omitempty"`
	SizeBytes     int64  `json:"size_bytes"`
	SnapshotPos   uint64 `json:"last_snapshot_position"`
	SnapshotBytes int64  `json:"last_snapshot_bytes"`
	SnapshotTime  string `json:"last_snapshot_time,omitempty"` // RFC 3339, UTC
	LogRecords    uint64 `json:"log_records"`
	LogBytes      int64  `json:"log_bytes"`
	Durable       uint64 `json:"durable_position"`
	Fsyncs        uint64 `json:"fsyncs"`
	Error         string `json:"error,omitempty"`
	SnapshotError string `json:"snapshot_error,omitempty"`
	// DiskFree, DiskFreeLimit and DiskFreeAlarm are RabbitMQ's /api/nodes
	// fields of the same names, for the data directory's file system
	// (disk_free -1: it cannot be measured on this platform).
	DiskFree      int64  `json:"disk_free"`
	DiskFreeLimit int64  `json:"disk_free_limit"`
	DiskFreeAlarm bool   `json:"disk_free_alarm"`
	LastError     string `json:"last_error,omitempty"`
	LastErrorTime string `json:"last_error_time,omitempty"`
}

func (a *api) storage() storage {
	st, ok := a.b.StoreStats()
	if !ok {
		return storage{Mode: "memory"}
	}
	s := storage{Mode: "disk", DataDir: st.Dir, SizeBytes: st.DiskBytes, SnapshotPos: uint64(st.SnapshotPos), SnapshotBytes: st.SnapshotBytes,
		LogRecords: st.LogRecords, LogBytes: st.LogBytes, Durable: uint64(st.Durable), Fsyncs: st.Fsyncs, Error: st.Err, LastError: st.LastError,
		SnapshotError: st.SnapshotError, DiskFree: st.DiskFree, DiskFreeLimit: st.DiskFreeLimit, DiskFreeAlarm: st.DiskFreeAlarm}
	if !st.SnapshotTime.IsZero() {
		s.SnapshotTime = st.SnapshotTime.UTC().Format(time.RFC3339)
	}
	if !st.LastErrorTime.IsZero() {
		s.LastErrorTime = st.LastErrorTime.UTC().Format(time.RFC3339)
	}
	return s
}

// overview is GET /api/overview. Warren keeps no message rates
// (rates_mode "none"); totals cover the vhosts the user can see, and
// connections and channels those the user sees (all, or their own). The
// engine keeps the totals as things change, so this reads O(vhosts).
func (a *api) overview(c *call) (int, any, error) {
	o := overview{ManagementVersion: rabbitVersion, RatesMode: "none", ExchangeTypes: exchangeTypes,
		ProductVersion: productVersion, ProductName: productName, RabbitMQVersion: rabbitVersion,
		ClusterName: a.node, Node: a.node, Storage: a.storage()}
	err := a.read(func(e engineReads) {
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
