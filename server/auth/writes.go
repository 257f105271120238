package auth

import (
	"errors"

	"warren/engine"
)

// The Store's writers. Each checks what it is given here, with the
// Store's own error texts (which the management API and warren ctl reply
// with), then hands the change to the broker as an engine command and
// copies the engine's resulting records into the Store (see the package
// comment). A writer holds wmu throughout, so the Store's writers run one
// at a time: the Store is the only driver that changes the engine's users
// and permissions, so a writer's check (AddUser's "already exists") and
// its copy see no other writer's change between them, as when the whole
// writer ran in one turn of the engine.

// write applies c and then copies what it touched, holding the writers'
// lock throughout. The engine's NOT_FOUND becomes notFound (ErrNoUser,
// ErrNoPermission); other errors, broker.ErrStopped included, are
// returned as they are.
func (s *Store) write(c engine.Command, notFound error, copyTouched func(r reads)) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(c, notFound, copyTouched)
}

func (s *Store) writeLocked(c engine.Command, notFound error, copyTouched func(r reads)) error {
	if _, err := s.b.ApplyOne(c); err != nil {
		if isNotFound(err) && notFound != nil {
			return notFound
		}
		return err
	}
	r := s.b.Reader(nil)
	copyTouched(r)
	return r.Err()
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
	s.wmu.Lock()
	defer s.wmu.Unlock()
	r := s.b.Reader(nil)
	if _, ok := r.User(name); ok {
		return ErrUserExists
	} else if err := r.Err(); err != nil {
		return err
	}
	return s.writeLocked(engine.CmdPutUser{User: rec}, nil, func(r reads) { s.copyUser(r, name) })
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
	return s.write(engine.CmdPutUser{User: nu.record()}, nil, func(r reads) { s.copyUser(r, u.Name) })
}

// DeleteUser removes a user and all its permissions and topic permissions.
func (s *Store) DeleteUser(name string) error {
	return s.write(engine.CmdDeleteUser{Name: name}, ErrNoUser, func(r reads) { s.copyUser(r, name) })
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
	return s.write(engine.CmdPutUserPermission{Permission: pm.record()}, ErrNoUser, func(r reads) { s.copyPerm(r, permKey{name, vhost}) })
}

// ClearPermissions removes a user's permissions on a vhost.
func (s *Store) ClearPermissions(name, vhost string) error {
	return s.write(engine.CmdClearUserPermission{User: name, Vhost: vhost}, ErrNoPermission, func(r reads) { s.copyPerm(r, permKey{name, vhost}) })
}

// VhostDeleted updates the Store after the engine deleted vhost, which
// deletes every permission and topic permission on it. The deletion and
// this copy are two turns: in between, the Store still lists permissions
// on a vhost the engine no longer has, which grant nothing (a connection
// to it is refused by the engine: 530, vhost not found), and a vhost of
// the same name created meanwhile starts without them, as the copy finds.
func (s *Store) VhostDeleted(vhost string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.RLock()
	var perms, topics []permKey
	for k := range s.perms {
		if k.vhost == vhost {
			perms = append(perms, k)
		}
	}
	for k := range s.topics {
		if k.vhost == vhost {
			topics = append(topics, k)
		}
	}
	s.mu.RUnlock()
	r := s.b.Reader(nil)
	for _, k := range perms {
		s.copyPerm(r, k)
	}
	for _, k := range topics {
		s.copyTopics(r, k.user, k.vhost)
	}
	return r.Err()
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
