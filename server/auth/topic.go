package auth

import (
	"fmt"
	"regexp"
	"sort"

	"warren/engine"
)

// TopicPermission is a user's topic permission on one exchange in one vhost
// (access-control.md, "Topic Authorisation"): regular expressions over the
// routing keys the user may publish with (write) and bind with (read) on
// that topic exchange, in which {username} and {vhost} stand for the
// connection's. The JSON names are those of RabbitMQ's definitions and
// management API.
type TopicPermission struct {
	User     string `json:"user"`
	Vhost    string `json:"vhost"`
	Exchange string `json:"exchange"`
	Write    string `json:"write"`
	Read     string `json:"read"`
}

// checkTopic compiles a topic permission's expressions, as
// rabbitmqctl set_topic_permissions refuses an invalid one.
func checkTopic(tp TopicPermission) error {
	for _, expr := range []string{tp.Write, tp.Read} {
		if _, err := regexp.Compile(expr); err != nil {
			return fmt.Errorf("invalid regexp %q: %v", expr, err)
		}
	}
	return nil
}

// SetTopicPermissions sets a user's topic permission on exchange in vhost,
// replacing any for that exchange. The user must exist and both
// expressions must compile; as for SetPermissions, the vhost's existence
// is the caller's to check.
func (s *Store) SetTopicPermissions(tp TopicPermission) error {
	if err := checkTopic(tp); err != nil {
		return err
	}
	return s.write(engine.CmdPutTopicPermission{Permission: tp.record()}, ErrNoUser, func(r reads) { s.copyTopics(r, tp.User, tp.Vhost) })
}

// ClearTopicPermissions removes a user's topic permissions in vhost: the
// one on exchange, or with exchange "" all of them. It is ErrNoPermission
// when the user has none in vhost.
func (s *Store) ClearTopicPermissions(user, vhost, exchange string) error {
	return s.write(engine.CmdClearTopicPermissions{User: user, Vhost: vhost, Exchange: exchange}, ErrNoPermission,
		func(r reads) { s.copyTopics(r, user, vhost) })
}

// TopicPermissions lists every topic permission, by vhost, user and
// exchange (RabbitMQ's listings sort by vhost and user).
func (s *Store) TopicPermissions() []TopicPermission {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []TopicPermission{}
	for _, tps := range s.topics {
		out = append(out, tps...)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Vhost != b.Vhost {
			return a.Vhost < b.Vhost
		}
		if a.User != b.User {
			return a.User < b.User
		}
		return a.Exchange < b.Exchange
	})
	return out
}
