package main

import (
	"net/url"
	"regexp"
)

// userPassword is every scenario user's password.
const userPassword = "conformance-pw"

// User creates a user of the default vhost, named s.N(short) and so unique
// to the run, whose configure, write and read patterns each grant the
// names that start with one of the given short prefixes (none: nothing,
// "^$"), and returns its name for ConnAs. The user is deleted with the
// scenario's other things.
func (s *S) User(short string, configure, write, read []string) string {
	name := s.N(short)
	s.mu.Lock()
	s.users = append(s.users, name)
	s.mu.Unlock()
	if code, body, err := s.t.api("PUT", "/api/users/"+url.PathEscape(name), map[string]string{"password": userPassword, "tags": ""}); err != nil || code/100 != 2 {
		panic(abort{"PUT user: " + result(err) + " " + body})
	}
	perms := map[string]string{"configure": s.pattern(configure), "write": s.pattern(write), "read": s.pattern(read)}
	if code, body, err := s.t.api("PUT", "/api/permissions/%2F/"+url.PathEscape(name), perms); err != nil || code/100 != 2 {
		panic(abort{"PUT permissions: " + result(err) + " " + body})
	}
	return name
}

// pattern is a permission pattern granting the run's names that start
// with one of the short prefixes.
func (s *S) pattern(prefixes []string) string {
	if len(prefixes) == 0 {
		return "^$"
	}
	p := "^("
	for i, short := range prefixes {
		if i > 0 {
			p += "|"
		}
		p += regexp.QuoteMeta(s.N(short))
	}
	return p + ")"
}
