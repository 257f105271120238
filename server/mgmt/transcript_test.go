package mgmt

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTranscripts replays the transcripts in testdata/*.txt against the
// API and checks every answer, byte for byte. A transcript is what curl
// saw from RabbitMQ 3.10.8, with Warren's deliberate differences marked
// in comments (see the files): each entry is
//
//	== [user:pass] METHOD PATH BODY
//	STATUS CONTENT-TYPE
//	BODY
//
// and entries are separated by blank lines; lines starting with # are
// comments.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f := newFixture(t)
			lines := strings.Split(string(data), "\n")
			for i := 0; i < len(lines); i++ {
				if !strings.HasPrefix(lines[i], "== ") {
					continue
				}
				if i+2 >= len(lines) {
					t.Fatalf("%s:%d: an entry without its answer", file, i+1)
				}
				user, pass, method, path, body := parseRequestLine(t, lines[i])
				req := httptest.NewRequest(method, path, strings.NewReader(body))
				req.RemoteAddr = "127.0.0.1:40000"
				req.SetBasicAuth(user, pass) // as curl -u sends it, "" and "" included
				w := httptest.NewRecorder()
				f.h.ServeHTTP(w, req)
				r := response{w.Code, w.Header(), w.Body.String()}
				got := strings.TrimSpace(strconv.Itoa(r.status) + " " + r.header.Get("Content-Type"))
				if want := strings.TrimSpace(lines[i+1]); got != want || r.body != lines[i+2] {
					t.Errorf("%s:%d: %s %s %s\ngot  %s\n     %s\nwant %s\n     %s", file, i+1, method, path, body, got, r.body, want, lines[i+2])
				}
				i += 2
			}
		})
	}
}

// parseRequestLine reads "== [user:pass] METHOD PATH BODY".
func parseRequestLine(t *testing.T, line string) (user, pass, method, path, body string) {
	t.Helper()
	rest, ok := strings.CutPrefix(line, "== [")
	cred, rest, ok2 := strings.Cut(rest, "] ")
	if !ok || !ok2 {
		t.Fatalf("bad request line %q", line)
	}
	user, pass, _ = strings.Cut(cred, ":")
	method, rest, _ = strings.Cut(rest, " ")
	path, body, _ = strings.Cut(rest, " ")
	return user, pass, method, path, body
}
