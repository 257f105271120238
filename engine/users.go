package engine

import "sort"

// User is a user record of RabbitMQ's internal authentication backend
// (rabbit_auth_backend_internal): a name, a password hash and tags. Users
// and their permissions are broker state like vhosts and queues: they
// change only through the engine's methods, so that the command log and a
// snapshot carry them and a restarted broker has them back ("vhosts,
// users and permissions come back").
//
// The engine never hashes: hashing needs a random salt, and the engine
// draws no unseeded randomness. The driver hashes the password and hands
// the engine the result, which the engine keeps as it is given.
type User struct {
	Name string
	// PasswordHash is RabbitMQ's password_hash, base64(salt ‖ H(salt ‖
	// password)), opaque to the engine; empty for a user who cannot log
	// in with a password.
	PasswordHash string
	// HashingAlgorithm names H, e.g. "rabbit_password_hashing_sha256".
	HashingAlgorithm string
	// Tags are the user's tags (administrator, management, impersonator
	// ...), in the order given.
	Tags []string
}

// userEntry is a user with everything that is theirs: their permissions,
// by vhost, and their topic permissions, by vhost and then exchange.
// Deleting the user deletes them all.
type userEntry struct {
	rec    User
	perms  map[string]UserPermission
	topics map[string]map[string]UserTopicPermission
}

// userDB is the broker's users. The zero value is an empty database.
type userDB struct {
	byName map[string]*userEntry
}

func (b *Broker) userEntry(name string) (*userEntry, bool) {
	u, ok := b.users.byName[name]
	return u, ok
}

func noUser(name string) *Error {
	return &Error{Code: NotFound, Text: "NOT_FOUND - user '" + name + "' not found"}
}

// putUser applies CmdPutUser (see PutUser).
func (b *Broker) putUser(u User) error {
	if u.Name == "" {
		return &Error{Code: PreconditionFailed, Text: "PRECONDITION_FAILED - user name must not be empty"}
	}
	if p := ShortStringProblem(u.Name); p != "" {
		return badName(Method{}, "user name", u.Name, p)
	}
	u.Tags = cloneTags(u.Tags)
	if b.users.byName == nil {
		b.users.byName = map[string]*userEntry{}
	}
	e, ok := b.users.byName[u.Name]
	if !ok {
		b.users.byName[u.Name] = &userEntry{rec: u}
		return nil
	}
	was := hasTag(e.rec.Tags, tagImpersonator)
	e.rec = u
	if hasTag(u.Tags, tagImpersonator) != was {
		b.regrantUser(e)
	}
	return nil
}

// deleteUser applies CmdDeleteUser (see DeleteUser).
func (b *Broker) deleteUser(name string) error {
	if _, ok := b.users.byName[name]; !ok {
		return noUser(name)
	}
	delete(b.users.byName, name)
	return nil
}

// User returns a user's record.
func (b *Broker) User(name string) (User, bool) {
	e, ok := b.userEntry(name)
	if !ok {
		return User{}, false
	}
	u := e.rec
	u.Tags = cloneTags(u.Tags)
	return u, true
}

// Users lists the users by name.
func (b *Broker) Users() []User {
	out := make([]User, 0, len(b.users.byName))
	for _, name := range b.userNames() {
		u, _ := b.User(name)
		out = append(out, u)
	}
	return out
}

// userNames lists the user names in sorted order.
func (b *Broker) userNames() []string {
	names := make([]string, 0, len(b.users.byName))
	for n := range b.users.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// tagImpersonator lets a user publish with a user-id property naming
// another user (validated-user-id.md, "the Impersonator Tag").
const tagImpersonator = "impersonator"

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}

// cloneTags copies tags, so that no caller shares the engine's slice; nil
// stays nil.
func cloneTags(tags []string) []string {
	if tags == nil {
		return nil
	}
	return append([]string{}, tags...)
}
