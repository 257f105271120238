package vhostrole

import (
	"slices"

	"warren/server/auth"
)

// authCopy is what the directory (the object of "/") hands a vhost's
// object after every change of users or permissions: every user, with
// their password hash and tags, and the permissions and topic
// permissions in that vhost. A vhost's object checks logins and rights
// against its copy, with the same code as warren serve; changing the
// copy changes the engine, which takes an open connection's rights up
// at once and closes a deleted user's connections (320), as RabbitMQ
// does.
type authCopy struct {
	Users            []auth.User            `json:"users"`
	Permissions      []auth.Permission      `json:"permissions"`
	TopicPermissions []auth.TopicPermission `json:"topic_permissions"`
}

// copyFor is the directory's copy for vhost.
func copyFor(users *auth.Store, vhost string) authCopy {
	c := authCopy{Users: users.Users(), Permissions: []auth.Permission{}, TopicPermissions: []auth.TopicPermission{}}
	for _, p := range users.Permissions() {
		if p.Vhost == vhost {
			c.Permissions = append(c.Permissions, p)
		}
	}
	for _, tp := range users.TopicPermissions() {
		if tp.Vhost == vhost {
			c.TopicPermissions = append(c.TopicPermissions, tp)
		}
	}
	return c
}

// applyCopy makes users (a vhost object's) hold what c holds, changing
// only what differs: users put or deleted, permissions set or cleared.
func applyCopy(users *auth.Store, c authCopy) error {
	want := map[string]auth.User{}
	for _, u := range c.Users {
		want[u.Name] = u
	}
	have := map[string]auth.User{}
	for _, u := range users.Users() {
		have[u.Name] = u
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			if err := users.DeleteUser(name); err != nil {
				return err
			}
		}
	}
	for _, u := range c.Users {
		if h, ok := have[u.Name]; ok && h.PasswordHash == u.PasswordHash && h.HashingAlgorithm == u.HashingAlgorithm && slices.Equal(h.Tags, u.Tags) {
			continue
		}
		if err := users.PutUser(u); err != nil {
			return err
		}
	}
	wantPerm := map[[2]string]auth.Permission{}
	for _, p := range c.Permissions {
		wantPerm[[2]string{p.User, p.Vhost}] = p
	}
	for _, p := range users.Permissions() {
		if _, ok := wantPerm[[2]string{p.User, p.Vhost}]; !ok {
			if err := users.ClearPermissions(p.User, p.Vhost); err != nil {
				return err
			}
		}
	}
	for _, p := range users.Permissions() {
		if w, ok := wantPerm[[2]string{p.User, p.Vhost}]; ok && w == p {
			delete(wantPerm, [2]string{p.User, p.Vhost})
		}
	}
	for _, p := range c.Permissions {
		if _, ok := wantPerm[[2]string{p.User, p.Vhost}]; !ok {
			continue
		}
		if err := users.SetPermissions(p.User, p.Vhost, p.Configure, p.Write, p.Read); err != nil {
			return err
		}
	}
	wantTopic := map[[3]string]auth.TopicPermission{}
	for _, tp := range c.TopicPermissions {
		wantTopic[[3]string{tp.User, tp.Vhost, tp.Exchange}] = tp
	}
	for _, tp := range users.TopicPermissions() {
		k := [3]string{tp.User, tp.Vhost, tp.Exchange}
		if w, ok := wantTopic[k]; !ok {
			if err := users.ClearTopicPermissions(tp.User, tp.Vhost, tp.Exchange); err != nil {
				return err
			}
		} else if w == tp {
			delete(wantTopic, k)
		}
	}
	for _, tp := range c.TopicPermissions {
		if _, ok := wantTopic[[3]string{tp.User, tp.Vhost, tp.Exchange}]; ok {
			if err := users.SetTopicPermissions(tp); err != nil {
				return err
			}
		}
	}
	return nil
}
