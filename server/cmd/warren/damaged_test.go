package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestDamagedLogCheckRepair is the scenario: 1,000 persistent
// messages confirmed into a durable queue, kill -9, one byte flipped in
// the middle of the log (before this, serve cut the 500 records after it
// and started). warren serve refuses to start, says where and what to
// run, and changes nothing; warren store check says one persistent
// publish would be lost; warren store repair keeps the rest; and after it
// every other confirmed message comes back through a real AMQP client.
func TestDamagedLogCheckRepair(t *testing.T) {
	if testing.Short() {
		t.Skip("starts warren serve")
	}
	const n = 1000
	dir := t.TempDir()
	publishAndKill(t, dir, n)
	log, _ := findInLog(t, dir, []byte("msg-0001"))
	flip(t, log, recordsEnd(t, log)/2)

	before := hashDir(t, dir)
	code, out := serveRefused(t, dir)
	for _, want := range []string{"is damaged", "已损坏", filepath.Base(log), "offset 偏移", "warren store check --data " + dir, "warren store repair --data " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("warren serve (exit %d) does not say %q:\n%s", code, want, out)
		}
	}
	sameDir(t, dir, before, "warren serve")
	t.Logf("warren serve (exit %d):\n%s", code, out)

	code, stdout, stderr := warren(t, "", "store", "check", "--data", dir)
	t.Logf("warren store check (exit %d):\n%s", code, stdout)
	if code != 1 || !strings.Contains(stdout, `kept in queue 保留在队列 "dmg.q", vhost 虚拟主机 "/": 1`) || !strings.Contains(stdout, `queue 队列 "dmg.q" vhost "/": 1`) {
		t.Fatalf("store check: exit %d\n%s%s", code, stdout, stderr)
	}
	reported := lostMessages(t, stdout)
	sameDir(t, dir, before, "warren store check")

	code, stdout, stderr = warren(t, "", "store", "repair", "--data", dir)
	t.Logf("warren store repair (exit %d):\n%s", code, stdout)
	if code != 0 || lostMessages(t, stdout) != reported {
		t.Fatalf("store repair: exit %d\n%s%s", code, stdout, stderr)
	}
	if m, _ := filepath.Glob(log + ".*.damaged"); len(m) != 1 {
		t.Fatalf("damaged bytes not set aside: %v", m)
	}
	if code, stdout, _ := warren(t, "", "store", "check", "--data", dir); code != 0 {
		t.Fatalf("store check after repair: exit %d\n%s", code, stdout)
	}

	got := drain(t, dir)
	if len(got) != n-reported || reported != 1 {
		t.Fatalf("after repair %d of %d messages back, the report said %d lost", len(got), n, reported)
	}
}

// recordsEnd is where the records in the log file at path end: a log
// killed while open ends in the zeros preallocated after them.
func recordsEnd(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return len(bytes.TrimRight(b, "\x00"))
}

// TestDamagedHeaderRefused: a damaged log header used to start an empty
// broker (guest gone); now serve refuses, and a repair brings back every
// message, since the header's records are intact.
func TestDamagedHeaderRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts warren serve")
	}
	dir := t.TempDir()
	publishAndKill(t, dir, 50)
	log, _ := findInLog(t, dir, []byte("msg-0001"))
	flip(t, log, 3)
	before := hashDir(t, dir)
	if _, out := serveRefused(t, dir); !strings.Contains(out, "header") {
		t.Fatalf("warren serve:\n%s", out)
	}
	sameDir(t, dir, before, "warren serve")
	if code, stdout, stderr := warren(t, "", "store", "repair", "--data", dir); code != 0 || !strings.Contains(stdout, "records 记录: 0\n") {
		t.Fatalf("store repair: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := drain(t, dir); len(got) != 50 {
		t.Fatalf("%d of 50 messages back after repair", len(got))
	}
}

// TestStoreUsage: warren store explains itself, and says what it needs.
func TestStoreUsage(t *testing.T) {
	if code, out, _ := warren(t, "", "store", "--help"); code != 0 || !strings.Contains(out, "warren store repair") {
		t.Fatalf("store --help: %d\n%s", code, out)
	}
	if code, _, errOut := warren(t, "", "store"); code != 2 || !strings.Contains(errOut, "warren store check") {
		t.Fatalf("store: %d\n%s", code, errOut)
	}
	if code, out, _ := warren(t, "", "help"); code != 0 || !strings.Contains(out, "warren store check|repair") {
		t.Fatalf("help lacks the store command:\n%s", out)
	}
	if code, _, _ := warren(t, "", "store", "check", "--data", filepath.Join(t.TempDir(), "none")); code != 3 {
		t.Fatalf("check of a missing directory: exit %d, want 3", code)
	}
}

// publishAndKill publishes n persistent messages msg-0001.. into the
// durable queue dmg.q, waits for every confirm and kills the server.
func publishAndKill(t *testing.T, dir string, n int) {
	t.Helper()
	p := startServe(t, "--data", dir)
	c := dialCrash(t, p)
	ch, err := c.Channel()
	must(t, err)
	_, err = ch.QueueDeclare("dmg.q", true, false, false, false, nil)
	must(t, err)
	must(t, ch.Confirm(false))
	var dcs []*amqp.DeferredConfirmation
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("msg-%04d", i)
		dc, err := ch.PublishWithDeferredConfirm("", "dmg.q", false, false, amqp.Publishing{MessageId: id, Body: []byte(id), DeliveryMode: amqp.Persistent})
		must(t, err)
		dcs = append(dcs, dc)
	}
	for _, dc := range dcs {
		if !dc.Wait() {
			t.Fatal("a publish was not confirmed")
		}
	}
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// drain starts warren serve on dir and gets every message of dmg.q.
func drain(t *testing.T, dir string) map[string]bool {
	t.Helper()
	p := startServe(t, "--data", dir)
	ch, err := dialCrash(t, p).Channel()
	must(t, err)
	got := map[string]bool{}
	for {
		m, ok, err := ch.Get("dmg.q", true)
		must(t, err)
		if !ok {
			return got
		}
		got[m.MessageId] = true
	}
}

// serveRefused runs warren serve on dir, which must exit non-zero at
// once; it returns the exit status and what it printed.
func serveRefused(t *testing.T, dir string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "serve", "--amqp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--data", dir)
	cmd.Env = append(os.Environ(), "WARREN_TEST_SERVE=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ctx.Err() != nil {
		t.Fatalf("warren serve on a damaged directory did not refuse (%v):\n%s", err, out)
	}
	return ee.ExitCode(), string(out)
}

// findInLog returns the log file holding b and its offset there.
func findInLog(t *testing.T, dir string, b []byte) (string, int) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "log-*.wlog"))
	for _, path := range logs {
		data, err := os.ReadFile(path)
		must(t, err)
		if i := bytes.Index(data, b); i >= 0 {
			return path, i
		}
	}
	t.Fatalf("%q is in no log file of %v", b, logs)
	return "", 0
}

func flip(t *testing.T, path string, off int) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	b[off] ^= 0x5a
	must(t, os.WriteFile(path, b, 0o640))
}

func hashDir(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	out := map[string][32]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		must(t, err)
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func sameDir(t *testing.T, dir string, before map[string][32]byte, who string) {
	t.Helper()
	if after := hashDir(t, dir); !maps.Equal(before, after) {
		t.Fatalf("%s changed the data directory", who)
	}
}

var lostRE = regexp.MustCompile(`\n  messages 消息: (\d+)\n`)

// lostMessages reads the count of lost publishes from a check or repair.
func lostMessages(t *testing.T, out string) int {
	t.Helper()
	m := lostRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no lost messages in:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestDamagedDeclareCounted: losing one record can lose more than itself.
// With the queue.declare's checksum damaged, a repair keeps every message
// record, but replayed without the declare they go nowhere: warren store
// check says all 20 messages and the queue would be lost, which is what a
// client then finds.
func TestDamagedDeclareCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts warren serve")
	}
	dir := t.TempDir()
	publishAndKill(t, dir, 20)
	log, at := findInLog(t, dir, []byte("dmg.q"))
	flip(t, log, recordStart(t, log, at)+4) // its checksum: the payload still decodes
	code, stdout, _ := warren(t, "", "store", "check", "--data", dir)
	if code != 1 || lostMessages(t, stdout) != 20 || !strings.Contains(stdout, `lost 丢失: queue "dmg.q" vhost "/"`) || !strings.Contains(stdout, `queue.declare "dmg.q"`) {
		t.Fatalf("store check: exit %d\n%s", code, stdout)
	}
	if code, stdout, stderr := warren(t, "", "store", "repair", "--data", dir); code != 0 {
		t.Fatalf("store repair: exit %d\n%s%s", code, stdout, stderr)
	}
	p := startServe(t, "--data", dir)
	ch, err := dialCrash(t, p).Channel()
	must(t, err)
	var ae *amqp.Error
	if _, err := ch.QueueDeclarePassive("dmg.q", true, false, false, false, nil); !errors.As(err, &ae) || ae.Code != amqp.NotFound {
		t.Fatalf("queue.declare passive dmg.q after repair: %v, want 404 (the report said it is lost)", err)
	}
}

// recordStart walks the log's framing (a 20-byte header, then length,
// checksum and payload per record) to the record holding offset at.
func recordStart(t *testing.T, path string, at int) int {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	for off := 20; off+8 <= len(b); {
		end := off + 8 + int(uint32(b[off])|uint32(b[off+1])<<8|uint32(b[off+2])<<16|uint32(b[off+3])<<24)
		if at < end {
			return off
		}
		off = end
	}
	t.Fatalf("offset %d is in no record", at)
	return 0
}

// TestTornTailStillStarts: a log cut short in its last record, as a crash
// in the middle of a write leaves it, is no damage: check says a start
// cuts it (and what the record was), exits 0, and serve starts with every
// message before it.
func TestTornTailStillStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts warren serve")
	}
	dir := t.TempDir()
	publishAndKill(t, dir, 10)
	log, at := findInLog(t, dir, []byte("msg-0010"))
	must(t, os.Truncate(log, int64(at)))
	before := hashDir(t, dir)
	code, stdout, _ := warren(t, "", "store", "check", "--data", dir)
	if code != 0 || !strings.Contains(stdout, "torn tail 残缺的末尾") || !strings.Contains(stdout, "a start cuts 启动时截掉") {
		t.Fatalf("store check: exit %d\n%s", code, stdout)
	}
	sameDir(t, dir, before, "warren store check")
	if got := drain(t, dir); len(got) != 9 || got["msg-0010"] {
		t.Fatalf("%d messages back after the torn tail was cut, want 9", len(got))
	}
}

// TestDamagedOnlySnapshot: the first snapshot (the broker's configuration,
// its users) fails its checksum and there is no older one. serve refuses
// rather than start an empty broker without guest; check says a repair
// cannot mend it, and repair exits 1 changing nothing.
func TestDamagedOnlySnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("starts warren serve")
	}
	dir := t.TempDir()
	publishAndKill(t, dir, 10)
	snaps, _ := filepath.Glob(filepath.Join(dir, "snap-*.snap"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots %v", snaps)
	}
	flip(t, snaps[0], 40)
	before := hashDir(t, dir)
	if _, out := serveRefused(t, dir); !strings.Contains(out, "snapshot fails its checksum 快照校验失败") {
		t.Fatalf("warren serve:\n%s", out)
	}
	code, stdout, _ := warren(t, "", "store", "check", "--data", dir)
	if code != 1 || !strings.Contains(stdout, "a repair cannot mend it 无法修复") {
		t.Fatalf("store check: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := warren(t, "", "store", "repair", "--data", dir); code != 1 || !strings.Contains(stderr, "nothing was changed") {
		t.Fatalf("store repair: exit %d\n%s", code, stderr)
	}
	sameDir(t, dir, before, "serve, check and repair")
}
