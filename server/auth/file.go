package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"warren/engine"
)

// Definitions is the users-and-permissions part of a RabbitMQ definitions
// file (rabbitmqctl export_definitions, GET /api/definitions):
//
//	{"users": [{"name": "app", "password": "s3cret", "tags": ["management"]},
//	           {"name": "ops", "password_hash": "…", "hashing_algorithm":
//	            "rabbit_password_hashing_sha256", "tags": "administrator"}],
//	 "permissions": [{"user": "app", "vhost": "/", "configure": "^app\\.",
//	                  "write": ".*", "read": ".*"}],
//	 "topic_permissions": [{"user": "app", "vhost": "/", "exchange":
//	                        "amq.topic", "write": "^app\\.", "read": ".*"}]}
//
// Other keys (vhosts, queues ...) are ignored here.
type Definitions struct {
	Users            []UserDef         `json:"users"`
	Permissions      []Permission      `json:"permissions"`
	TopicPermissions []TopicPermission `json:"topic_permissions"`
}

// UserDef is a user as a definitions file holds it: a plain password
// (Warren's extension, convenient for hand-written files) or RabbitMQ's
// password_hash with its hashing_algorithm.
type UserDef struct {
	Name             string `json:"name"`
	Password         string `json:"password,omitempty"`
	PasswordHash     string `json:"password_hash,omitempty"`
	HashingAlgorithm string `json:"hashing_algorithm,omitempty"`
	Tags             Tags   `json:"tags"`
}

// Tags are user tags; in JSON either a list or RabbitMQ's older
// comma-separated string.
type Tags []string

// UnmarshalJSON accepts ["a","b"] and "a,b".
func (t *Tags) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = SplitTags(s)
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("tags must be a string or a list of strings")
	}
	*t = cleanTags(l)
	return nil
}

// LoadFile imports the users and permissions of a definitions file (see
// Definitions) into the broker, replacing users of the same names.
func (s *Store) LoadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var d Definitions
	if err := json.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := s.Import(d); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// Import adds the users, then the permissions and topic permissions, of d,
// replacing those of the same names. Everything is checked before anything
// changes, so a bad entry leaves the broker as it was; the changes are
// then applied to the engine a bounded number per turn (inTurns).
func (s *Store) Import(d Definitions) error {
	users := make([]*user, 0, len(d.Users))
	for _, ud := range d.Users {
		u, err := ud.user()
		if err != nil {
			return err
		}
		nu, err := buildUser(u)
		if err != nil {
			return err
		}
		users = append(users, nu)
	}
	for _, pm := range d.Permissions {
		if _, err := buildPerm(pm); err != nil {
			return fmt.Errorf("permissions of %q on %q: %v", pm.User, pm.Vhost, err)
		}
	}
	for _, tp := range d.TopicPermissions {
		if err := checkTopic(tp); err != nil {
			return fmt.Errorf("topic permissions of %q on %q in %q: %v", tp.User, tp.Exchange, tp.Vhost, err)
		}
	}
	adding := make(map[string]bool, len(users))
	for _, u := range users {
		adding[u.name] = true
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	r := s.b.Reader(nil)
	checked := map[string]bool{}
	known := func(name string) bool {
		if adding[name] {
			return true
		}
		if ok, seen := checked[name]; seen {
			return ok
		}
		_, ok := r.User(name)
		checked[name] = ok
		return ok
	}
	for _, pm := range d.Permissions {
		if !known(pm.User) {
			return orReadErr(r, fmt.Errorf("permissions for unknown user %q", pm.User))
		}
	}
	for _, tp := range d.TopicPermissions {
		if !known(tp.User) {
			return orReadErr(r, fmt.Errorf("topic permissions for unknown user %q", tp.User))
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	// The engine checks what was checked above, and the writers' lock
	// keeps the Store's other writers (the only ones to delete a user)
	// out, so nothing below fails; if it did, what was applied would
	// stay, as in a definitions import.
	err := inTurns(s, len(users), func(i int) engine.Command { return engine.CmdPutUser{User: users[i].record()} },
		func(_ int, err error) error { return err },
		func(r reads, i int) { s.copyUser(r, users[i].name) })
	if err == nil {
		err = inTurns(s, len(d.Permissions), func(i int) engine.Command {
			return engine.CmdPutUserPermission{Permission: d.Permissions[i].record()}
		}, func(i int, err error) error {
			pm := d.Permissions[i]
			return fmt.Errorf("permissions of %q on %q: %v", pm.User, pm.Vhost, err)
		}, func(r reads, i int) { s.copyPerm(r, permKey{d.Permissions[i].User, d.Permissions[i].Vhost}) })
	}
	if err == nil {
		err = inTurns(s, len(d.TopicPermissions), func(i int) engine.Command {
			return engine.CmdPutTopicPermission{Permission: d.TopicPermissions[i].record()}
		}, func(i int, err error) error {
			tp := d.TopicPermissions[i]
			return fmt.Errorf("topic permissions of %q on %q in %q: %v", tp.User, tp.Exchange, tp.Vhost, err)
		}, func(r reads, i int) { s.copyTopics(r, d.TopicPermissions[i].User, d.TopicPermissions[i].Vhost) })
	}
	return err
}

// orReadErr is err, or the Reader's error (the broker stopped) if it has one:
// a user the Reader could not read is not unknown.
func orReadErr(r reads, err error) error {
	if rerr := r.Err(); rerr != nil {
		return rerr
	}
	return err
}

// importPerTurn bounds how many items an import applies in one turn of
// the engine (a few microseconds each), so that a file of 100,000 users
// never holds the broker for long.
const importPerTurn = 1000

// inTurns applies the commands of items 0..n-1, importPerTurn of them per
// Apply (a turn), copying each applied item into the Store after its
// turn, and stops at the first failure, which fail words. The items after
// the failing one in its turn were applied too (the engine applies a
// batch whole); they are copied, so the Store follows the engine.
func inTurns(s *Store, n int, cmd func(i int) engine.Command, fail func(i int, err error) error, copyItem func(r reads, i int)) error {
	cmds := make([]engine.Command, 0, min(n, importPerTurn))
	var res []engine.Result
	for start := 0; start < n; start += importPerTurn {
		end := min(n, start+importPerTurn)
		cmds = cmds[:0]
		for i := start; i < end; i++ {
			cmds = append(cmds, cmd(i))
		}
		var err error
		if res, err = s.b.Apply(cmds, res[:0]); err != nil {
			return err
		}
		r := s.b.Reader(nil)
		var failed error
		for i := start; i < end; i++ {
			if e := res[i-start].Err; e != nil {
				if failed == nil {
					failed = fail(i, e)
				}
				continue
			}
			copyItem(r, i)
		}
		if failed != nil {
			return failed
		}
		if err := r.Err(); err != nil {
			return err
		}
	}
	return nil
}

// user converts a definitions entry, hashing a plain password.
func (u UserDef) user() (User, error) {
	if u.Name == "" {
		return User{}, ErrInvalidUserName
	}
	if u.Password != "" && u.PasswordHash != "" {
		return User{}, fmt.Errorf("user %q has both password and password_hash", u.Name)
	}
	lu := User{Name: u.Name, Tags: u.Tags, PasswordHash: u.PasswordHash, HashingAlgorithm: u.HashingAlgorithm}
	if u.Password != "" {
		lu.PasswordHash, lu.HashingAlgorithm = HashPassword(u.Password), SHA256
	}
	return lu, nil
}
