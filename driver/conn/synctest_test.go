package conn

import (
	"testing"
	gosynctest "testing/synctest"

	"warren/engine"
	"warren/server/broker"
)

// synctest runs f in a bubble with virtual time and a fresh broker, so that
// heartbeats and timeouts are tested without sleeping.
func synctest(t *testing.T, f func(t *testing.T, b *broker.Broker)) {
	synctestTest(t, func(t *testing.T) {
		b := broker.Start(engine.Config{}, nil)
		defer b.Stop()
		f(t, b)
	})
}

var synctestTest = gosynctest.Test
