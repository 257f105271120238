package mgmt

import (
	"testing"
)

func TestVhosts(t *testing.T) {
	f := newFixture(t)
	l := f.must(200, "GET", "/api/vhosts", "").list(t)
	if len(l) != 1 || l[0]["name"] != "/" || l[0]["description"] != "Default virtual host" {
		t.Fatalf("vhosts %v", l)
	}
	f.must(201, "PUT", "/api/vhosts/v1", "")
	f.must(204, "PUT", "/api/vhosts/v1", `{"description":"again"}`)
	// The creator gets full permissions on the new vhost.
	if p := f.must(200, "GET", "/api/permissions/v1/guest", "").body; p != `{"user":"guest","vhost":"v1","configure":".*","write":".*","read":".*"}` {
		t.Errorf("creator's permissions: %s", p)
	}
	f.must(201, "PUT", "/api/queues/v1/q", `{}`)
	f.publish("v1", "q", "x")
	v := f.must(200, "GET", "/api/vhosts/v1", "").object(t)
	if v["name"] != "v1" || num(t, v, "messages") != 1 {
		t.Errorf("v1: %v", v)
	}
	f.must(204, "DELETE", "/api/vhosts/v1", "")
	f.wantError(f.do("DELETE", "/api/vhosts/v1", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("GET", "/api/vhosts/v1", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("GET", "/api/queues/v1", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	if f.users.CanAccessVhost("guest", "v1") {
		t.Error("permissions on a deleted vhost remain")
	}
	// "/" in a path is %2F.
	if r := f.must(200, "GET", "/api/vhosts/%2F", ""); r.object(t)["name"] != "/" {
		t.Errorf("%%2F: %s", r.body)
	}
}

func TestUsers(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/users/app", `{"password":"s3cret","tags":"management,monitoring"}`)
	u := f.must(200, "GET", "/api/users/app", "").object(t)
	if u["hashing_algorithm"] != "rabbit_password_hashing_sha256" || len(u["password_hash"].(string)) != 48 {
		t.Errorf("app: %v", u)
	}
	if tags := u["tags"].([]any); len(tags) != 2 || tags[0] != "management" || tags[1] != "monitoring" {
		t.Errorf("tags %v", tags)
	}
	if r := f.as("app", "s3cret", "GET", "/api/overview", ""); r.status != 200 {
		t.Errorf("app cannot log in: %d %s", r.status, r.body)
	}
	f.must(204, "PUT", "/api/users/app", `{"password":"new","tags":["management"]}`)
	if r := f.as("app", "new", "GET", "/api/whoami", ""); r.body != `{"name":"app","tags":["management"]}` {
		t.Errorf("after update: %d %s", r.status, r.body)
	}
	// RabbitMQ's own hash format imports as is (guest's hash of "guest").
	f.must(201, "PUT", "/api/users/hashed", `{"password_hash":"a5EspB5+nrwsdaejuc54kehJSh8AP4012RqdSB4NHsGpyIBi","tags":"administrator"}`)
	if r := f.as("hashed", "guest", "GET", "/api/whoami", ""); r.status != 200 {
		t.Errorf("hashed user: %d %s", r.status, r.body)
	}
	// Without a password the user cannot log in with one.
	f.must(204, "PUT", "/api/users/hashed", `{"tags":"administrator"}`)
	if r := f.as("hashed", "guest", "GET", "/api/whoami", ""); r.status != 401 {
		t.Errorf("passwordless user logged in: %d", r.status)
	}
	f.wantError(f.do("PUT", "/api/users/x", `{}`), 400, `{"error":"bad_request","reason":"tags_not_present"}`)
	f.wantError(f.do("PUT", "/api/users/x", `not json`), 400, `{"error":"bad_request","reason":"not_json"}`)
	f.wantError(f.do("GET", "/api/users/nouser", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	names := []string{}
	for _, u := range f.must(200, "GET", "/api/users", "").list(t) {
		names = append(names, u["name"].(string))
	}
	if len(names) != 3 || names[0] != "app" || names[1] != "guest" || names[2] != "hashed" {
		t.Errorf("users %v", names)
	}
	f.must(204, "DELETE", "/api/users/app", "")
	f.wantError(f.do("DELETE", "/api/users/app", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
}

func TestPermissions(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/users/app", `{"password":"pw","tags":""}`)
	f.must(201, "PUT", "/api/permissions/%2F/app", `{"configure":"^app\\.","write":".*","read":".*"}`)
	f.must(204, "PUT", "/api/permissions/%2F/app", `{"configure":"^app\\.","write":"","read":".*"}`)
	if p := f.must(200, "GET", "/api/permissions/%2F/app", "").body; p != `{"user":"app","vhost":"/","configure":"^app\\.","write":"","read":".*"}` {
		t.Errorf("permission %s", p)
	}
	if !f.users.Allowed("app", "/", 0, "app.q") || f.users.Allowed("app", "/", 0, "other") {
		t.Error("configure permission not in force")
	}
	if l := f.must(200, "GET", "/api/permissions", "").list(t); len(l) != 2 {
		t.Errorf("permissions %v", l)
	}
	f.wantError(f.do("PUT", "/api/permissions/%2F/nouser", `{"configure":".*","write":".*","read":".*"}`), 400, `{"error":"bad_request","reason":"vhost_or_user_not_found"}`)
	f.wantError(f.do("PUT", "/api/permissions/novh/app", `{"configure":".*","write":".*","read":".*"}`), 400, `{"error":"bad_request","reason":"vhost_or_user_not_found"}`)
	f.wantError(f.do("PUT", "/api/permissions/%2F/app", `{"configure":".*","write":".*"}`), 400, `{"error":"bad_request","reason":"[{key_missing,read}]"}`)
	if r := f.do("PUT", "/api/permissions/%2F/app", `{"configure":"(","write":".*","read":".*"}`); r.status != 400 {
		t.Errorf("bad regexp: %d %s", r.status, r.body)
	}
	f.must(204, "DELETE", "/api/permissions/%2F/app", "")
	f.wantError(f.do("DELETE", "/api/permissions/%2F/app", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("GET", "/api/permissions/%2F/app", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
}
