package mgmt

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestMountedUnderAPI serves the handler as the server mounts it, under
// "/api/" on a ServeMux, and checks that %2F survives the outer mux.
func TestMountedUnderAPI(t *testing.T) {
	f := newFixture(t)
	mux := http.NewServeMux()
	mux.Handle("/api/", f.h)
	for _, p := range []string{"/api/queues/%2F", "/api/vhosts/%2F", "/api/policies/%2F"} {
		r := httptest.NewRequest("GET", p, nil)
		r.RemoteAddr = "127.0.0.1:1"
		r.SetBasicAuth("guest", "guest")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Errorf("%s: %d %s", p, w.Code, w.Body)
		}
	}
}
