package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAMQP091SuiteRunsWithoutNetwork prepares amqp091-go's integration
// tests on an empty module cache, as a fresh machine has, and lists them
// inside a private network namespace, where `make client-suites` runs
// them against Warren. Before the tests were compiled outside it, the go
// command had to download their own dependency go.uber.org/goleak there,
// and the suite could not start.
func TestAMQP091SuiteRunsWithoutNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads amqp091-go and compiles its tests")
	}
	if err := exec.Command("unshare", "-n", "true").Run(); err != nil {
		t.Skipf("unshare -n (a private network namespace needs root): %v", err)
	}
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -modcacherw")) // so that the temporary cache can be removed
	suite, err := prepareAMQP091("v1.16.0")
	if err != nil {
		t.Fatal(err)
	}
	defer suite.remove()
	cmd := exec.Command("unshare", "-n", "--", suite.binary(), "-test.list", "^TestIntegration")
	cmd.Dir = suite.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("listing the tests without network: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "TestIntegration"); n < 30 {
		t.Fatalf("listed %d integration tests, want the suite's 39 or so:\n%s", n, out)
	}
}
