package mgmt

import (
	"net"
	"net/http"

	"warren/server/auth"
)

// The user tags that matter to the management API (access-control.md,
// "How to Set Up Management Users"): management sees and changes what its
// vhosts hold; policymaker may also set policies; monitoring sees every
// vhost and connection; administrator may do anything.
const (
	tagAdministrator = "administrator"
	tagMonitoring    = "monitoring"
	tagPolicymaker   = "policymaker"
	tagManagement    = "management"
)

// authenticate checks HTTP basic auth. No credentials at all is a 401 with
// an empty body (and the WWW-Authenticate challenge); wrong ones are
// RabbitMQ's "Login failed"; a user without a management tag is refused.
func (a *api) authenticate(r *http.Request) (auth.User, *apiError) {
	name, pass, ok := r.BasicAuth()
	if !ok {
		return auth.User{}, &apiError{status: http.StatusUnauthorized}
	}
	u, ok := a.users.Authenticate(name, pass)
	if !ok {
		return auth.User{}, errLoginFailed
	}
	if a.users.LoopbackOnly(name) && !loopback(r.RemoteAddr) {
		return auth.User{}, errLoopbackOnly
	}
	for _, t := range []string{tagAdministrator, tagMonitoring, tagPolicymaker, tagManagement} {
		if u.HasTag(t) {
			return u, nil
		}
	}
	return auth.User{}, errNotManagement
}

func loopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *call) isAdmin() bool { return c.user.HasTag(tagAdministrator) }

// seesAll reports whether the user sees every vhost's objects.
func (c *call) seesAll() bool { return c.isAdmin() || c.user.HasTag(tagMonitoring) }

// requireAdmin guards users, permissions, vhosts and definitions.
func (c *call) requireAdmin() error {
	if !c.isAdmin() {
		return errNotAdmin
	}
	return nil
}

// canSee reports whether objects in vhost are listed for the user.
func (c *call) canSee(vhost string) bool {
	return c.seesAll() || c.api.users.CanAccessVhost(c.user.Name, vhost)
}

// requireSee guards reads of one vhost's objects.
func (c *call) requireSee(vhost string) error {
	if !c.canSee(vhost) {
		return errNoVhostAccess
	}
	return nil
}

// requireWrite guards changes in a vhost: the user needs permissions there,
// whatever its tags, as RabbitMQ checks vhost access for every change.
func (c *call) requireWrite(vhost string) error {
	if !c.api.users.CanAccessVhost(c.user.Name, vhost) {
		return errNoVhostAccess
	}
	return nil
}

// writeTo checks that vhost exists (404) and
// that the user may change things in it (401). A missing vhost is 404
// before any access check, as rabbit_mgmt_util:is_authorized_vhost lets a
// request for a vhost that does not exist through to resource_exists.
func (c *call) writeTo(s *session, vhost string) error {
	if !s.hasVhost(vhost) {
		return errNotFound
	}
	return c.requireWrite(vhost)
}

// requirePolicyTags guards policy changes: policymaker or administrator
// for policies, administrator for operator policies.
func (c *call) requirePolicyTags(operator bool) error {
	if operator {
		return c.requireAdmin()
	}
	if !c.isAdmin() && !c.user.HasTag(tagPolicymaker) {
		return errNoObjAccess
	}
	return nil
}
