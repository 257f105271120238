package mgmt

import (
	"strings"
	"unicode/utf8"
)

// Names the API is asked to create — vhosts, users, queues, exchanges,
// policies — must be valid UTF-8 without NUL or line breaks: such a name
// could not be shown in the API's own JSON, a log line or a terminal as
// it is. The engine and the user store further refuse a name that does
// not fit an AMQP short string (255 bytes), with a 406 that becomes a 400
// here. Names that already exist, however they were made, are still
// found: only creation is checked.

// checkName refuses a name of the given kind ("queue") with a 400.
func checkName(kind, name string) *apiError {
	switch {
	case !utf8.ValidString(name):
		return badRequest(kind + " name is not valid UTF-8")
	case strings.IndexByte(name, 0) >= 0:
		return badRequest(kind + " name contains a NUL character")
	case strings.ContainsAny(name, "\r\n"):
		return badRequest(kind + " name contains a line break")
	}
	return nil
}

// checkNames checks a definitions document's names before anything in it
// is created, so that a bad name refuses the whole import.
func (d *importDoc) checkNames() *apiError {
	for _, u := range d.Users {
		if e := checkName("user", u.Name); e != nil {
			return e
		}
	}
	for _, v := range d.Vhosts {
		if e := checkName("vhost", v.Name); e != nil {
			return e
		}
	}
	for _, p := range d.Parameters {
		if e := checkName("policy", p.Name); e != nil {
			return e
		}
	}
	for _, p := range d.Policies {
		if e := checkName("policy", p.Name); e != nil {
			return e
		}
	}
	for _, q := range d.Queues {
		if e := checkName("queue", q.Name); e != nil {
			return e
		}
	}
	for _, x := range d.Exchanges {
		if e := checkName("exchange", x.Name); e != nil {
			return e
		}
	}
	return nil
}
