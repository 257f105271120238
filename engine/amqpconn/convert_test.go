package amqpconn

import (
	"testing"

	"warren/engine"
	"warren/engine/amqp"
)

// TestToEnginePropsSharesDeliveryModeAlone: properties that set only
// delivery-mode 1 or 2 convert to one shared value each, with no
// allocation, and any other set converts to a value of its own.
func TestToEnginePropsSharesDeliveryModeAlone(t *testing.T) {
	for _, mode := range []uint8{1, 2} {
		p := &amqp.Properties{Flags: amqp.FlagDeliveryMode, DeliveryMode: mode}
		a, b := ToEngineProps(p), ToEngineProps(p)
		if a != b || a.DeliveryMode != mode || a.Present != engine.FlagDeliveryMode || a.Headers != nil || a.ContentType != "" {
			t.Errorf("delivery-mode %d: %p %+v and %p", mode, a, *a, b)
		}
		if n := testing.AllocsPerRun(100, func() { ToEngineProps(p) }); n != 0 {
			t.Errorf("delivery-mode %d: %v allocations a conversion", mode, n)
		}
	}
	for _, p := range []*amqp.Properties{
		{Flags: amqp.FlagDeliveryMode, DeliveryMode: 0},
		{Flags: amqp.FlagDeliveryMode, DeliveryMode: 3},
		{Flags: amqp.FlagDeliveryMode | amqp.FlagContentType, DeliveryMode: 2, ContentType: "text/plain"},
	} {
		a, b := ToEngineProps(p), ToEngineProps(p)
		if a == b || a.DeliveryMode != p.DeliveryMode || a.Present != engine.PropertyFlags(p.Flags) || a.ContentType != p.ContentType {
			t.Errorf("%+v: %p %+v and %p", *p, a, *a, b)
		}
	}
}
