package console_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/server/console"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSaveWritesAReplayableScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	lines := []string{"declare queue q ttl=5s", "publish q hello", "advance 6s", "expect queue q ready=0"}
	got, _ := session(t, strings.Join(lines, "\n")+"\nbogus\nhelp\n# a comment\n\nsave "+path+"\n")
	if !strings.Contains(got, "saved 4 lines to "+path+"\n") {
		t.Errorf("save should report 4 lines:\n%s", got)
	}
	saved := readFile(t, path)
	header, body, _ := strings.Cut(saved, "\n")
	if !strings.HasPrefix(header, "# ") || !strings.Contains(header, "warren run "+path) {
		t.Errorf("header should be a comment saying how to replay, got %q", header)
	}
	// Failed lines, console commands and comments are not part of it.
	if want := strings.Join(lines, "\n") + "\n"; body != want {
		t.Errorf("saved:\n%s\nwant:\n%s", body, want)
	}

	// Replaying shows the same lines and output as the session did.
	var out strings.Builder
	if n := console.RunFiles(&out, 0, []string{path}); n != 0 {
		t.Fatalf("RunFiles: %d errors\n%s", n, out.String())
	}
	if want := header + "\n" + reference(t, lines...); out.String() != want {
		t.Errorf("replay:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestSaveWithoutFile(t *testing.T) {
	got, c := session(t, "save\nload\n")
	if !strings.Contains(got, "error: usage: save FILE\n") || !strings.Contains(got, "error: usage: load FILE\n") || c.Errors() != 2 {
		t.Errorf("got:\n%s", got)
	}
}

func TestLoadPlainScript(t *testing.T) {
	path := writeFile(t, "plain.txt", "# set up\ndeclare queue q\n\npublish q one\nexpect queue q ready=5\npublish q two\n")
	got, c := session(t, "load "+path+"\nexpect queue q ready=2\n")
	if !strings.Contains(got, "# set up\n"+console.Prompt+"declare queue q\n") {
		t.Errorf("comments print as they are, lines after a prompt:\n%s", got)
	}
	if !strings.Contains(got, "error: "+path+":5: expectation failed") {
		t.Errorf("errors name the file and line:\n%s", got)
	}
	if c.Errors() != 1 {
		t.Errorf("Errors() = %d, want 1: loading goes on after an error, and state stays for later lines", c.Errors())
	}
}

func TestLoadScenarioFileSkipsExpectedOutput(t *testing.T) {
	scenario := `# A test file as in engine/testdata.
new
declare queue q
publish q one
----
queue.declared ch=app q=q
published ch=app x="" key=q msg=1
enqueued q=q msg=1

run
expect queue q ready=1
----

new
expect missing queue q
----
`
	path := writeFile(t, "scenario.txt", scenario)
	got, c := session(t, "declare queue before\nload "+path+"\n")
	if c.Errors() != 0 {
		t.Fatalf("%d errors:\n%s", c.Errors(), got)
	}
	if strings.Count(got, "new: a fresh broker at time 0s\n") != 2 {
		t.Errorf("each new directive starts a fresh broker:\n%s", got)
	}
	if strings.Contains(got, "----") || strings.Contains(got, "> run\n") || strings.Contains(got, "> queue.declared") {
		t.Errorf("directives and expected output must not run:\n%s", got)
	}
	if !strings.Contains(got, "> expect missing queue q\n") {
		t.Errorf("the last case should run:\n%s", got)
	}
}

func TestRunFilesCountsErrorsPerFile(t *testing.T) {
	good := writeFile(t, "good.txt", "declare queue q\nexpect queue q ready=0\n")
	bad := writeFile(t, "bad.txt", "declare queue q\nexpect queue q ready=1\nnonsense\n")
	var out strings.Builder
	n := console.RunFiles(&out, 0, []string{good, bad, filepath.Join(t.TempDir(), "missing.txt")})
	if n != 3 {
		t.Errorf("RunFiles = %d, want 3 (two in bad.txt, one unreadable file)", n)
	}
	got := out.String()
	if !strings.HasPrefix(got, "# "+good+"\n") || !strings.Contains(got, "\n# "+bad+"\n") {
		t.Errorf("each file gets a header when there are several:\n%s", got)
	}
	// Each file starts from a fresh broker: q is declared anew in bad.txt.
	if strings.Count(got, "queue.declared ch=app q=q") != 2 {
		t.Errorf("want q declared once per file:\n%s", got)
	}
}
