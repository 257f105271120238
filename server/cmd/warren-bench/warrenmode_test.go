package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildWarren builds `warren` into a temporary directory, for the tests
// that start it as compare does; skipped with -short.
func buildWarren(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts warren serve")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build warren with")
	}
	bin := filepath.Join(t.TempDir(), "warren")
	if out, err := exec.Command(goBin, "build", "-o", bin, "warren/server/cmd/warren").CombinedOutput(); err != nil {
		t.Fatalf("go build warren: %v\n%s", err, out)
	}
	return bin
}

// TestWarrenModes: in memory Warren has no data directory; in the default
// mode it keeps its state in a directory of its own, which stop removes.
func TestWarrenModes(t *testing.T) {
	bin := buildWarren(t)
	ctx := context.Background()

	mem, err := startWarrenIn(ctx, bin, warrenInMemory)
	if err != nil {
		t.Fatal(err)
	}
	if mem.dir != "" {
		t.Errorf("in memory: data directory %q", mem.dir)
	}
	if err := mem.stop(); err != nil {
		t.Fatal(err)
	}

	def, err := startWarrenIn(ctx, bin, warrenDefault)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(def.dir)
	if err != nil || len(entries) == 0 {
		def.stop()
		t.Fatalf("default mode: data directory %q holds %d entries (%v), want the store's files", def.dir, len(entries), err)
	}
	if err := def.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(def.dir); !os.IsNotExist(err) {
		t.Errorf("default mode: %q still there after stop (%v)", def.dir, err)
	}
}

// TestCompareInTheDefaultMode runs compare with --warren-mode default and
// tiny counts, RabbitMQ left out (nothing listens on port 1): it says the
// mode in its header and every run succeeds, the persistent one included.
func TestCompareInTheDefaultMode(t *testing.T) {
	bin := buildWarren(t)
	var stdout, stderr strings.Builder
	code := run([]string{"compare", "--warren-bin", bin, "--warren-mode", "default",
		"--rabbit-url", "amqp://guest:guest@127.0.0.1:1/", "--reps", "1", "--messages", "300",
		"--workloads", "publish-confirms,persistent-confirms"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "default mode: --data in a fresh temporary directory") {
		t.Errorf("header does not say the mode:\n%s", stdout.String())
	}
	if strings.Contains(stderr.String(), "ERROR") {
		t.Errorf("a run failed:\n%s", stderr.String())
	}
}

// TestWarrenModeFlag: an unknown mode, or a mode for a Warren this tool
// does not start, is a usage error.
func TestWarrenModeFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--warren-bin", "w", "--warren-mode", "disk"}, "want memory or default"},
		{[]string{"--warren-url", "amqp://guest:guest@127.0.0.1:1/", "--warren-mode", "default"}, "--warren-mode is for a Warren this tool starts"},
	} {
		var stdout, stderr strings.Builder
		if code := run(append([]string{"compare"}, c.args...), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("compare %v: exit %d, stderr %q, want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}
