package e2e

import (
	"errors"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestPassiveDeclareNeedsNoPermission: access-control.md's table lists no
// permission for queue.declare or exchange.declare with passive=true, so a
// user whose configure, write and read patterns all miss a name may still
// ask whether it exists. Observed, RabbitMQ 3.10.8, for a user whose three
// patterns are ^app\.: passive queue.declare of an existing other.q is
// declare-ok, of a missing one 404 "NOT_FOUND - no queue 'other.missing'
// in vhost '/'"; the same for exchanges (404 "NOT_FOUND - no exchange
// 'other.missing' in vhost '/'"), and a passive exchange.declare naming
// another type, or one that does not exist, is declare-ok too; another
// connection's exclusive queue is 405 RESOURCE_LOCKED. A regular declare
// of other.q is still 403.
func TestPassiveDeclareNeedsNoPermission(t *testing.T) {
	srv, users := permServer(t)
	must(t, users.SetPermissions("bob", "/", `^app\.`, `^app\.`, `^app\.`))
	guest := channel(t, dial(t, srv))
	_, err := guest.QueueDeclare("other.q", false, false, false, false, nil)
	must(t, err)
	_, err = guest.QueueDeclare("other.excl", false, false, true, false, nil)
	must(t, err)
	must(t, guest.ExchangeDeclare("other.x", "direct", false, false, false, false, nil))

	passiveQ := func(name string) func(ch *amqp.Channel) error {
		return func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclarePassive(name, false, false, false, false, nil)
			return err
		}
	}
	passiveX := func(name, kind string) func(ch *amqp.Channel) error {
		return func(ch *amqp.Channel) error {
			return ch.ExchangeDeclarePassive(name, kind, false, false, false, false, nil)
		}
	}
	cases := []struct {
		name string
		op   func(ch *amqp.Channel) error
		code int // 0: declare-ok
		want string
	}{
		{"passive queue", passiveQ("other.q"), 0, ""},
		{"passive missing queue", passiveQ("other.missing"), 404, "NOT_FOUND - no queue 'other.missing' in vhost '/'"},
		{"passive exclusive queue of another connection", passiveQ("other.excl"), 405,
			"RESOURCE_LOCKED - cannot obtain exclusive access to locked queue 'other.excl' in vhost '/'. It could be originally declared on another connection or the exclusive property value does not match that of the original declaration."},
		{"passive exchange", passiveX("other.x", "direct"), 0, ""},
		{"passive exchange naming another type", passiveX("other.x", "fanout"), 0, ""},
		{"passive exchange naming no type", passiveX("other.x", "bogus"), 0, ""},
		{"passive amq.direct", passiveX("amq.direct", "direct"), 0, ""},
		{"passive missing exchange", passiveX("other.missing", "direct"), 404, "NOT_FOUND - no exchange 'other.missing' in vhost '/'"},
		{"passive default exchange", passiveX("", "direct"), 403, "ACCESS_REFUSED - operation not permitted on the default exchange"},
		{"declare queue", func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclare("other.q", false, false, false, false, nil)
			return err
		}, 403, "ACCESS_REFUSED - access to queue 'other.q' in vhost '/' refused for user 'bob'"},
		{"declare exchange", func(ch *amqp.Channel) error {
			return ch.ExchangeDeclare("other.x", "direct", false, false, false, false, nil)
		}, 403, "ACCESS_REFUSED - access to exchange 'other.x' in vhost '/' refused for user 'bob'"},
	}
	for _, tc := range cases {
		err := asBob(t, srv, tc.op)
		if tc.code == 0 {
			if err != nil {
				t.Errorf("%s: %v, want declare-ok", tc.name, err)
			}
			continue
		}
		var e *amqp.Error
		if !errors.As(err, &e) || e.Code != tc.code || e.Reason != tc.want {
			t.Errorf("%s: got %v\nwant %d %s", tc.name, err, tc.code, tc.want)
		}
	}
}
