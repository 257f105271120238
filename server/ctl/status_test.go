package ctl_test

import (
	"context"
	"strings"
	"testing"
	"time"

	warren "warren/server"
	"warren/server/ctl"
)

// TestStatusShowsTheDataDirectory: `warren ctl status` says where the
// broker keeps its state: the data directory, its size, the last snapshot
// and the log a restart would replay; or that it is in memory only.
func TestStatusShowsTheDataDirectory(t *testing.T) {
	s := newServer(t)
	r := s.ctl("status")
	if r.code != 0 || !strings.Contains(r.stdout, "Data directory: none, the broker keeps its state in memory only") {
		t.Errorf("in memory: status %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	dir := t.TempDir()
	srv, err := warren.Start(warren.Options{AMQPAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	var out, errb strings.Builder
	code := ctl.Main([]string{"--http", srv.HTTPAddr(), "status"}, strings.NewReader(""), &out, &errb)
	for _, want := range []string{"Status of node warren@", "Data directory: " + dir, "Size on disk: ", "Last snapshot: ", "covering log records up to 0",
		"Log since the snapshot: ", "records", "Queues: 0", "Messages ready: 0"} {
		if !strings.Contains(out.String()+errb.String(), want) {
			t.Errorf("status lacks %q (exit %d):\n%s%s", want, code, out.String(), errb.String())
		}
	}
}
