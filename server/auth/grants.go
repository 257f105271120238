package auth

import (
	"slices"

	"warren/engine"
)

// tagImpersonator lets a user publish with a user-id property naming
// another user (validated-user-id.md, "the Impersonator Tag").
const tagImpersonator = "impersonator"

// Grants returns what user may do in vhost, for engine.ConnectionOpen: the
// permission patterns, the topic permissions, and whether the user is an
// impersonator. A user without permissions there gets a value that grants
// nothing (never nil, which would grant everything).
func (s *Store) Grants(user, vhost string) *engine.Permissions {
	s.mu.RLock()
	defer s.mu.RUnlock()
	g := &engine.Permissions{}
	if p, ok := s.perms[permKey{user, vhost}]; ok {
		g.Configure, g.Write, g.Read = p.p.Configure, p.p.Write, p.p.Read
	}
	// By exchange, so that the same permissions always make the same
	// connection.open command.
	for _, tp := range s.topics[permKey{user, vhost}] {
		g.Topics = append(g.Topics, engine.TopicPermission{Exchange: tp.Exchange, Write: tp.Write, Read: tp.Read})
	}
	if u, ok := s.users[user]; ok {
		g.Impersonator = slices.Contains(u.tags, tagImpersonator)
	}
	return g
}
