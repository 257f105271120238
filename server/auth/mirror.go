package auth

import (
	"fmt"

	"warren/engine"
	"warren/server/broker"
)

// The Store's copies of the engine's records. Each runs on the broker
// goroutine and copies, for the keys it is given, whatever the engine now
// holds: a record the engine has is copied, one it no longer has is
// dropped. The Store therefore follows the engine whatever the change
// did, its cascades included (deleting a user deletes their permissions).

// Mirror returns a Store holding b's engine's users and permissions,
// nothing more: the Store of a broker restored from its data (snapshot
// and log), whose users came back with it. A fresh broker has no users;
// NewStore gives it the default one.
func Mirror(b *broker.Broker) (*Store, error) {
	s := &Store{b: b, loopback: []string{"guest"}}
	if err := s.Rebuild(); err != nil {
		return nil, err
	}
	return s, nil
}

// Rebuild replaces everything the Store holds with a copy of the engine's
// records (the loopback_users setting, which is configuration, stays).
func (s *Store) Rebuild() error {
	return s.do(func(e *engine.Broker) error {
		s.Reset(e)
		return nil
	})
}

// Reset is Rebuild for a caller already on the broker goroutine.
func (s *Store) Reset(e *engine.Broker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users, s.perms, s.topics = map[string]*user{}, map[permKey]*perm{}, map[permKey][]TopicPermission{}
	for _, rec := range e.Users() {
		s.users[rec.Name] = userFromRecord(rec)
	}
	for _, p := range e.UserPermissions() {
		s.perms[permKey{p.User, p.Vhost}] = permFromRecord(p)
	}
	for _, tp := range e.TopicPermissions() {
		k := permKey{tp.User, tp.Vhost}
		s.topics[k] = append(s.topics[k], topicFromRecord(tp))
	}
}

// copyUser copies a user, and when the engine no longer has them, drops
// their permissions and topic permissions too (copying each from the
// engine, which deleted them with the user).
func (s *Store) copyUser(e *engine.Broker, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := e.User(name); ok {
		s.users[name] = userFromRecord(rec)
		return
	}
	delete(s.users, name)
	for k := range s.perms {
		if k.user == name {
			s.copyPermLocked(e, k)
		}
	}
	for k := range s.topics {
		if k.user == name {
			s.copyTopicsLocked(e, name, k.vhost)
		}
	}
}

// copyPerm copies one user's permissions in one vhost.
func (s *Store) copyPerm(e *engine.Broker, k permKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.copyPermLocked(e, k)
}

func (s *Store) copyPermLocked(e *engine.Broker, k permKey) {
	if p, ok := e.UserPermission(k.user, k.vhost); ok {
		s.perms[k] = permFromRecord(p)
	} else {
		delete(s.perms, k)
	}
}

// copyTopics copies one user's topic permissions in one vhost.
func (s *Store) copyTopics(e *engine.Broker, user, vhost string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.copyTopicsLocked(e, user, vhost)
}

func (s *Store) copyTopicsLocked(e *engine.Broker, user, vhost string) {
	k := permKey{user, vhost}
	tps := e.UserTopicPermissions(user, vhost)
	if len(tps) == 0 {
		delete(s.topics, k)
		return
	}
	out := make([]TopicPermission, len(tps))
	for i, tp := range tps {
		out[i] = topicFromRecord(tp)
	}
	s.topics[k] = out
}

// userFromRecord is the Store's form of an engine user. A hash that is not
// in the shape of its algorithm (which the Store's writers never hand the
// engine) leaves the user without password login rather than guessing.
func userFromRecord(rec engine.User) *user {
	u := &user{name: rec.Name, tags: cleanTags(rec.Tags), algorithm: rec.HashingAlgorithm}
	if u.algorithm == "" {
		u.algorithm = SHA256
	}
	if rec.PasswordHash != "" {
		u.hash, _ = decodeHash(rec.PasswordHash, u.algorithm)
	}
	return u
}

// permFromRecord is the Store's form of an engine permission. The engine
// compiled the same expressions before it took them, so a failure here is
// a bug.
func permFromRecord(rec engine.UserPermission) *perm {
	p, err := buildPerm(Permission{User: rec.User, Vhost: rec.Vhost, Configure: rec.Configure, Write: rec.Write, Read: rec.Read})
	if err != nil {
		panic(fmt.Sprintf("auth: the engine holds a permission that does not compile: %v", err))
	}
	return p
}

func topicFromRecord(rec engine.UserTopicPermission) TopicPermission {
	return TopicPermission{User: rec.User, Vhost: rec.Vhost, Exchange: rec.Exchange, Write: rec.Write, Read: rec.Read}
}
