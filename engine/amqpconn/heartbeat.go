package amqpconn

// Heartbeats as decisions: the machine says when a heartbeat is due and
// when the client is gone, from times the driver passes in (milliseconds
// on any clock); the driver keeps the timers.

// HeartbeatEveryMs is how often the server sends a heartbeat on a quiet
// connection: every half negotiated interval, as RabbitMQ's heartbeat
// sender does, so a client never waits longer than that for one. 0:
// heartbeats are off (or not negotiated yet).
func (m *Machine) HeartbeatEveryMs() int64 { return int64(m.heartbeat) * 1000 / 2 }

// SilenceLimitMs is how long the client may send nothing at all (a
// heartbeat or any other frame) before it is taken as gone: two
// intervals, as RabbitMQ's receiver decides. 0: never.
func (m *Machine) SilenceLimitMs() int64 { return 2 * int64(m.heartbeat) * 1000 }

// HeartbeatDue reports whether a heartbeat is due at nowMs when the
// server last sent anything at lastSentMs.
func (m *Machine) HeartbeatDue(nowMs, lastSentMs int64) bool {
	every := m.HeartbeatEveryMs()
	return every > 0 && nowMs-lastSentMs >= every
}

// ClientGone reports whether the client is gone at nowMs when it last
// sent anything at lastHeardMs.
func (m *Machine) ClientGone(nowMs, lastHeardMs int64) bool {
	limit := m.SilenceLimitMs()
	return limit > 0 && nowMs-lastHeardMs > limit
}
