// Package auth is Warren's users and their permissions, RabbitMQ's
// internal authentication backend (rabbit_auth_backend_internal): users
// with password hashes and tags, per-vhost configure/write/read
// permissions given as regular expressions, and topic permissions.
//
// The engine holds them: users and permissions are broker state, changed
// only by engine commands, so that the command log and snapshots carry
// them and a restarted broker has them back. A Store is the engine's
// records' mirror for the goroutines that cannot read the engine: every
// AMQP connection authenticates against it from its own goroutine, and
// the management API lists from it. Its writers take turns (one at a
// time, under the Store's writers' lock):
//
//  1. A change (AddUser, SetPermissions, Import ...) is checked and its
//     password hashed here, off the engine (the salt is random, and the
//     engine draws no unseeded randomness).
//  2. The change goes to the broker as engine commands (broker.Apply);
//     the engine decides (the user must exist ...) and answers with the
//     commands' results. No Store code runs while it owns the engine.
//  3. The Store then reads the engine's resulting records for what the
//     change touched (a broker.Reader) and copies them.
//  4. Readers see the copy under a read lock.
//
// So the Store never holds anything the engine does not, and Mirror
// rebuilds one from the engine alone (after crash recovery, say).
package auth

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"warren/engine"
	"warren/server/broker"
)

// User is a user as listed: the password only as its hash.
type User struct {
	Name string
	Tags []string
	// PasswordHash is base64(salt ‖ H(salt ‖ password)), RabbitMQ's
	// password_hash; empty when the user has no password and so cannot log
	// in with one.
	PasswordHash string
	// HashingAlgorithm names H, e.g. SHA256 ("rabbit_password_hashing_sha256").
	HashingAlgorithm string
}

// HasTag reports whether the user has tag (administrator, monitoring,
// policymaker, management ...).
func (u User) HasTag(tag string) bool { return slices.Contains(u.Tags, tag) }

// Permission is one user's rights in one vhost: regular expressions over
// the names of the resources they may configure, write to and read from.
// The JSON names are those of RabbitMQ's definitions.
type Permission struct {
	User      string `json:"user"`
	Vhost     string `json:"vhost"`
	Configure string `json:"configure"`
	Write     string `json:"write"`
	Read      string `json:"read"`
}

// Access is the kind of right a resource operation needs.
type Access uint8

// The three kinds of access RabbitMQ's permissions grant.
const (
	Configure Access = iota
	Write
	Read
)

// The Store's errors, for callers that map them to protocol replies.
var (
	ErrUserExists      = errors.New("user already exists")
	ErrNoUser          = errors.New("no such user")
	ErrNoPermission    = errors.New("no such permission")
	ErrInvalidUserName = errors.New("user name must not be empty")
)

type user struct {
	name      string
	tags      []string
	hash      []byte // decoded; nil: no password login
	algorithm string
}

type permKey struct{ user, vhost string }

type perm struct {
	p  Permission
	re [3]*regexp.Regexp // by Access
}

// Store is the mirror of one broker's users and permissions (see the
// package comment). Its writers take turns and hand the broker
// commands; its readers are safe for concurrent use.
type Store struct {
	b *broker.Broker
	// wmu is held by a writer throughout (writes.go): one at a time.
	wmu sync.Mutex

	mu    sync.RWMutex
	users map[string]*user
	perms map[permKey]*perm
	// topics are each user's topic permissions in each vhost, by
	// exchange (as the engine lists them).
	topics   map[permKey][]TopicPermission
	loopback []string
}

// NewStore returns the Store of a fresh broker, given RabbitMQ's default
// user as a new node's database is (AddDefaultUser).
func NewStore(b *broker.Broker) (*Store, error) {
	s, err := Mirror(b)
	if err == nil {
		err = s.AddDefaultUser()
	}
	return s, err
}

// AddDefaultUser gives the broker RabbitMQ's default user: guest, password
// guest, tag administrator, full permissions on vhost "/", and allowed to
// log in only from loopback addresses (loopback_users.guest = true, the
// Store's default). RabbitMQ creates it when a node starts with an empty
// database, not at every start: a broker restored from its data has the
// users it had.
func (s *Store) AddDefaultUser() error {
	if err := s.AddUser("guest", "guest", []string{"administrator"}); err != nil {
		return err
	}
	return s.SetPermissions("guest", "/", ".*", ".*", ".*")
}

// Authenticate checks a user name and password.
func (s *Store) Authenticate(name, password string) (User, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	u, ok := s.users[name]
	if !ok || u.hash == nil || !checkPassword(u.hash, u.algorithm, password) {
		return User{}, false
	}
	return u.view(), true
}

// LogIn reports whether an AMQP login as name with password may go on:
// the password is the user's and, unless the client connects from a
// loopback address, the user is not one of loopback_users (RabbitMQ
// refuses guest from elsewhere by default).
func (s *Store) LogIn(name, password string, fromLoopback bool) bool {
	_, good := s.Authenticate(name, password)
	return good && (fromLoopback || !s.LoopbackOnly(name))
}

// LoopbackOnly reports whether user may connect only from a loopback
// address: RabbitMQ's loopback_users, which by default holds guest.
func (s *Store) LoopbackOnly(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Contains(s.loopback, name)
}

// SetLoopbackUsers replaces the loopback_users list; no names is RabbitMQ's
// "loopback_users = none".
func (s *Store) SetLoopbackUsers(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loopback = slices.Clone(names)
}

// CanAccessVhost reports whether the user has any permissions on vhost,
// which is what connection.open to that vhost requires.
func (s *Store) CanAccessVhost(name, vhost string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.perms[permKey{name, vhost}]
	return ok
}

// Allowed reports whether the user may perform an access of kind a on the
// resource (queue or exchange) named resource in vhost. As in RabbitMQ, an
// empty expression grants nothing but the default exchange (it is treated
// as "^$").
func (s *Store) Allowed(name, vhost string, a Access, resource string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.perms[permKey{name, vhost}]
	return ok && a <= Read && p.re[a].MatchString(resource)
}

// User returns one user.
func (s *Store) User(name string) (User, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	u, ok := s.users[name]
	if !ok {
		return User{}, false
	}
	return u.view(), true
}

// checkUserName refuses an empty user name, and one that does not fit an
// AMQP short string (engine.ShortStringProblem), as every name the broker
// keeps must: a publisher's user-id property, a short string, has to
// equal it.
func checkUserName(name string) error {
	if name == "" {
		return ErrInvalidUserName
	}
	if p := engine.ShortStringProblem(name); p != "" {
		return fmt.Errorf("user name is %s", p)
	}
	return nil
}

// buildUser checks a user as PutUser is given it and returns it as the
// Store keeps it: the hash must be in the shape of its algorithm (an empty
// algorithm means SHA256).
func buildUser(u User) (*user, error) {
	if err := checkUserName(u.Name); err != nil {
		return nil, err
	}
	nu := &user{name: u.Name, tags: cleanTags(u.Tags), algorithm: u.HashingAlgorithm}
	if nu.algorithm == "" {
		nu.algorithm = SHA256
	}
	if _, ok := hasher(nu.algorithm); !ok {
		return nil, fmt.Errorf("user %q: unknown hashing algorithm %q", u.Name, nu.algorithm)
	}
	if u.PasswordHash != "" {
		raw, err := decodeHash(u.PasswordHash, nu.algorithm)
		if err != nil {
			return nil, fmt.Errorf("user %q: %w", u.Name, err)
		}
		nu.hash = raw
	}
	return nu, nil
}

// buildPerm compiles a permission's expressions; an empty one is "^$".
func buildPerm(pm Permission) (*perm, error) {
	p := &perm{p: pm}
	for i, expr := range []string{pm.Configure, pm.Write, pm.Read} {
		if expr == "" {
			expr = "^$"
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("invalid regexp %q: %v", expr, err)
		}
		p.re[i] = re
	}
	return p, nil
}

// Users lists the users by name.
func (s *Store) Users() []User {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]User, 0, len(s.users))
	for _, u := range s.users {
		out = append(out, u.view())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Permissions lists every permission, by user and then vhost.
func (s *Store) Permissions() []Permission {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Permission, 0, len(s.perms))
	for _, p := range s.perms {
		out = append(out, p.p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].User != out[j].User {
			return out[i].User < out[j].User
		}
		return out[i].Vhost < out[j].Vhost
	})
	return out
}

func (u *user) view() User {
	v := User{Name: u.name, Tags: slices.Clone(u.tags), HashingAlgorithm: u.algorithm}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	if u.hash != nil {
		v.PasswordHash = encodeHash(u.hash)
	}
	return v
}

// cleanTags trims tags and drops empty ones, keeping their order, as
// rabbitmqctl set_user_tags and the API's comma-separated form allow.
func cleanTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// SplitTags splits RabbitMQ's comma-separated tag string ("a,b").
func SplitTags(s string) []string { return cleanTags(strings.Split(s, ",")) }
