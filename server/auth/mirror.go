package auth

import (
	"fmt"

	"warren/engine"
	"warren/server/broker"
)

// The Store's copies of the engine's records. Each reads, for the keys it
// is given, whatever the engine now holds (through a broker.Reader, a
// turn per read, never holding the Store's lock meanwhile), then stores
// it: a record the engine has is copied, one it no longer has is dropped.
// The Store therefore follows the engine whatever the change did, its
// cascades included (deleting a user deletes their permissions). They run
// with the writers' lock held (wmu), so no other writer of the Store
// changes the engine's users between a change and its copy.

// reads are the engine's read methods the copies use: a *broker.Reader.
type reads interface {
	User(name string) (engine.User, bool)
	Users() []engine.User
	UserPermission(user, vhost string) (engine.UserPermission, bool)
	UserPermissions() []engine.UserPermission
	UserTopicPermissions(user, vhost string) []engine.UserTopicPermission
	TopicPermissions() []engine.UserTopicPermission
	Err() error
}

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
// It reads the users, the permissions and the topic permissions in three
// turns; the writers' lock keeps the Store's own writers out meanwhile.
func (s *Store) Rebuild() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	r := s.b.Reader(nil)
	recs, perms, topics := r.Users(), r.UserPermissions(), r.TopicPermissions()
	if err := r.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users, s.perms, s.topics = map[string]*user{}, map[permKey]*perm{}, map[permKey][]TopicPermission{}
	for _, rec := range recs {
		s.users[rec.Name] = userFromRecord(rec)
	}
	for _, p := range perms {
		s.perms[permKey{p.User, p.Vhost}] = permFromRecord(p)
	}
	for _, tp := range topics {
		k := permKey{tp.User, tp.Vhost}
		s.topics[k] = append(s.topics[k], topicFromRecord(tp))
	}
	return nil
}

// copyUser copies a user, and when the engine no longer has them, drops
// their permissions and topic permissions too (copying each from the
// engine, which deleted them with the user).
func (s *Store) copyUser(r reads, name string) {
	rec, ok := r.User(name)
	if r.Err() != nil {
		return
	}
	if ok {
		s.mu.Lock()
		s.users[name] = userFromRecord(rec)
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	delete(s.users, name)
	var perms, topics []permKey
	for k := range s.perms {
		if k.user == name {
			perms = append(perms, k)
		}
	}
	for k := range s.topics {
		if k.user == name {
			topics = append(topics, k)
		}
	}
	s.mu.Unlock()
	for _, k := range perms {
		s.copyPerm(r, k)
	}
	for _, k := range topics {
		s.copyTopics(r, k.user, k.vhost)
	}
}

// copyPerm copies one user's permissions in one vhost.
func (s *Store) copyPerm(r reads, k permKey) {
	p, ok := r.UserPermission(k.user, k.vhost)
	if r.Err() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok {
		s.perms[k] = permFromRecord(p)
	} else {
		delete(s.perms, k)
	}
}

// copyTopics copies one user's topic permissions in one vhost.
func (s *Store) copyTopics(r reads, user, vhost string) {
	tps := r.UserTopicPermissions(user, vhost)
	if r.Err() != nil {
		return
	}
	k := permKey{user, vhost}
	s.mu.Lock()
	defer s.mu.Unlock()
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
