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
	err := s.do(func(e *engine.Broker) error {
		known := func(name string) bool {
			_, existing := e.User(name)
			return existing || adding[name]
		}
		for _, pm := range d.Permissions {
			if !known(pm.User) {
				return fmt.Errorf("permissions for unknown user %q", pm.User)
			}
		}
		for _, tp := range d.TopicPermissions {
			if !known(tp.User) {
				return fmt.Errorf("topic permissions for unknown user %q", tp.User)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The engine checks what was checked above, so nothing below fails
	// unless a user is deleted meanwhile; then what was applied stays, as
	// in a definitions import.
	err = inTurns(s, len(users), func(e *engine.Broker, i int) error {
		if err := e.PutUser(users[i].record()); err != nil {
			return err
		}
		s.copyUser(e, users[i].name)
		return nil
	})
	if err == nil {
		err = inTurns(s, len(d.Permissions), func(e *engine.Broker, i int) error {
			pm := d.Permissions[i]
			if err := e.PutUserPermission(pm.record()); err != nil {
				return fmt.Errorf("permissions of %q on %q: %v", pm.User, pm.Vhost, err)
			}
			s.copyPerm(e, permKey{pm.User, pm.Vhost})
			return nil
		})
	}
	if err == nil {
		err = inTurns(s, len(d.TopicPermissions), func(e *engine.Broker, i int) error {
			tp := d.TopicPermissions[i]
			if err := e.PutTopicPermission(tp.record()); err != nil {
				return fmt.Errorf("topic permissions of %q on %q in %q: %v", tp.User, tp.Exchange, tp.Vhost, err)
			}
			s.copyTopics(e, tp.User, tp.Vhost)
			return nil
		})
	}
	return err
}

// importPerTurn bounds how many items an import applies in one turn of
// the broker goroutine (a few microseconds each), so that a file of
// 100,000 users never holds the broker for long.
const importPerTurn = 1000

// inTurns applies items 0..n-1 with apply, importPerTurn of them per turn
// of the broker goroutine, and stops at the first error.
func inTurns(s *Store, n int, apply func(e *engine.Broker, i int) error) error {
	for start := 0; start < n; start += importPerTurn {
		err := s.do(func(e *engine.Broker) error {
			for i := start; i < min(n, start+importPerTurn); i++ {
				if err := apply(e, i); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
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
