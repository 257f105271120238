package auth

import (
	"slices"
	"strings"

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
	for k, tp := range s.topics {
		if k.user == user && k.vhost == vhost {
			g.Topics = append(g.Topics, engine.TopicPermission{Exchange: tp.Exchange, Write: tp.Write, Read: tp.Read})
		}
	}
	// By exchange, so that the same permissions always make the same
	// connection.open command.
	slices.SortFunc(g.Topics, func(a, b engine.TopicPermission) int { return strings.Compare(a.Exchange, b.Exchange) })
	if u, ok := s.users[user]; ok {
		g.Impersonator = slices.Contains(u.tags, tagImpersonator)
	}
	return g
}
