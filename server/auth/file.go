package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

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
// applied to the engine in one broker.Do.
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
	return s.do(func(e *engine.Broker) error {
		known := func(name string) bool {
			_, existing := e.User(name)
			return existing || slices.ContainsFunc(users, func(u *user) bool { return u.name == name })
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
		// Nothing below fails: the engine checks what was checked above.
		for _, u := range users {
			if err := e.PutUser(u.record()); err != nil {
				return err
			}
			s.copyUser(e, u.name)
		}
		for _, pm := range d.Permissions {
			if err := e.PutUserPermission(pm.record()); err != nil {
				return err
			}
			s.copyPerm(e, permKey{pm.User, pm.Vhost})
		}
		for _, tp := range d.TopicPermissions {
			if err := e.PutTopicPermission(tp.record()); err != nil {
				return err
			}
			s.copyTopics(e, tp.User, tp.Vhost)
		}
		return nil
	})
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
