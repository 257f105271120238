package auth

import (
	"errors"
	"slices"
	"testing"

	"warren/engine"
)

func TestTopicPermissions(t *testing.T) {
	s := newStore(t)
	s.b.ApplyOne(engine.CmdAddVhost{Name: "v1"})
	if err := s.AddUser("app", "pw", nil); err != nil {
		t.Fatal(err)
	}
	amq := TopicPermission{User: "app", Vhost: "/", Exchange: "amq.topic", Write: `^{username}\.`, Read: ".*"}
	events := TopicPermission{User: "app", Vhost: "v1", Exchange: "events", Write: "^a", Read: "^b"}
	for _, tp := range []TopicPermission{amq, events} {
		if err := s.SetTopicPermissions(tp); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetTopicPermissions(TopicPermission{User: "nobody", Vhost: "/", Exchange: "x"}); !errors.Is(err, ErrNoUser) {
		t.Errorf("unknown user: %v", err)
	}
	if err := s.SetTopicPermissions(TopicPermission{User: "app", Vhost: "/", Exchange: "x", Write: "(", Read: ".*"}); err == nil {
		t.Error("invalid regexp accepted")
	}
	if got := s.TopicPermissions(); !slices.Equal(got, []TopicPermission{amq, events}) {
		t.Errorf("listed %+v", got)
	}
	s.SetPermissions("app", "/", "", ".*", "")
	g := grantsOf(s, "app", "/")
	want := engine.Permissions{Write: ".*", Topics: []engine.TopicPermission{{Exchange: "amq.topic", Write: `^{username}\.`, Read: ".*"}}}
	if g.Configure != want.Configure || g.Write != want.Write || g.Read != want.Read || !slices.Equal(g.Topics, want.Topics) || g.Impersonator {
		t.Errorf("grants %+v, want %+v", g, want)
	}

	if err := s.ClearTopicPermissions("app", "/", "other"); err != nil {
		t.Errorf("clearing another exchange: %v", err)
	}
	if err := s.ClearTopicPermissions("app", "/", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearTopicPermissions("app", "/", ""); !errors.Is(err, ErrNoPermission) {
		t.Errorf("clearing none: %v", err)
	}
	deleteVhost(t, s, "v1")
	if got := s.TopicPermissions(); len(got) != 0 {
		t.Errorf("after deleting the vhost: %+v", got)
	}

	if err := s.Import(Definitions{TopicPermissions: []TopicPermission{events}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Import(Definitions{TopicPermissions: []TopicPermission{{User: "ghost", Vhost: "/", Exchange: "x"}}}); err == nil {
		t.Error("topic permission for an unknown user imported")
	}
	if err := s.DeleteUser("app"); err != nil {
		t.Fatal(err)
	}
	if got := s.TopicPermissions(); len(got) != 0 {
		t.Errorf("after DeleteUser: %+v", got)
	}
}

// grantsOf is what a connection of user's to vhost gets: the engine's
// grants, from the records the Store mirrors.
func grantsOf(s *Store, user, vhost string) *engine.Permissions {
	return s.b.Reader(nil).UserGrants(user, vhost)
}

// TestGrantsForStrangers: a user without permissions in the vhost gets
// permissions that grant nothing, never nil (which would grant all).
func TestGrantsForStrangers(t *testing.T) {
	s := newStore(t)
	s.AddUser("imp", "pw", []string{"impersonator"})
	g := grantsOf(s, "imp", "/")
	if g == nil || g.Configure != "" || g.Write != "" || g.Read != "" || !g.Impersonator {
		t.Errorf("grants %+v", g)
	}
}
