package mgmt

import (
	"reflect"
	"testing"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// TestUsersAreEngineState: users and permissions made through the
// management API are the engine's records, and a Store rebuilt from a copy
// of those records alone (as after crash recovery) authenticates the same
// users and grants the same permissions; a deleted vhost takes its
// permissions with it, in the engine and the Store alike.
func TestUsersAreEngineState(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/vhosts/v1", "")
	f.must(201, "PUT", "/api/vhosts/v2", "") // guest, their creator, gets full permissions on both
	f.must(201, "PUT", "/api/users/app", `{"password":"s3cret","tags":"management,impersonator"}`)
	f.must(201, "PUT", "/api/users/ops", `{"password_hash":"a5EspB5+nrwsdaejuc54kehJSh8AP4012RqdSB4NHsGpyIBi","tags":["administrator"]}`)
	f.must(201, "PUT", "/api/users/nopw", `{"tags":""}`)
	f.must(201, "PUT", "/api/permissions/v1/app", `{"configure":"^app\\.","write":".*","read":""}`)
	f.must(201, "PUT", "/api/permissions/v2/app", `{"configure":"","write":"","read":".*"}`)
	f.must(201, "PUT", "/api/topic-permissions/v1/app", `{"exchange":"amq.topic","write":"^{username}\\.","read":".*"}`)
	f.must(204, "POST", "/api/definitions", `{"users":[{"name":"imp","password":"pw","tags":"monitoring"}],
		"permissions":[{"user":"imp","vhost":"/","configure":".*","write":".*","read":".*"}],
		"topic_permissions":[{"user":"imp","vhost":"/","exchange":"t","write":"a","read":"b"}]}`)

	r := f.reads()
	users, perms, topics := r.Users(), r.UserPermissions(), r.TopicPermissions()
	var app engine.User
	for _, u := range users {
		if u.Name == "app" {
			app = u
		}
	}
	if !reflect.DeepEqual(app.Tags, []string{"management", "impersonator"}) || app.HashingAlgorithm != auth.SHA256 || len(app.PasswordHash) != 48 {
		t.Errorf("the engine's app: %+v", app)
	}
	if len(users) != 5 || len(perms) != 6 || len(topics) != 2 {
		t.Fatalf("engine records: %d users %d permissions %d topic permissions\n%+v\n%+v\n%+v", len(users), len(perms), len(topics), users, perms, topics)
	}

	// A second broker given a copy of the records, and its Store rebuilt
	// from them alone.
	b2 := broker.Start(engine.Config{Seed: 2}, nil)
	t.Cleanup(b2.Stop)
	var cmds []engine.Command
	for _, u := range users {
		cmds = append(cmds, engine.CmdPutUser{User: u})
	}
	for _, p := range perms {
		cmds = append(cmds, engine.CmdPutUserPermission{Permission: p})
	}
	for _, tp := range topics {
		cmds = append(cmds, engine.CmdPutTopicPermission{Permission: tp})
	}
	res, err := b2.Apply(cmds, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Errorf("%s: %v", engine.KindOf(cmds[i]), r.Err)
		}
	}
	rebuilt, err := auth.Mirror(b2)
	if err != nil {
		t.Fatal(err)
	}
	sameStores(t, f.users, rebuilt, map[string]string{"guest": "guest", "app": "s3cret", "ops": "guest", "imp": "pw", "nopw": ""})
	// And the copy's engine grants connections the same.
	for _, u := range users {
		for _, vhost := range []string{"/", "v1", "v2", "none"} {
			g1, g2 := r.UserGrants(u.Name, vhost), b2.Reader(nil).UserGrants(u.Name, vhost)
			if !reflect.DeepEqual(g1, g2) {
				t.Errorf("grants of %s in %s: %+v, copy %+v", u.Name, vhost, g1, g2)
			}
		}
	}

	// Deleting a vhost deletes its permissions in the engine and the Store.
	f.must(204, "DELETE", "/api/vhosts/v1", "")
	if _, ok := r.UserPermission("app", "v1"); ok || len(r.UserTopicPermissions("app", "v1")) != 0 {
		t.Error("the engine kept permissions on the deleted vhost")
	}
	if f.users.CanAccessVhost("app", "v1") || len(f.users.TopicPermissions()) != 1 {
		t.Errorf("the Store kept permissions on the deleted vhost: %+v", f.users.TopicPermissions())
	}
	// And a Store rebuilt from the same broker's engine equals the one
	// that followed the changes.
	again, err := auth.Mirror(f.b)
	if err != nil {
		t.Fatal(err)
	}
	sameStores(t, f.users, again, map[string]string{"app": "s3cret"})
}

// sameStores checks that two Stores list the same users, permissions and
// topic permissions, authenticate the users with the passwords given (a
// user given "" must not log in) and allow them the same in every vhost.
func sameStores(t *testing.T, a, b *auth.Store, passwords map[string]string) {
	t.Helper()
	if !reflect.DeepEqual(a.Users(), b.Users()) {
		t.Errorf("users:\n%+v\n%+v", a.Users(), b.Users())
	}
	if !reflect.DeepEqual(a.Permissions(), b.Permissions()) {
		t.Errorf("permissions:\n%+v\n%+v", a.Permissions(), b.Permissions())
	}
	if !reflect.DeepEqual(a.TopicPermissions(), b.TopicPermissions()) {
		t.Errorf("topic permissions:\n%+v\n%+v", a.TopicPermissions(), b.TopicPermissions())
	}
	for name, pw := range passwords {
		ua, okA := a.Authenticate(name, pw)
		ub, okB := b.Authenticate(name, pw)
		if okA != (pw != "") || okB != okA || !reflect.DeepEqual(ua, ub) {
			t.Errorf("%s/%q: %v %+v, rebuilt %v %+v", name, pw, okA, ua, okB, ub)
		}
		if _, ok := b.Authenticate(name, pw+"x"); ok {
			t.Errorf("%s: a wrong password accepted", name)
		}
		for _, vhost := range []string{"/", "v1", "v2", "none"} {
			for _, res := range []string{"app.q", "q", ""} {
				for _, acc := range []auth.Access{auth.Configure, auth.Write, auth.Read} {
					if a.Allowed(name, vhost, acc, res) != b.Allowed(name, vhost, acc, res) {
						t.Errorf("%s's access %d to %q in %s differs", name, acc, res, vhost)
					}
				}
			}
			if a.CanAccessVhost(name, vhost) != b.CanAccessVhost(name, vhost) {
				t.Errorf("%s's access to %s differs", name, vhost)
			}
		}
	}
}
