package engine_test

import (
	"reflect"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// TestSnapshotLimit: a limited snapshot lists the first n messages of each
// queue, channel and delayed exchange, exactly as the full one does, and
// its counts cover all of them.
func TestSnapshotLimit(t *testing.T) {
	r := script.New(engine.Config{Seed: 1})
	for _, line := range []string{
		"declare queue q",
		"publish q body count=10",
		"declare exchange d x-delayed-message delayed-type=direct",
		"bind q d k",
		"publish d k later delay=5s count=7",
		"qos 0",
		"consume q tag=c",
		"publish q more count=4",
	} {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	r.Exec("cancel c")
	r.Exec("publish q tail count=6")
	full, lim := r.B.Snapshot(), r.B.SnapshotLimit(3)
	fq, lq := full.Vhosts[0].Queues[0], lim.Vhosts[0].Queues[0]
	if fq.ReadyCount != 6 || lq.ReadyCount != 6 || len(lq.Ready) != 3 || !reflect.DeepEqual(lq.Ready, fq.Ready[:3]) {
		t.Errorf("ready: full %d (%d listed), limited %d (%d listed)", fq.ReadyCount, len(fq.Ready), lq.ReadyCount, len(lq.Ready))
	}
	if lq.Unacked != 14 || lq.UnackedBytes != 10*4+4*4 {
		t.Errorf("unacked %d (%d bytes), want 14 (56 bytes)", lq.Unacked, lq.UnackedBytes)
	}
	fc, lc := full.Vhosts[0].Connections[0].Channels[0], lim.Vhosts[0].Connections[0].Channels[0]
	if fc.UnackedCount != 14 || lc.UnackedCount != 14 || len(lc.Unacked) != 3 || !reflect.DeepEqual(lc.Unacked, fc.Unacked[:3]) {
		t.Errorf("unacked: full %d (%d listed), limited %d (%d listed)", fc.UnackedCount, len(fc.Unacked), lc.UnackedCount, len(lc.Unacked))
	}
	var fx, lx int
	for i, x := range lim.Vhosts[0].Exchanges {
		if x.Name == "d" {
			fx, lx = full.Vhosts[0].Exchanges[i].HeldCount, x.HeldCount
			if len(x.Held) != 3 || !reflect.DeepEqual(x.Held, full.Vhosts[0].Exchanges[i].Held[:3]) {
				t.Errorf("held: %d listed", len(x.Held))
			}
		}
	}
	if fx != 7 || lx != 7 {
		t.Errorf("held count: full %d, limited %d, want 7", fx, lx)
	}

	// Acks in a transaction count as unacked until the commit, bytes too.
	for _, c := range []struct {
		line  string
		n     int
		bytes int64
	}{
		{"tx select", 14, 56}, {"ack all", 14, 56}, {"tx rollback", 14, 56}, {"ack all", 14, 56}, {"tx commit", 0, 0},
	} {
		if _, err := r.Exec(c.line); err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		q := r.B.SnapshotLimit(1).Vhosts[0].Queues[0]
		if q.Unacked != c.n || q.UnackedBytes != c.bytes {
			t.Errorf("after %s: %d unacked (%d bytes), want %d (%d)", c.line, q.Unacked, q.UnackedBytes, c.n, c.bytes)
		}
	}
}
