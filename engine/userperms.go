package engine

import (
	"regexp"
	"sort"
)

// UserPermission is a user's permissions in one vhost (access-control.md,
// "How Permissions Work"): regular expressions over the names of the
// queues and exchanges the user may configure, write to and read from.
type UserPermission struct {
	User, Vhost            string
	Configure, Write, Read string
}

// UserTopicPermission is a user's topic permission on one exchange in one
// vhost (access-control.md, "Topic Authorisation"): regular expressions
// over the routing keys the user may publish with (Write) and bind with
// (Read), in which {username} and {vhost} stand for the connection's.
type UserTopicPermission struct {
	User, Vhost, Exchange string
	Write, Read           string
}

// checkPatterns refuses an expression that does not compile, as
// rabbitmqctl set_permissions and set_topic_permissions do. The empty
// expression is allowed: it means "^$".
func checkPatterns(exprs ...string) *Error {
	for _, expr := range exprs {
		if _, err := regexp.Compile(expr); err != nil {
			return &Error{Code: PreconditionFailed, Text: "PRECONDITION_FAILED - invalid regexp '" + expr + "': " + err.Error()}
		}
	}
	return nil
}

// putUserPermission applies CmdPutUserPermission (see PutUserPermission).
func (b *Broker) putUserPermission(p UserPermission) error {
	e, ok := b.userEntry(p.User)
	if !ok {
		return noUser(p.User)
	}
	if err := checkPatterns(p.Configure, p.Write, p.Read); err != nil {
		return err
	}
	if e.perms == nil {
		e.perms = map[string]UserPermission{}
	}
	e.perms[p.Vhost] = p
	b.regrant(p.User, p.Vhost)
	return nil
}

// clearUserPermission applies CmdClearUserPermission (see ClearUserPermission).
func (b *Broker) clearUserPermission(user, vhost string) error {
	e, ok := b.userEntry(user)
	if !ok {
		return noUser(user)
	}
	if _, ok := e.perms[vhost]; !ok {
		return &Error{Code: NotFound, Text: "NOT_FOUND - no permissions for user '" + user + "' in vhost '" + vhost + "'"}
	}
	delete(e.perms, vhost)
	b.regrant(user, vhost)
	return nil
}

// UserPermission returns a user's permissions in a vhost.
func (b *Broker) UserPermission(user, vhost string) (UserPermission, bool) {
	e, ok := b.userEntry(user)
	if !ok {
		return UserPermission{}, false
	}
	p, ok := e.perms[vhost]
	return p, ok
}

// UserPermissions lists every permission, by user and then vhost.
func (b *Broker) UserPermissions() []UserPermission {
	var out []UserPermission
	for _, name := range b.userNames() {
		e := b.users.byName[name]
		for _, v := range sortedKeys(e.perms) {
			out = append(out, e.perms[v])
		}
	}
	return out
}

// putTopicPermission applies CmdPutTopicPermission (see PutTopicPermission).
func (b *Broker) putTopicPermission(tp UserTopicPermission) error {
	e, ok := b.userEntry(tp.User)
	if !ok {
		return noUser(tp.User)
	}
	if err := checkPatterns(tp.Write, tp.Read); err != nil {
		return err
	}
	if e.topics == nil {
		e.topics = map[string]map[string]UserTopicPermission{}
	}
	if e.topics[tp.Vhost] == nil {
		e.topics[tp.Vhost] = map[string]UserTopicPermission{}
	}
	e.topics[tp.Vhost][tp.Exchange] = tp
	b.regrant(tp.User, tp.Vhost)
	return nil
}

// clearTopicPermissions applies CmdClearTopicPermissions (see ClearTopicPermissions).
func (b *Broker) clearTopicPermissions(user, vhost, exchange string) error {
	e, ok := b.userEntry(user)
	if !ok {
		return noUser(user)
	}
	byX, ok := e.topics[vhost]
	if !ok {
		return &Error{Code: NotFound, Text: "NOT_FOUND - no topic permissions for user '" + user + "' in vhost '" + vhost + "'"}
	}
	if exchange == "" {
		delete(e.topics, vhost)
	} else {
		delete(byX, exchange)
		if len(byX) == 0 {
			delete(e.topics, vhost)
		}
	}
	b.regrant(user, vhost)
	return nil
}

// UserTopicPermissions lists a user's topic permissions in a vhost, by
// exchange.
func (b *Broker) UserTopicPermissions(user, vhost string) []UserTopicPermission {
	e, ok := b.userEntry(user)
	if !ok {
		return nil
	}
	byX := e.topics[vhost]
	out := make([]UserTopicPermission, 0, len(byX))
	for _, x := range sortedKeys(byX) {
		out = append(out, byX[x])
	}
	return out
}

// TopicPermissions lists every topic permission, by user, vhost and
// exchange.
func (b *Broker) TopicPermissions() []UserTopicPermission {
	var out []UserTopicPermission
	for _, name := range b.userNames() {
		e := b.users.byName[name]
		for _, v := range sortedKeys(e.topics) {
			out = append(out, b.UserTopicPermissions(name, v)...)
		}
	}
	return out
}

// dropVhostPermissions deletes every permission and topic permission in a
// vhost being deleted, as RabbitMQ's vhost deletion does
// (rabbit_vhost:delete/2 clears the vhost's permissions). The vhost's
// connections are closed by its deletion, so no grants change.
func (b *Broker) dropVhostPermissions(vhost string) {
	for _, e := range b.users.byName {
		delete(e.perms, vhost)
		delete(e.topics, vhost)
	}
}

// UserGrants are the Permissions a connection of user's to vhost is
// checked against: the user's permissions there (none: nothing is
// granted), their topic permissions there, and their impersonator tag.
// It is never nil, which would grant everything.
func (b *Broker) UserGrants(user, vhost string) *Permissions {
	g := &Permissions{}
	e, ok := b.userEntry(user)
	if !ok {
		return g
	}
	if p, ok := e.perms[vhost]; ok {
		g.Configure, g.Write, g.Read = p.Configure, p.Write, p.Read
	}
	for _, tp := range b.UserTopicPermissions(user, vhost) {
		g.Topics = append(g.Topics, TopicPermission{Exchange: tp.Exchange, Write: tp.Write, Read: tp.Read})
	}
	g.Impersonator = hasTag(e.rec.Tags, tagImpersonator)
	return g
}

// regrant hands the user's open connections to vhost their current grants.
func (b *Broker) regrant(user, vhost string) {
	b.SetPermissions(user, vhost, b.UserGrants(user, vhost))
}

// regrantUser hands each of the user's open connections their current
// grants in its vhost (a change of tags changes Impersonator).
func (b *Broker) regrantUser(e *userEntry) {
	vhosts := map[string]bool{}
	for _, c := range b.conns {
		if c.user == e.rec.Name && c.grants != nil {
			vhosts[c.vhost.name] = true
		}
	}
	for _, v := range sortedKeys(vhosts) {
		b.regrant(e.rec.Name, v)
	}
}

// sortedKeys lists a map's string keys in sorted order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
