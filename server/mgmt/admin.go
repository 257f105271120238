package mgmt

import (
	"net/http"

	"warren/server/auth"
)

// AdminOnly returns a check for handlers mounted beside the management
// API (the shared sessions' list): it authenticates a request's basic auth
// exactly as every endpoint here does, requires the administrator tag, and
// on failure writes the API's own error reply (with the challenge for a
// request without credentials) and reports false.
func AdminOnly(users *auth.Store) func(w http.ResponseWriter, r *http.Request) bool {
	a := &api{users: users}
	return func(w http.ResponseWriter, r *http.Request) bool {
		u, aerr := a.authenticate(r)
		if aerr != nil {
			if aerr.status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="RabbitMQ Management"`)
			}
			writeError(w, aerr)
			return false
		}
		if !u.HasTag(tagAdministrator) {
			writeError(w, errNotAdmin)
			return false
		}
		return true
	}
}
