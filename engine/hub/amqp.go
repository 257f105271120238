package hub

import "crypto/subtle"

// AMQPLogin is how real AMQP clients reach a session's broker: its own
// user and password (made by the driver from a random source; the hub
// has none), and where the driver listens. A page that joins as an
// editor gets it in its welcome, to show; read-only participants watch
// and do not get it, since a client with it could change the broker.
type AMQPLogin struct {
	User     string `json:"user"`
	Password string `json:"password"`
	// Vhost is the one a new session's broker has.
	Vhost string `json:"vhost"`
	// Port is the AMQP TCP port, 0 when the driver has none (the edge).
	Port int `json:"port,omitempty"`
	// WebSocket is the path of AMQP over WebSocket on the page's own
	// host ("/ws/amqp"), empty when the driver has none.
	WebSocket string `json:"webSocket,omitempty"`
}

// AMQP returns the session's login for real clients, or nil when its
// driver takes none.
func (s *Session) AMQP() *AMQPLogin { return s.cfg.AMQP }

// CheckAMQPLogin reports whether user and password are the session's own
// AMQP login, comparing the password in constant time.
func (s *Session) CheckAMQPLogin(user, password string) bool {
	l := s.cfg.AMQP
	if l == nil || s.ended != nil || user != l.User {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(password), []byte(l.Password)) == 1
}
