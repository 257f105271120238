package vhostrole

import (
	"reflect"
	"testing"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// TestApplyCopy: a vhost object's users and permissions become the
// directory's copy, step after step: users and rights added, changed,
// and taken away.
func TestApplyCopy(t *testing.T) {
	dir := newStore(t)
	obj := newStore(t)
	steps := []struct {
		name   string
		change func(*auth.Store) error
	}{
		{"a user with permissions and a topic permission", func(s *auth.Store) error {
			if err := s.AddUser("app", "pw", []string{"management"}); err != nil {
				return err
			}
			if err := s.SetPermissions("app", "apps", "^app\\.", ".*", ".*"); err != nil {
				return err
			}
			return s.SetTopicPermissions(auth.TopicPermission{User: "app", Vhost: "apps", Exchange: "amq.topic", Write: "^a", Read: ".*"})
		}},
		{"a permission in another vhost (not in the copy)", func(s *auth.Store) error { return s.SetPermissions("app", "/", ".*", ".*", ".*") }},
		{"changed tags, rights and topic rights", func(s *auth.Store) error {
			if err := s.PutUser(auth.User{Name: "app", Tags: []string{"monitoring"}, PasswordHash: auth.HashPassword("new")}); err != nil {
				return err
			}
			if err := s.SetPermissions("app", "apps", "", ".*", ""); err != nil {
				return err
			}
			return s.SetTopicPermissions(auth.TopicPermission{User: "app", Vhost: "apps", Exchange: "amq.topic", Write: "^b", Read: ".*"})
		}},
		{"rights cleared", func(s *auth.Store) error {
			if err := s.ClearTopicPermissions("app", "apps", "amq.topic"); err != nil {
				return err
			}
			return s.ClearPermissions("app", "apps")
		}},
		{"the user deleted", func(s *auth.Store) error { return s.DeleteUser("app") }},
	}
	for _, st := range steps {
		if err := st.change(dir); err != nil {
			t.Fatalf("%s: in the directory: %v", st.name, err)
		}
		c := copyFor(dir, "apps")
		if err := applyCopy(obj, c); err != nil {
			t.Fatalf("%s: applyCopy: %v", st.name, err)
		}
		if got := copyFor(obj, "apps"); !reflect.DeepEqual(got, c) {
			t.Fatalf("%s: the object holds\n%+v\nwant the directory's copy\n%+v", st.name, got, c)
		}
		if ps := obj.Permissions(); len(ps) != len(c.Permissions) {
			t.Fatalf("%s: the object holds permissions outside its vhost: %+v", st.name, ps)
		}
	}
}

// newStore is the users of a new broker holding the vhost "apps".
func newStore(t *testing.T) *auth.Store {
	t.Helper()
	b := broker.Start(engine.Config{}, nil)
	t.Cleanup(b.Stop)
	if _, err := b.Apply([]engine.Command{engine.CmdAddVhost{Name: "apps"}}, nil); err != nil {
		t.Fatal(err)
	}
	s, err := auth.Mirror(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
