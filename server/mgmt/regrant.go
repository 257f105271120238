package mgmt

// regrant hands the engine the current permissions of each (user, vhost)
// pair after the auth store changed them, so that open connections are
// checked against them from their next operation on, as RabbitMQ checks
// the user's current permissions.
func (a *api) regrant(pairs ...userVhost) error {
	if len(pairs) == 0 {
		return nil
	}
	return a.doUnchecked("", func(s *session) error {
		for _, p := range pairs {
			s.e.SetPermissions(p.user, p.vhost, a.users.Grants(p.user, p.vhost))
		}
		return nil
	})
}

// userVhost names whose permissions changed.
type userVhost struct{ user, vhost string }

// regrantUser is regrant for every vhost the user has permissions in (a
// change of the user's tags can change what the connections may do:
// impersonator).
func (a *api) regrantUser(user string) error {
	var pairs []userVhost
	for _, p := range a.users.Permissions() {
		if p.User == user {
			pairs = append(pairs, userVhost{user, p.Vhost})
		}
	}
	return a.regrant(pairs...)
}
