package mgmt

import (
	"errors"
	"net/http"
	"strings"

	"warren/server/auth"
	"warren/server/broker"
)

// Topic permissions (access-control.md, "Topic Authorisation"), managed as
// RabbitMQ's management API does: every endpoint is for administrators.

// vhostTopicPermission is a topic permission as /api/vhosts/{vhost}/
// topic-permissions lists it, vhost first (observed, RabbitMQ 3.10.8).
type vhostTopicPermission struct {
	Vhost    string `json:"vhost"`
	User     string `json:"user"`
	Exchange string `json:"exchange"`
	Write    string `json:"write"`
	Read     string `json:"read"`
}

// topicPermissionsWhere lists the topic permissions keep selects.
func (a *api) topicPermissionsWhere(keep func(tp auth.TopicPermission) bool) []auth.TopicPermission {
	out := []auth.TopicPermission{}
	for _, tp := range a.users.TopicPermissions() {
		if keep(tp) {
			out = append(out, tp)
		}
	}
	return out
}

// listTopicPermissions is GET /api/topic-permissions.
func (a *api) listTopicPermissions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.users.TopicPermissions(), nil
}

// userTopicPermissions is GET /api/users/{user}/topic-permissions; an
// unknown user is 404.
func (a *api) userTopicPermissions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	user, err := a.pathUser(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.topicPermissionsWhere(func(tp auth.TopicPermission) bool { return tp.User == user }), nil
}

// vhostTopicPermissions is GET /api/vhosts/{vhost}/topic-permissions; an
// unknown vhost is 404.
func (a *api) vhostTopicPermissions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	vhost, err := a.pathVhostFound(c)
	if err != nil {
		return 0, nil, err
	}
	out := []vhostTopicPermission{}
	for _, tp := range a.topicPermissionsWhere(func(tp auth.TopicPermission) bool { return tp.Vhost == vhost }) {
		out = append(out, vhostTopicPermission{Vhost: tp.Vhost, User: tp.User, Exchange: tp.Exchange, Write: tp.Write, Read: tp.Read})
	}
	return http.StatusOK, out, nil
}

// userVhostTopics returns the user's topic permissions in the path's vhost,
// and false when the user or the vhost does not exist.
func (a *api) userVhostTopics(c *call) ([]auth.TopicPermission, bool, error) {
	vhost, user := c.r.PathValue("vhost"), c.r.PathValue("user")
	if _, ok := a.users.User(user); !ok {
		return nil, false, nil
	}
	ok, err := a.vhostExists(vhost)
	if err != nil || !ok {
		return nil, false, err
	}
	return a.topicPermissionsWhere(func(tp auth.TopicPermission) bool { return tp.User == user && tp.Vhost == vhost }), true, nil
}

// getTopicPermission is GET /api/topic-permissions/{vhost}/{user}[/{exchange}]:
// the user's topic permissions in vhost (all of them, even with an
// exchange in the path, as RabbitMQ answers); none is 404.
func (a *api) getTopicPermission(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	tps, _, err := a.userVhostTopics(c)
	if err != nil {
		return 0, nil, err
	}
	if len(tps) == 0 {
		return 0, nil, errNotFound
	}
	return http.StatusOK, tps, nil
}

// putTopicPermission is PUT /api/topic-permissions/{vhost}/{user} with
// exchange, write and read, all required: 201 when the user had no topic
// permission in the vhost yet, 204 otherwise. An unknown vhost or user is
// 400 "vhost_or_user_not_found".
func (a *api) putTopicPermission(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	tps, found, err := a.userVhostTopics(c)
	if err != nil {
		return 0, nil, err
	}
	if !found {
		return 0, nil, badRequest("vhost_or_user_not_found")
	}
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	keys := []string{"exchange", "write", "read"}
	var missing []string
	for _, k := range keys {
		if _, ok := b[k]; !ok {
			missing = append(missing, "{key_missing,"+k+"}")
		}
	}
	if len(missing) > 0 {
		return 0, nil, badRequest("[" + strings.Join(missing, ",") + "]")
	}
	var vals [3]string
	for i, k := range keys {
		if vals[i], err = b.str(k, ""); err != nil {
			return 0, nil, err
		}
	}
	tp := auth.TopicPermission{User: c.r.PathValue("user"), Vhost: c.r.PathValue("vhost"), Exchange: vals[0], Write: vals[1], Read: vals[2]}
	if err := a.users.SetTopicPermissions(tp); err != nil {
		if errors.Is(err, auth.ErrNoUser) {
			return 0, nil, badRequest("vhost_or_user_not_found")
		}
		return 0, nil, usersErr(err, badRequest(err.Error()))
	}
	if len(tps) > 0 {
		return http.StatusNoContent, nil, nil
	}
	return http.StatusCreated, nil, nil
}

// deleteTopicPermission is DELETE /api/topic-permissions/{vhost}/{user}
// (all the user's topic permissions in vhost) or .../{exchange} (that
// exchange's, succeeding even if there is none); 404 when the user has
// none in vhost.
func (a *api) deleteTopicPermission(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	tps, _, err := a.userVhostTopics(c)
	if err != nil {
		return 0, nil, err
	}
	if len(tps) == 0 {
		return 0, nil, errNotFound
	}
	user, vhost := c.r.PathValue("user"), c.r.PathValue("vhost")
	if err := a.users.ClearTopicPermissions(user, vhost, c.r.PathValue("exchange")); errors.Is(err, broker.ErrStopped) {
		return 0, nil, errUnavailable
	}
	return http.StatusNoContent, nil, nil
}
