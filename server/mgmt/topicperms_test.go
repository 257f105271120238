package mgmt

import "testing"

// TestTopicPermissionsAPI checks the topic-permission endpoints against
// RabbitMQ 3.10.8's replies (observed with curl): PUT creates (201) or adds
// to (204) a user's topic permissions in a vhost, all three keys required;
// GET lists them (404 when none); DELETE clears one exchange's or all.
func TestTopicPermissionsAPI(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/users/app", `{"password":"pw","tags":""}`)
	f.must(201, "PUT", "/api/vhosts/v1", "")

	f.wantError(f.do("GET", "/api/topic-permissions/%2F/app", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("PUT", "/api/topic-permissions/%2F/app", `{}`), 400,
		`{"error":"bad_request","reason":"[{key_missing,exchange},{key_missing,write},{key_missing,read}]"}`)
	f.wantError(f.do("PUT", "/api/topic-permissions/%2F/app", `{"exchange":"amq.topic","write":".*"}`), 400,
		`{"error":"bad_request","reason":"[{key_missing,read}]"}`)
	f.wantError(f.do("PUT", "/api/topic-permissions/%2F/nobody", `{"exchange":"amq.topic","write":".*","read":".*"}`), 400,
		`{"error":"bad_request","reason":"vhost_or_user_not_found"}`)
	f.wantError(f.do("PUT", "/api/topic-permissions/nope/app", `{"exchange":"amq.topic","write":".*","read":".*"}`), 400,
		`{"error":"bad_request","reason":"vhost_or_user_not_found"}`)
	if r := f.do("PUT", "/api/topic-permissions/%2F/app", `{"exchange":"x","write":"(","read":".*"}`); r.status != 400 {
		t.Errorf("invalid regexp: %d %s", r.status, r.body)
	}

	f.must(201, "PUT", "/api/topic-permissions/%2F/app", `{"exchange":"amq.topic","write":"^{username}\\.","read":".*"}`)
	f.must(204, "PUT", "/api/topic-permissions/%2F/app", `{"exchange":"events","write":"^a","read":"^b"}`)
	f.must(201, "PUT", "/api/topic-permissions/v1/app", `{"exchange":"amq.topic","write":".*","read":".*"}`)

	both := `[{"user":"app","vhost":"/","exchange":"amq.topic","write":"^{username}\\.","read":".*"},` +
		`{"user":"app","vhost":"/","exchange":"events","write":"^a","read":"^b"}]`
	v1 := `{"user":"app","vhost":"v1","exchange":"amq.topic","write":".*","read":".*"}`
	for path, want := range map[string]string{
		"/api/topic-permissions/%2F/app":        both,
		"/api/topic-permissions/%2F/app/events": both,
		"/api/topic-permissions":                both[:len(both)-1] + "," + v1 + "]",
		"/api/users/app/topic-permissions":      both[:len(both)-1] + "," + v1 + "]",
		"/api/users/guest/topic-permissions":    `[]`,
		"/api/vhosts/v1/topic-permissions":      `[{"vhost":"v1","user":"app","exchange":"amq.topic","write":".*","read":".*"}]`,
	} {
		if r := f.must(200, "GET", path, ""); r.body != want {
			t.Errorf("GET %s:\n got %s\nwant %s", path, r.body, want)
		}
	}
	f.wantError(f.do("GET", "/api/users/nobody/topic-permissions", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("GET", "/api/vhosts/nope/topic-permissions", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)

	f.users.AddUser("mgr", "pw", []string{"management"})
	f.wantError(f.as("mgr", "pw", "GET", "/api/topic-permissions", ""), 401, `{"error":"not_authorised","reason":"Not administrator user"}`)

	f.must(204, "DELETE", "/api/topic-permissions/%2F/app/nothing", "")
	f.must(204, "DELETE", "/api/topic-permissions/%2F/app/events", "")
	if r := f.must(200, "GET", "/api/topic-permissions/%2F/app", ""); r.body != `[{"user":"app","vhost":"/","exchange":"amq.topic","write":"^{username}\\.","read":".*"}]` {
		t.Errorf("after deleting events: %s", r.body)
	}
	f.must(204, "DELETE", "/api/topic-permissions/%2F/app", "")
	f.wantError(f.do("DELETE", "/api/topic-permissions/%2F/app", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.must(204, "DELETE", "/api/vhosts/v1", "")
	if r := f.must(200, "GET", "/api/topic-permissions", ""); r.body != `[]` {
		t.Errorf("after deleting the vhost: %s", r.body)
	}
}

// TestTopicPermissionsEnforcedOverHTTP: a topic permission applies to the
// management API's bindings too (read on the binding key).
func TestTopicPermissionsEnforcedOverHTTP(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q", `{}`)
	f.users.AddUser("mgr", "pw", []string{"management"})
	f.users.SetPermissions("mgr", "/", ".*", ".*", ".*")
	f.must(201, "PUT", "/api/topic-permissions/%2F/mgr", `{"exchange":"amq.topic","write":".*","read":"^{username}\\."}`)
	if r := f.as("mgr", "pw", "POST", "/api/bindings/%2F/e/amq.topic/q/q", `{"routing_key":"mgr.#"}`); r.status != 201 {
		t.Errorf("allowed key: %d %s", r.status, r.body)
	}
	f.wantError(f.as("mgr", "pw", "POST", "/api/bindings/%2F/e/amq.topic/q/q", `{"routing_key":"other.#"}`), 401,
		`{"error":"not_authorised","reason":"Access refused."}`)
}
