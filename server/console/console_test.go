package console_test

import (
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/script"
	"warren/server/console"
)

// session runs input through a stepped, echoing console and returns the
// transcript and the console.
func session(t *testing.T, input string) (string, *console.Console) {
	t.Helper()
	var out strings.Builder
	c := console.New(&out, console.Options{Echo: true})
	if err := c.Run(strings.NewReader(input)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out.String(), c
}

// reference renders what the console should show for script lines: each
// line after a prompt, then the runner's own output for it. The console's
// job is the plumbing; the trace text belongs to the engine, so the tests
// take it from a runner rather than from a copy that would drift.
func reference(t *testing.T, lines ...string) string {
	t.Helper()
	r := script.New(engine.Config{})
	var sb strings.Builder
	for _, l := range lines {
		out, err := r.Exec(l)
		if err != nil {
			t.Fatalf("reference %q: %v", l, err)
		}
		sb.WriteString(console.Prompt + l + "\n" + out)
	}
	return sb.String()
}

func TestSteppedSession(t *testing.T) {
	lines := []string{"declare queue q ttl=5s", "publish q hello", "advance 4s", "expect queue q ready=1", "advance 2s", "expect queue q ready=0"}
	got, c := session(t, strings.Join(lines, "\n")+"\nquit\npublish q after-quit\n")
	want := reference(t, lines...) + console.Prompt + "quit\n"
	if got != want {
		t.Fatalf("transcript differs\n--- got\n%s--- want\n%s", got, want)
	}
	if !strings.Contains(got, "expired q=q msg=1") {
		t.Errorf("the message should expire at 5s:\n%s", got)
	}
	if c.Errors() != 0 {
		t.Errorf("Errors() = %d, want 0", c.Errors())
	}
}

func TestTimeMovesOnlyWhenTold(t *testing.T) {
	got, _ := session(t, "declare queue q ttl=1s\npublish q x\nshow time\nexpect queue q ready=1\nstep\nshow time\n")
	if !strings.Contains(got, "time 0s\n") || !strings.Contains(got, "time 1s\n") {
		t.Errorf("want time 0s before step and 1s after:\n%s", got)
	}
}

func TestErrorsPrintAndContinue(t *testing.T) {
	input := `bogus
declare queue q ttl=5s wat
expect queue q ready=7
consume nosuch
declare queue ok
`
	got, c := session(t, input)
	for _, want := range []string{
		"> bogus\nerror: unknown command \"bogus\"",
		"error: usage: declare queue",
		"error: expectation failed: no queue q",
		"error: 404 NOT_FOUND", // an AMQP error is output, not a script error
		"queue.declared ch=app q=ok",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	if c.Errors() != 3 {
		t.Errorf("Errors() = %d, want 3 (the AMQP error is not a script error)", c.Errors())
	}
	if !strings.HasSuffix(got, console.Prompt+"\n") {
		t.Errorf("session should end at a prompt closed by EOF:\n%q", got)
	}
}

func TestHelp(t *testing.T) {
	got, c := session(t, "help\nhelp publish\nhelp save\nhelp nosuch\n")
	all, rest, _ := strings.Cut(got, "> help publish\n")
	for _, want := range []string{"Script commands:", "advance, reload, restart, run, step", "Console commands:", "  save FILE", "  quit | exit", "Clock: stepped"} {
		if !strings.Contains(all, want) {
			t.Errorf("help lacks %q:\n%s", want, all)
		}
	}
	publish, rest, _ := strings.Cut(rest, "> help save\n")
	if !strings.HasPrefix(publish, "  publish [EXCHANGE] ROUTING-KEY") || strings.Count(publish, "\n") != 1 {
		t.Errorf("help publish should show just publish's usage, got:\n%s", publish)
	}
	save, rest, _ := strings.Cut(rest, "> help nosuch\n")
	if !strings.HasPrefix(save, "  save FILE") {
		t.Errorf("help save should show the console command, got:\n%s", save)
	}
	if !strings.HasPrefix(rest, `error: no command "nosuch"`) || c.Errors() != 1 {
		t.Errorf("help nosuch should be an error, got:\n%s", rest)
	}
}

func TestBanner(t *testing.T) {
	var out strings.Builder
	if err := console.New(&out, console.Options{Banner: true}).Run(strings.NewReader("")); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"Warren console", "Clock: stepped", "  declare queue q ttl=5s\n", "  publish q hello\n", "  advance 6s\n", "help"} {
		if !strings.Contains(got, want) {
			t.Errorf("banner lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, console.Prompt+"\n") {
		t.Errorf("banner should be followed by a prompt, got %q", got)
	}
}

func TestReset(t *testing.T) {
	got, _ := session(t, "declare queue q\nadvance 5s\nreset\nshow time\nshow queues\n")
	if !strings.Contains(got, "> reset\na fresh broker at time 0s\n> show time\ntime 0s\n> show queues\nno queues\n") {
		t.Errorf("reset should give a fresh broker at 0s:\n%s", got)
	}
}

func TestSeedNamesServerQueues(t *testing.T) {
	name := func(seed uint64) string {
		var out strings.Builder
		console.New(&out, console.Options{Seed: seed}).Run(strings.NewReader("declare queue\n"))
		return out.String()
	}
	if name(7) != name(7) {
		t.Error("the same seed should give the same server-chosen names")
	}
	if name(7) == name(8) {
		t.Error("different seeds should give different server-chosen names")
	}
}
