package ctl

import (
	"fmt"
	"strings"
)

// runStatus is status: rabbitmqctl's node status, reduced to what Warren
// has, plus where the broker keeps its state (the data directory, its
// size, the last snapshot and the log a restart would replay), read from
// /api/overview.
func runStatus(e *env) int {
	var o struct {
		Node            string `json:"node"`
		ProductName     string `json:"product_name"`
		ProductVersion  string `json:"product_version"`
		RabbitMQVersion string `json:"rabbitmq_version"`
		QueueTotals     struct {
			Ready   int64 `json:"messages_ready"`
			Unacked int64 `json:"messages_unacknowledged"`
		} `json:"queue_totals"`
		ObjectTotals struct {
			Connections int `json:"connections"`
			Channels    int `json:"channels"`
			Exchanges   int `json:"exchanges"`
			Queues      int `json:"queues"`
			Consumers   int `json:"consumers"`
		} `json:"object_totals"`
		Storage struct {
			Mode          string `json:"mode"`
			DataDir       string `json:"data_dir"`
			SizeBytes     int64  `json:"size_bytes"`
			SnapshotPos   uint64 `json:"last_snapshot_position"`
			SnapshotBytes int64  `json:"last_snapshot_bytes"`
			SnapshotTime  string `json:"last_snapshot_time"`
			LogRecords    uint64 `json:"log_records"`
			LogBytes      int64  `json:"log_bytes"`
			Durable       uint64 `json:"durable_position"`
			Error         string `json:"error"`
			DiskFree      int64  `json:"disk_free"`
			DiskFreeLimit int64  `json:"disk_free_limit"`
			DiskFreeAlarm bool   `json:"disk_free_alarm"`
			LastError     string `json:"last_error"`
			LastErrorTime string `json:"last_error_time"`
		} `json:"storage"`
	}
	if err := e.c.getJSON("/api/overview", &o); err != nil {
		return e.failed(err)
	}
	e.info("Status of node %s ...", o.Node)
	var b strings.Builder
	fmt.Fprintf(&b, "Runtime\n\nProduct name: %s\nProduct version: %s\nRabbitMQ version it follows: %s\n\n", o.ProductName, o.ProductVersion, o.RabbitMQVersion)
	b.WriteString("Data directory\n\n")
	s := o.Storage
	if s.Mode != "disk" {
		b.WriteString("Data directory: none, the broker keeps its state in memory only (warren serve --data '')\n")
	} else {
		fmt.Fprintf(&b, "Data directory: %s\nSize on disk: %s\n", s.DataDir, byteCount(s.SizeBytes))
		if s.SnapshotTime == "" {
			b.WriteString("Last snapshot: none yet\n")
		} else {
			fmt.Fprintf(&b, "Last snapshot: %s, %s, covering log records up to %d\n", s.SnapshotTime, byteCount(s.SnapshotBytes), s.SnapshotPos)
		}
		fmt.Fprintf(&b, "Log since the snapshot: %d records, %s (replayed at start)\nOn disk up to log record: %d\n", s.LogRecords, byteCount(s.LogBytes), s.Durable)
		if s.DiskFree >= 0 {
			fmt.Fprintf(&b, "Free disk space: %s (limit %s)\n", byteCount(s.DiskFree), byteCount(s.DiskFreeLimit))
		}
		if s.DiskFreeAlarm {
			b.WriteString("Disk alarm: free space is below the limit, publishers are blocked (low on disk)\n")
		}
		if s.Error != "" {
			fmt.Fprintf(&b, "Write error: %s (publishers are blocked until writes succeed again)\n", s.Error)
		} else if s.LastError != "" {
			fmt.Fprintf(&b, "Last write error: %s at %s (cleared)\n", s.LastError, s.LastErrorTime)
		}
	}
	t := o.ObjectTotals
	fmt.Fprintf(&b, "\nTotals\n\nConnections: %d\nChannels: %d\nExchanges: %d\nQueues: %d\nConsumers: %d\nMessages ready: %d\nMessages unacknowledged: %d\n",
		t.Connections, t.Channels, t.Exchanges, t.Queues, t.Consumers, o.QueueTotals.Ready, o.QueueTotals.Unacked)
	fmt.Fprint(e.stdout, b.String())
	return exitOK
}

// byteCount is n bytes for a person: "12.3 MiB (12897484 bytes)".
func byteCount(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB (%d bytes)", float64(n)/float64(div), "KMGTPE"[exp], n)
}
