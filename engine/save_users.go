package engine

import "sort"

// The users section (users.go, userperms.go), the last of a snapshot:
// users by name, each with their permissions by vhost and their topic
// permissions by vhost and exchange, all sorted, so that the same users
// save the same bytes.

func (s *saver) users() {
	names := s.b.userNames()
	s.uvarint(uint64(len(names)))
	for _, n := range names {
		e := s.b.users.byName[n]
		s.str(e.rec.Name)
		s.str(e.rec.PasswordHash)
		s.str(e.rec.HashingAlgorithm)
		if e.rec.Tags == nil {
			s.uvarint(0)
		} else {
			s.uvarint(uint64(len(e.rec.Tags)) + 1)
			for _, t := range e.rec.Tags {
				s.str(t)
			}
		}
		vhosts := sortedKeys(e.perms)
		s.uvarint(uint64(len(vhosts)))
		for _, v := range vhosts {
			p := e.perms[v]
			for _, f := range []string{p.User, p.Vhost, p.Configure, p.Write, p.Read} {
				s.str(f)
			}
		}
		vhosts = sortedKeys(e.topics)
		s.uvarint(uint64(len(vhosts)))
		for _, v := range vhosts {
			s.str(v)
			xs := make([]string, 0, len(e.topics[v]))
			for x := range e.topics[v] {
				xs = append(xs, x)
			}
			sort.Strings(xs)
			s.uvarint(uint64(len(xs)))
			for _, x := range xs {
				tp := e.topics[v][x]
				for _, f := range []string{tp.User, tp.Vhost, tp.Exchange, tp.Write, tp.Read} {
					s.str(f)
				}
			}
		}
	}
}

func (l *loader) users() {
	b := l.b
	n := l.count("items")
	for range n {
		e := &userEntry{rec: User{Name: l.str(), PasswordHash: l.str(), HashingAlgorithm: l.str()}}
		if k := l.count("items"); k > 0 {
			e.rec.Tags = make([]string, 0, k-1)
			for range k - 1 {
				e.rec.Tags = append(e.rec.Tags, l.str())
			}
		}
		k := l.count("items")
		for range k {
			p := UserPermission{User: l.str(), Vhost: l.str(), Configure: l.str(), Write: l.str(), Read: l.str()}
			if e.perms == nil {
				e.perms = map[string]UserPermission{}
			}
			e.perms[p.Vhost] = p
		}
		k = l.count("items")
		for range k {
			v := l.str()
			if e.topics == nil {
				e.topics = map[string]map[string]UserTopicPermission{}
			}
			e.topics[v] = map[string]UserTopicPermission{}
			nx := l.count("items")
			for range nx {
				tp := UserTopicPermission{User: l.str(), Vhost: l.str(), Exchange: l.str(), Write: l.str(), Read: l.str()}
				e.topics[v][tp.Exchange] = tp
			}
		}
		if l.err != nil {
			return
		}
		if b.users.byName == nil {
			b.users.byName = map[string]*userEntry{}
		}
		if _, dup := b.users.byName[e.rec.Name]; dup {
			l.fail("inconsistent")
			return
		}
		b.users.byName[e.rec.Name] = e
	}
}
