package auth

import (
	"errors"

	"warren/engine"
)

// The Store's writers. Each checks what it is given off the broker
// goroutine, with the Store's own error texts (which the management API
// and warren ctl reply with), then applies the change to the engine and
// copies the engine's result into the Store in one broker.Do (see the
// package comment). None may be called on the broker goroutine itself.

// do runs f on the broker goroutine; it returns f's error, or
// broker.ErrStopped.
func (s *Store) do(f func(e *engine.Broker) error) error {
	var err error
	if derr := s.b.Do(func(e *engine.Broker) { err = f(e) }); derr != nil {
		return derr
	}
	return err
}

// isNotFound reports whether err is the engine's NOT_FOUND.
func isNotFound(err error) bool {
	var ee *engine.Error
	return errors.As(err, &ee) && ee.Code == engine.NotFound
}

// AddUser creates a user; a user of that name must not exist (rabbitmqctl
// add_user: "User \"x\" already exists"). An empty password disables
// password login.
func (s *Store) AddUser(name, password string, tags []string) error {
	if err := checkUserName(name); err != nil {
		return err
	}
	rec := engine.User{Name: name, HashingAlgorithm: SHA256, Tags: cleanTags(tags)}
	if password != "" {
		rec.PasswordHash = HashPassword(password)
	}
	return s.do(func(e *engine.Broker) error {
		if _, ok := e.User(name); ok {
			return ErrUserExists
		}
		if err := e.PutUser(rec); err != nil {
			return err
		}
		s.copyUser(e, name)
		return nil
	})
}

// PutUser creates or replaces a user from its listed form, as the
// management API's PUT /api/users/{name} and definitions import do: the
// hash must be in the shape of its algorithm (an empty algorithm means
// SHA256); an empty hash disables password login. A replaced user keeps
// their permissions.
func (s *Store) PutUser(u User) error {
	nu, err := buildUser(u)
	if err != nil {
		return err
	}
	return s.do(func(e *engine.Broker) error {
		if err := e.PutUser(nu.record()); err != nil {
			return err
		}
		s.copyUser(e, u.Name)
		return nil
	})
}

// DeleteUser removes a user and all its permissions and topic permissions.
func (s *Store) DeleteUser(name string) error {
	return s.do(func(e *engine.Broker) error {
		if err := e.DeleteUser(name); err != nil {
			if isNotFound(err) {
				return ErrNoUser
			}
			return err
		}
		s.copyUser(e, name)
		return nil
	})
}

// SetPermissions sets a user's permissions on a vhost. The user must exist
// and each expression must compile. The Store does not check that the
// vhost exists: the management API does, and a users file given at start
// may name a vhost a later import creates.
func (s *Store) SetPermissions(name, vhost, configure, write, read string) error {
	pm := Permission{User: name, Vhost: vhost, Configure: configure, Write: write, Read: read}
	if _, err := buildPerm(pm); err != nil {
		return err
	}
	return s.do(func(e *engine.Broker) error {
		if err := e.PutUserPermission(pm.record()); err != nil {
			if isNotFound(err) {
				return ErrNoUser
			}
			return err
		}
		s.copyPerm(e, permKey{name, vhost})
		return nil
	})
}

// ClearPermissions removes a user's permissions on a vhost.
func (s *Store) ClearPermissions(name, vhost string) error {
	return s.do(func(e *engine.Broker) error {
		if err := e.ClearUserPermission(name, vhost); err != nil {
			if isNotFound(err) {
				return ErrNoPermission
			}
			return err
		}
		s.copyPerm(e, permKey{name, vhost})
		return nil
	})
}

// VhostDeleted updates the Store after the engine deleted vhost, which
// deletes every permission and topic permission on it. It runs on the
// broker goroutine, in the broker.Do that deleted the vhost, so that no
// reader sees permissions on a vhost that is gone.
func (s *Store) VhostDeleted(e *engine.Broker, vhost string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.perms {
		if k.vhost == vhost {
			s.copyPermLocked(e, k)
		}
	}
	for k := range s.topics {
		if k.vhost == vhost {
			s.copyTopicsLocked(e, k.user, vhost)
		}
	}
}

// record is the engine's form of a checked user.
func (u *user) record() engine.User {
	rec := engine.User{Name: u.name, HashingAlgorithm: u.algorithm, Tags: u.tags}
	if u.hash != nil {
		rec.PasswordHash = encodeHash(u.hash)
	}
	return rec
}

// record is the engine's form of a permission.
func (p Permission) record() engine.UserPermission {
	return engine.UserPermission{User: p.User, Vhost: p.Vhost, Configure: p.Configure, Write: p.Write, Read: p.Read}
}

// record is the engine's form of a topic permission.
func (tp TopicPermission) record() engine.UserTopicPermission {
	return engine.UserTopicPermission{User: tp.User, Vhost: tp.Vhost, Exchange: tp.Exchange, Write: tp.Write, Read: tp.Read}
}
