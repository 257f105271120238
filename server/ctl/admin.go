package ctl

import (
	"errors"
	"fmt"
	"net/http"
)

func runAddVhost(e *env) int {
	name := e.args[0]
	e.info("Adding vhost %s ...", quoted(name))
	if _, err := e.c.do("PUT", path("vhosts", name), map[string]any{}); err != nil {
		return e.failed(err)
	}
	return exitOK
}

func runDeleteVhost(e *env) int {
	name := e.args[0]
	e.info("Deleting vhost %s ...", quoted(name))
	_, err := e.c.do("DELETE", path("vhosts", name), nil)
	if isStatus(err, http.StatusNotFound) {
		fmt.Fprintf(e.stderr, "Virtual host '%s' does not exist\n", name)
		return exitDataErr
	}
	if err != nil {
		return e.failed(err)
	}
	return exitOK
}

// runAddUser is add_user: a new user with no tags; an existing one is an
// error, unlike the API's PUT, which replaces.
func runAddUser(e *env) int {
	name, password := e.args[0], e.args[1]
	e.info("Adding user %s ...", quoted(name))
	_, err := e.c.do("GET", path("users", name), nil)
	if err == nil {
		return e.fail(exitSoftware, fmt.Sprintf("User %s already exists", quoted(name)))
	}
	if !isStatus(err, http.StatusNotFound) {
		return e.failed(err)
	}
	if _, err := e.c.do("PUT", path("users", name), map[string]any{"password": password, "tags": ""}); err != nil {
		return e.failed(err)
	}
	e.info("Done. Don't forget to grant the user permissions to some virtual hosts! See 'warren ctl help set_permissions' to learn more.")
	return exitOK
}

func runDeleteUser(e *env) int {
	name := e.args[0]
	e.info("Deleting user %s ...", quoted(name))
	_, err := e.c.do("DELETE", path("users", name), nil)
	if isStatus(err, http.StatusNotFound) {
		return e.fail(exitNoUser, fmt.Sprintf("User %s does not exist", quoted(name)))
	}
	if err != nil {
		return e.failed(err)
	}
	return exitOK
}

// runSetPermissions is set_permissions. The API answers an unknown user or
// vhost alike, so the user is looked up first to word the error as
// rabbitmqctl does.
func runSetPermissions(e *env) int {
	user, vhost := e.args[0], e.opts.vhost
	e.info("Setting permissions for user %s in vhost %s ...", quoted(user), quoted(vhost))
	if _, err := e.c.do("GET", path("users", user), nil); err != nil {
		if isStatus(err, http.StatusNotFound) {
			return e.fail(exitNoUser, "User "+user+" does not exist")
		}
		return e.failed(err)
	}
	body := map[string]string{"configure": e.args[1], "write": e.args[2], "read": e.args[3]}
	_, err := e.c.do("PUT", path("permissions", vhost, user), body)
	var ae *apiError
	if errors.As(err, &ae) && ae.reason == "vhost_or_user_not_found" {
		return e.fail(exitUnavailable, "Virtual host "+vhost+" does not exist")
	}
	if err != nil {
		return e.failed(err)
	}
	return exitOK
}

// runSetTopicPermissions is set_topic_permissions, worded and checked as
// runSetPermissions.
func runSetTopicPermissions(e *env) int {
	user, exchange, vhost := e.args[0], e.args[1], e.opts.vhost
	e.info("Setting topic permissions on %s for user %s in vhost %s ...", quoted(exchange), quoted(user), quoted(vhost))
	if _, err := e.c.do("GET", path("users", user), nil); err != nil {
		if isStatus(err, http.StatusNotFound) {
			return e.fail(exitNoUser, "User "+user+" does not exist")
		}
		return e.failed(err)
	}
	body := map[string]string{"exchange": exchange, "write": e.args[2], "read": e.args[3]}
	_, err := e.c.do("PUT", path("topic-permissions", vhost, user), body)
	var ae *apiError
	if errors.As(err, &ae) && ae.reason == "vhost_or_user_not_found" {
		return e.fail(exitUnavailable, "Virtual host "+vhost+" does not exist")
	}
	if err != nil {
		return e.failed(err)
	}
	return exitOK
}

// runClearPermissions is clear_permissions: like rabbitmqctl it succeeds
// when the user has no permissions in the vhost, and words an unknown user
// or vhost as set_permissions does.
func runClearPermissions(e *env) int {
	user, vhost := e.args[0], e.opts.vhost
	e.info("Clearing permissions for user %s in vhost %s ...", quoted(user), quoted(vhost))
	if code, ok := e.userAndVhostExist(user, vhost); !ok {
		return code
	}
	if _, err := e.c.do("DELETE", path("permissions", vhost, user), nil); err != nil && !isStatus(err, http.StatusNotFound) {
		return e.failed(err)
	}
	return exitOK
}

// runClearTopicPermissions is clear_topic_permissions: all the user's
// topic permissions in the vhost, or one exchange's.
func runClearTopicPermissions(e *env) int {
	user, vhost := e.args[0], e.opts.vhost
	target := path("topic-permissions", vhost, user)
	if len(e.args) == 2 {
		e.info("Clearing topic permissions on %s for user %s in vhost %s ...", quoted(e.args[1]), quoted(user), quoted(vhost))
		target = path("topic-permissions", vhost, user, e.args[1])
	} else {
		e.info("Clearing topic permissions for user %s in vhost %s ...", quoted(user), quoted(vhost))
	}
	if code, ok := e.userAndVhostExist(user, vhost); !ok {
		return code
	}
	if _, err := e.c.do("DELETE", target, nil); err != nil && !isStatus(err, http.StatusNotFound) {
		return e.failed(err)
	}
	return exitOK
}

// userAndVhostExist looks the user up, then the vhost, and fails with
// rabbitmqctl's words and exit code for the first that is missing.
func (e *env) userAndVhostExist(user, vhost string) (int, bool) {
	if _, err := e.c.do("GET", path("users", user), nil); err != nil {
		if isStatus(err, http.StatusNotFound) {
			return e.fail(exitNoUser, "User "+user+" does not exist"), false
		}
		return e.failed(err), false
	}
	if _, err := e.c.do("GET", path("vhosts", vhost), nil); err != nil {
		if isStatus(err, http.StatusNotFound) {
			return e.fail(exitUnavailable, "Virtual host "+vhost+" does not exist"), false
		}
		return e.failed(err), false
	}
	return exitOK, true
}
