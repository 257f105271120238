package mgmt

import "testing"

// TestPermissionListsByUserAndVhost: GET /api/users/{user}/permissions and
// /api/vhosts/{vhost}/permissions list the user's or the vhost's
// permissions, shaped and ordered as RabbitMQ 3.10.8's (observed: the user
// first in one, the vhost first in the other), and 404 an unknown name.
func TestPermissionListsByUserAndVhost(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/users/app", `{"password":"pw","tags":""}`)
	f.must(201, "PUT", "/api/permissions/%2F/app", `{"configure":"^a","write":".*","read":".*"}`)
	for _, tc := range []struct{ path, want string }{
		{"/api/users/app/permissions", `[{"user":"app","vhost":"/","configure":"^a","write":".*","read":".*"}]`},
		{"/api/users/app/permissions/", `[{"user":"app","vhost":"/","configure":"^a","write":".*","read":".*"}]`},
		{"/api/vhosts/%2F/permissions", `[{"vhost":"/","user":"app","configure":"^a","write":".*","read":".*"},{"vhost":"/","user":"guest","configure":".*","write":".*","read":".*"}]`},
	} {
		if r := f.must(200, "GET", tc.path, ""); r.body != tc.want {
			t.Errorf("GET %s:\n got %s\nwant %s", tc.path, r.body, tc.want)
		}
	}
	f.wantError(f.do("GET", "/api/users/nobody/permissions", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("GET", "/api/vhosts/nope/permissions", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
}
