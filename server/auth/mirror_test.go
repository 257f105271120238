package auth

import (
	"fmt"
	"reflect"
	"testing"

	"warren/engine"
)

// TestImportInTurns: an import larger than a turn's worth lands whole, in
// the engine and in the Store, and a Store rebuilt from the engine equals
// the one that followed the changes.
func TestImportInTurns(t *testing.T) {
	s := newStore(t)
	n := 2*importPerTurn + 7
	var d Definitions
	for i := range n {
		name := fmt.Sprintf("u%05d", i)
		d.Users = append(d.Users, UserDef{Name: name, PasswordHash: "a5EspB5+nrwsdaejuc54kehJSh8AP4012RqdSB4NHsGpyIBi", Tags: Tags{"management"}})
		d.Permissions = append(d.Permissions, Permission{User: name, Vhost: "/", Configure: "^" + name, Write: ".*", Read: ".*"})
		d.TopicPermissions = append(d.TopicPermissions, TopicPermission{User: name, Vhost: "/", Exchange: "amq.topic", Write: "^{username}", Read: ".*"})
	}
	if err := s.Import(d); err != nil {
		t.Fatal(err)
	}
	r := s.b.Reader(nil)
	users, perms, topics := len(r.Users()), len(r.UserPermissions()), len(r.TopicPermissions())
	if users != n+1 || perms != n+1 || topics != n {
		t.Errorf("engine: %d users %d permissions %d topic permissions, want %d, %d, %d", users, perms, topics, n+1, n+1, n)
	}
	if _, ok := s.Authenticate("u02006", "guest"); !ok || !s.Allowed("u02006", "/", Configure, "u02006.q") {
		t.Error("the last imported user cannot log in or configure")
	}
	m, err := Mirror(s.b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Users(), m.Users()) || !reflect.DeepEqual(s.Permissions(), m.Permissions()) ||
		!reflect.DeepEqual(s.TopicPermissions(), m.TopicPermissions()) {
		t.Error("a Store rebuilt from the engine differs from the one that followed it")
	}
}

// TestRebuildFollowsTheEngine: Rebuild drops what the engine no longer has
// and picks up what it gained behind the Store's back (the driver's
// crash recovery replays the log into the engine, then rebuilds).
func TestRebuildFollowsTheEngine(t *testing.T) {
	s := newStore(t)
	if err := s.AddUser("old", "pw", nil); err != nil {
		t.Fatal(err)
	}
	s.b.Apply([]engine.Command{
		engine.CmdDeleteUser{Name: "old"},
		engine.CmdPutUser{User: engine.User{Name: "new", PasswordHash: "a5EspB5+nrwsdaejuc54kehJSh8AP4012RqdSB4NHsGpyIBi", HashingAlgorithm: SHA256}},
		engine.CmdPutUserPermission{Permission: engine.UserPermission{User: "new", Vhost: "/", Configure: ".*"}},
	}, nil)
	if _, ok := s.User("new"); ok {
		t.Fatal("the Store saw an engine change before Rebuild")
	}
	if err := s.Rebuild(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.User("old"); ok {
		t.Error("old survived Rebuild")
	}
	if _, ok := s.Authenticate("new", "guest"); !ok || !s.Allowed("new", "/", Configure, "q") || s.Allowed("new", "/", Write, "q") {
		t.Error("new is not as the engine has them")
	}
	if !s.LoopbackOnly("guest") {
		t.Error("Rebuild changed loopback_users")
	}
}
