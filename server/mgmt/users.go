package mgmt

import (
	"errors"
	"net/http"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// Users and permissions are the engine's, and auth.Store applies every
// change to the engine, which hands the user's open connections their new
// permissions in the same command (RabbitMQ checks each operation against
// the user's current permissions). The handlers only read the Store and
// call its writers.

// usersErr is the reply for an error of the auth.Store's writers: 503
// when the broker has stopped, otherwise the endpoint's own.
func usersErr(err error, otherwise error) error {
	if errors.Is(err, broker.ErrStopped) {
		return errUnavailable
	}
	return otherwise
}

type userJSON struct {
	Name             string         `json:"name"`
	PasswordHash     string         `json:"password_hash"`
	HashingAlgorithm string         `json:"hashing_algorithm"`
	Tags             []string       `json:"tags"`
	Limits           map[string]any `json:"limits"`
}

func toUserJSON(u auth.User) userJSON {
	return userJSON{Name: u.Name, PasswordHash: u.PasswordHash, HashingAlgorithm: u.HashingAlgorithm, Tags: u.Tags, Limits: map[string]any{}}
}

func (a *api) listUsers(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	users := a.users.Users()
	out := make([]userJSON, 0, len(users))
	for _, u := range users {
		out = append(out, toUserJSON(u))
	}
	return http.StatusOK, out, nil
}

func (a *api) getUser(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	u, ok := a.users.User(c.r.PathValue("user"))
	if !ok {
		return 0, nil, errNotFound
	}
	return http.StatusOK, toUserJSON(u), nil
}

// putUser is PUT /api/users/{user} with {"password": ..} or
// {"password_hash": .., "hashing_algorithm": ..} and "tags" (required: a
// list or a comma-separated string). Without either password field the
// user gets no password, as in RabbitMQ 3.10.8, where it then cannot log
// in with one.
func (a *api) putUser(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	name := c.r.PathValue("user")
	if e := checkName("user", name); e != nil {
		return 0, nil, e
	}
	var tags []string
	switch t := b["tags"].(type) {
	case nil:
		return 0, nil, badRequest("tags_not_present")
	case string:
		tags = auth.SplitTags(t)
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return 0, nil, badRequest("tags must be strings")
			}
			tags = append(tags, s)
		}
	default:
		return 0, nil, badRequest("tags must be a string or a list")
	}
	password, err := b.str("password", "")
	if err != nil {
		return 0, nil, err
	}
	u := auth.User{Name: name, Tags: tags}
	if password != "" {
		u.PasswordHash, u.HashingAlgorithm = auth.HashPassword(password), auth.SHA256
	} else {
		if u.PasswordHash, err = b.str("password_hash", ""); err != nil {
			return 0, nil, err
		}
		if u.HashingAlgorithm, err = b.str("hashing_algorithm", auth.SHA256); err != nil {
			return 0, nil, err
		}
	}
	_, existed := a.users.User(name)
	if err := a.users.PutUser(u); err != nil {
		return 0, nil, usersErr(err, badRequest(err.Error()))
	}
	if existed {
		return http.StatusNoContent, nil, nil
	}
	return http.StatusCreated, nil, nil
}

func (a *api) deleteUser(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	user := c.r.PathValue("user")
	if err := a.users.DeleteUser(user); err != nil {
		return 0, nil, usersErr(err, errNotFound)
	}
	// RabbitMQ closes a deleted user's connections (observed, 3.10.8).
	err := a.doUnchecked("", func(s *session) error {
		_, err := s.apply(engine.CmdForceCloseUserConnections{User: user, Reason: "user '" + user + "' is deleted"})
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

func (a *api) listPermissions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.users.Permissions(), nil
}

// userPermissions is GET /api/users/{user}/permissions: the user's
// permissions in every vhost; an unknown user is 404.
func (a *api) userPermissions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	user, err := a.pathUser(c)
	if err != nil {
		return 0, nil, err
	}
	out := []auth.Permission{}
	for _, p := range a.users.Permissions() {
		if p.User == user {
			out = append(out, p)
		}
	}
	return http.StatusOK, out, nil
}

// vhostPermission is a permission as /api/vhosts/{vhost}/permissions
// lists it: RabbitMQ puts the vhost first there.
type vhostPermission struct {
	Vhost     string `json:"vhost"`
	User      string `json:"user"`
	Configure string `json:"configure"`
	Write     string `json:"write"`
	Read      string `json:"read"`
}

// vhostPermissions is GET /api/vhosts/{vhost}/permissions: every user's
// permissions in the vhost; an unknown vhost is 404.
func (a *api) vhostPermissions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	vhost, err := a.pathVhostFound(c)
	if err != nil {
		return 0, nil, err
	}
	out := []vhostPermission{}
	for _, p := range a.users.Permissions() {
		if p.Vhost == vhost {
			out = append(out, vhostPermission{Vhost: p.Vhost, User: p.User, Configure: p.Configure, Write: p.Write, Read: p.Read})
		}
	}
	return http.StatusOK, out, nil
}

func (a *api) findPermission(vhost, user string) (auth.Permission, bool) {
	for _, p := range a.users.Permissions() {
		if p.Vhost == vhost && p.User == user {
			return p, true
		}
	}
	return auth.Permission{}, false
}

func (a *api) getPermission(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	p, ok := a.findPermission(c.r.PathValue("vhost"), c.r.PathValue("user"))
	if !ok {
		return 0, nil, errNotFound
	}
	return http.StatusOK, p, nil
}

// putPermission is PUT /api/permissions/{vhost}/{user} with configure,
// write and read, all required. An unknown vhost or user is RabbitMQ's 400
// "vhost_or_user_not_found".
func (a *api) putPermission(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	var exprs [3]string
	for i, k := range []string{"configure", "write", "read"} {
		if _, ok := b[k]; !ok {
			return 0, nil, keyMissing(k)
		}
		if exprs[i], err = b.str(k, ""); err != nil {
			return 0, nil, err
		}
	}
	vhost, user := c.r.PathValue("vhost"), c.r.PathValue("user")
	vhostExists, err := a.vhostExists(vhost)
	if err != nil {
		return 0, nil, err
	}
	if _, ok := a.users.User(user); !ok || !vhostExists {
		return 0, nil, badRequest("vhost_or_user_not_found")
	}
	_, existed := a.findPermission(vhost, user)
	if err := a.users.SetPermissions(user, vhost, exprs[0], exprs[1], exprs[2]); err != nil {
		if errors.Is(err, auth.ErrNoUser) {
			return 0, nil, badRequest("vhost_or_user_not_found")
		}
		return 0, nil, usersErr(err, badRequest(err.Error()))
	}
	if existed {
		return http.StatusNoContent, nil, nil
	}
	return http.StatusCreated, nil, nil
}

func (a *api) deletePermission(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	user, vhost := c.r.PathValue("user"), c.r.PathValue("vhost")
	if err := a.users.ClearPermissions(user, vhost); err != nil {
		return 0, nil, usersErr(err, errNotFound)
	}
	return http.StatusNoContent, nil, nil
}

// pathUser is the path's {user}; an unknown user is 404.
func (a *api) pathUser(c *call) (string, error) {
	user := c.r.PathValue("user")
	if _, ok := a.users.User(user); !ok {
		return "", errNotFound
	}
	return user, nil
}

// pathVhostFound is the path's {vhost}; an unknown vhost is 404.
func (a *api) pathVhostFound(c *call) (string, error) {
	vhost := c.r.PathValue("vhost")
	ok, err := a.vhostExists(vhost)
	if err == nil && !ok {
		err = errNotFound
	}
	return vhost, err
}

// vhostExists reports whether the engine has vhost.
func (a *api) vhostExists(vhost string) (bool, error) {
	ok := false
	err := a.doUnchecked("", func(s *session) error {
		ok = s.hasVhost(vhost)
		return nil
	})
	return ok, err
}
