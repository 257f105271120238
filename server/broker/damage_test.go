package broker

import (
	"crypto/sha256"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"warren/engine"
	"warren/server/store"
)

// TestEveryLogByteFlipped builds a small data directory the way a broker
// does (declares, bindings, persistent publishes, a get and its ack) and
// flips each byte of its log and of its snapshot in turn. Each time
// either the store refuses to open it, having changed nothing, and after
// store.Repair the broker recovers every other record; or the flip hit
// the last record, a torn tail, and every record before it is recovered.
// A damaged snapshot, the only copy of the state, is refused and cannot
// be repaired: no empty broker is ever started in its place. (A flipped
// snapshot format version, outside the snapshot's checksum, is refused as
// a format this build does not know, the directory unchanged too.)
func TestEveryLogByteFlipped(t *testing.T) {
	src := t.TempDir()
	b := startStored(t, src)
	smallWorkload(t, b)
	b.Stop()
	if err := b.CloseStore(); err != nil {
		t.Fatal(err)
	}
	clean, err := store.Check(src, store.Options{})
	if err != nil || len(clean.Damage) != 0 {
		t.Fatalf("clean directory: %v %+v", err, clean)
	}
	files, _ := filepath.Glob(filepath.Join(src, "*.*"))
	for _, file := range files {
		size := fileSize(t, file)
		for off := int64(0); off < size; off++ {
			dir := copyTree(t, src)
			flipAt(t, filepath.Join(dir, filepath.Base(file)), off)
			before := hashes(t, dir)
			st, rec, err := store.Open(dir, store.Options{})
			if err == nil {
				if rec.Last != clean.Last-1 || len(rec.Notes) == 0 {
					t.Fatalf("%s byte %d: opened with last %d (clean %d), notes %q", filepath.Base(file), off, rec.Last, clean.Last, rec.Notes)
				}
				recoverAll(t, st, rec)
				continue
			}
			var de *store.DamagedError
			if !errors.As(err, &de) || !maps.Equal(before, hashes(t, dir)) {
				t.Fatalf("%s byte %d: %v (directory unchanged: %v)", filepath.Base(file), off, err, maps.Equal(before, hashes(t, dir)))
			}
			r, err := store.Repair(dir, store.Options{})
			if de.Report.Damage[0].Kind == store.DamagedSnapshot {
				if !errors.Is(err, store.ErrCannotRepair) || !maps.Equal(before, hashes(t, dir)) {
					t.Fatalf("%s byte %d: Repair of the only snapshot: %v", filepath.Base(file), off, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s byte %d: Repair: %v", filepath.Base(file), off, err)
			}
			lost := 0
			for _, d := range r.Damage {
				lost += d.Records
			}
			st, rec, err = store.Open(dir, store.Options{})
			if err != nil {
				t.Fatalf("%s byte %d: Open after repair: %v", filepath.Base(file), off, err)
			}
			if n := recoverAll(t, st, rec); n != int(clean.Last-clean.SnapshotPos)-lost {
				t.Fatalf("%s byte %d: %d records replayed after repair, want %d - %d lost", filepath.Base(file), off, n, clean.Last-clean.SnapshotPos, lost)
			}
		}
	}
}

// smallWorkload declares an exchange and two queues, binds them, publishes
// persistent messages, gets one and acks it.
func smallWorkload(t *testing.T, b *Broker) {
	t.Helper()
	ch := openChannel(t, b)
	cmds := []engine.Command{engine.CmdExchangeDeclare{Channel: ch, Declare: engine.ExchangeDeclare{Exchange: "x", Type: "direct", Durable: true}}}
	for _, q := range []string{"q1", "q2"} {
		cmds = append(cmds, engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: q, Durable: true}},
			engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Queue: q, Exchange: "x", RoutingKey: q}})
	}
	for i, q := range []string{"q1", "q1", "q2"} {
		cmds = append(cmds, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{Exchange: "x", RoutingKey: q, Body: []byte{'m', byte('0' + i)}, Props: &engine.Properties{DeliveryMode: 2}}})
	}
	res := mustApply(t, b, append(cmds, engine.CmdBasicGet{Channel: ch, Get: engine.BasicGet{Queue: "q1"}})...)
	got := res[len(res)-1]
	if !got.Got {
		t.Error("basic.get found nothing")
	}
	mustApply(t, b, engine.CmdBasicAck{Channel: ch, DeliveryTag: got.Get.DeliveryTag}, engine.CmdCloseConnection{Conn: ch.Conn})
}

func startStored(t *testing.T, dir string) *Broker {
	t.Helper()
	st, rec, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := Recover(engine.Config{}, time.UnixMilli(1_700_000_000_000), ClockManual, st, rec)
	if err != nil {
		t.Fatal(err)
	}
	return StartDurable(eng, Options{Clock: ClockManual, Store: st})
}

// recoverAll rebuilds the broker from st and rec, counting the records
// it replays, and closes the store.
func recoverAll(t *testing.T, st *store.Store, rec *store.Recovered) int {
	t.Helper()
	defer st.Close()
	n := 0
	counted := *rec
	counted.Replay(func(store.Pos, []byte) error { n++; return nil })
	if _, err := Recover(engine.Config{}, time.UnixMilli(1_700_000_000_000), ClockManual, st, rec); err != nil {
		t.Fatal(err)
	}
	return n
}

func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func hashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func flipAt(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x5a
	if err := os.WriteFile(path, b, 0o640); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
