package engine

import (
	"regexp"
	"strings"
)

// Permissions are what a connection's user may do in its vhost, as
// RabbitMQ's internal authorisation backend holds them (access-control.md,
// "How Permissions Work"): "Permissions are expressed as a triple of
// regular expressions — one each for configure, write and read — on a
// per-vhost basis. The user is granted the respective permission for
// operations on all resources with names matching the regular
// expressions."
//
// The driver gives them at OpenConnection and the engine keeps them for the
// connection's life, as the guide allows: "RabbitMQ may cache the results
// of access control checks on a per-connection or per-channel basis. Hence
// changes to user permissions may only take effect when the user
// reconnects." A nil *Permissions grants everything and checks no user-id,
// like RabbitMQ's dummy backend: the script language, the playground and
// the driver's own internal connections use it.
type Permissions struct {
	// Configure, Write and Read are regular expressions over queue and
	// exchange names. "The empty string, '' is a synonym for '^$'"; an
	// expression that does not compile grants nothing (RabbitMQ denies on
	// a regular expression error).
	Configure, Write, Read string
	// Topics are the user's topic permissions in the vhost, at most one
	// per exchange.
	Topics []TopicPermission
	// Impersonator is the user's impersonator tag: such a user may publish
	// with a user-id property naming someone else.
	Impersonator bool
}

// TopicPermission is a topic permission (access-control.md, "Topic
// Authorisation"): regular expressions over the routing keys a user may
// publish with (Write) and bind with (Read) on one topic exchange. The
// variables {username} and {vhost} in them are replaced by the
// connection's user and vhost.
type TopicPermission struct {
	Exchange    string
	Write, Read string
}

// access is the kind of right an operation needs: "The configure
// operations create or destroy resources, or alter their behaviour. The
// write operations inject messages into a resource. And the read
// operations retrieve messages from a resource."
type access uint8

const (
	accessConfigure access = iota
	accessWrite
	accessRead
)

// grants are a connection's compiled Permissions. A nil regexp (one that
// did not compile) matches nothing.
type grants struct {
	re           [3]*regexp.Regexp // by access
	topics       map[string]*topicGrant
	impersonator bool
	// perms is what was compiled, kept for Save (save.go).
	perms Permissions
}

// topicGrant is one exchange's compiled topic permission, by access
// (write, read; configure unused).
type topicGrant struct {
	re [3]*regexp.Regexp
}

// compileGrants compiles p for user in vhost; nil stays nil (unrestricted).
func compileGrants(p *Permissions, user, vhost string) *grants {
	if p == nil {
		return nil
	}
	g := &grants{impersonator: p.Impersonator, perms: *p}
	g.perms.Topics = append([]TopicPermission(nil), p.Topics...)
	for a, expr := range [3]string{p.Configure, p.Write, p.Read} {
		g.re[a] = compilePattern(expr)
	}
	// rabbit_auth_backend_internal:expand_topic_permission/2 quotes the
	// values it substitutes, so a user name is matched literally.
	vars := strings.NewReplacer("{username}", regexp.QuoteMeta(user), "{vhost}", regexp.QuoteMeta(vhost))
	for _, t := range p.Topics {
		if g.topics == nil {
			g.topics = map[string]*topicGrant{}
		}
		tg := &topicGrant{}
		tg.re[accessWrite] = compilePattern(vars.Replace(t.Write))
		tg.re[accessRead] = compilePattern(vars.Replace(t.Read))
		g.topics[t.Exchange] = tg
	}
	return g
}

func compilePattern(expr string) *regexp.Regexp {
	if expr == "" {
		expr = "^$"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	return re
}

func matches(re *regexp.Regexp, s string) bool { return re != nil && re.MatchString(s) }

// permitted checks access a to the queue or exchange called name: nil, or
// RabbitMQ's 403 ACCESS_REFUSED channel error for method m. "For
// convenience RabbitMQ maps AMQP 0-9-1's default exchange's blank name to
// 'amq.default' when performing permission checks."
func (c *connection) permitted(a access, kind, name string, m Method) *Error {
	if c.grants == nil {
		return nil
	}
	if kind == "exchange" && name == "" {
		name = "amq.default"
	}
	if matches(c.grants.re[a], name) {
		return nil
	}
	// rabbit_access_control:check_resource_access/4 as of 3.10.8: the
	// text does not say which permission was missing (4.x's does; the
	// documentation gives neither, so the observed 3.10.8 text decides).
	return channelErr(AccessRefused, m, "access to %s refused for user '%s'", rs(kind, name, c.vhost.name), c.user)
}

// topicGrant returns the topic permission that applies to publishing to or
// binding from x, or nil when none does: only topic exchanges are checked,
// and "publishing to a topic exchange or consuming from a topic is always
// authorised if no topic permissions are defined".
func (c *connection) topicGrant(x *exchange) *topicGrant {
	if c.grants == nil || c.grants.topics == nil || x.kind != KindTopic {
		return nil
	}
	return c.grants.topics[x.name]
}

// permittedTopic checks access a to routing key key on topic exchange x:
// rabbit_channel checks write on every routing key of a publish (CC and
// BCC included) and read on a binding's key.
func (c *connection) permittedTopic(tg *topicGrant, a access, x *exchange, key string, m Method) *Error {
	if tg == nil || matches(tg.re[a], key) {
		return nil
	}
	// rabbit_topic_permission's text as of 3.10.8, which, like the
	// resource check's, does not name the permission.
	return channelErr(AccessRefused, m, "access to topic '%s' in exchange '%s' in vhost '%s' refused for user '%s'",
		key, x.name, c.vhost.name, c.user)
}

// checkUserID is RabbitMQ's validated user-id (validated-user-id.md): "if
// this property is set by a publisher, its value must be equal to the name
// of the connection's user. If the user-id property is not set, the
// publisher's identity remains private and no validation will be
// performed." A user tagged impersonator may set any (rabbit_access_control:
// check_user_id/2). A user-id present but empty is set, and refused
// (observed, RabbitMQ 3.10.8: guest publishing user_id "" gets 406, the
// text naming the empty user_id and guest).
func (c *connection) checkUserID(p *Properties) *Error {
	if c.grants == nil || p == nil || (p.UserID == "" && p.Present&FlagUserID == 0) || p.UserID == c.user || c.grants.impersonator {
		return nil
	}
	return channelErr(PreconditionFailed, MethodBasicPublish, "user_id property set to '%s' but authenticated user was '%s'", p.UserID, c.user)
}

func (b *Broker) setPermissions(user, vhost string, p *Permissions) {
	for _, c := range b.conns {
		if c.user != user || c.vhost.name != vhost || c.grants == nil {
			continue
		}
		c.grants = compileGrants(p, user, vhost)
		for _, ch := range c.channels {
			ch.pubX, ch.pubTopic = nil, nil
		}
	}
}
