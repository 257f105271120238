package engine

import "testing"

// TestEveryCommandHasDurableRecords: every command kind says how its
// changes of durable state reach the durable log (durableClass). A kind
// with none would panic in noteCommand rather than be lost at a restart;
// commandSamples has one of every kind (TestCommandRoundTrip).
func TestEveryCommandHasDurableRecords(t *testing.T) {
	for _, c := range commandSamples() {
		if durableClass(c) == durableUnknown {
			t.Errorf("%T: no durable records (add it to durableClass, with the hooks that record its changes)", c)
		}
	}
}
