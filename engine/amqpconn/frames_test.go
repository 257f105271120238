package amqpconn

import (
	"reflect"
	"testing"

	"warren/engine"
)

// TestFramesOfCopiesEveryField: each field of EventFrames is the
// engine.Event's field of the same name and type, and FramesOf copies
// all of them (a field added to one and forgotten in FramesOf would send
// its zero).
func TestFramesOfCopiesEveryField(t *testing.T) {
	var ev engine.Event
	ft := reflect.TypeOf(EventFrames{})
	evv := reflect.ValueOf(&ev).Elem()
	for i := 0; i < ft.NumField(); i++ {
		f := ft.Field(i)
		e := evv.FieldByName(f.Name)
		if !e.IsValid() || e.Type() != f.Type {
			t.Fatalf("EventFrames.%s (%s) is no field of engine.Event of that type", f.Name, f.Type)
		}
		switch f.Type.Kind() {
		case reflect.Bool:
			e.SetBool(true)
		case reflect.Int, reflect.Int32:
			e.SetInt(int64(i + 1))
		case reflect.Uint8, reflect.Uint64:
			e.SetUint(uint64(i + 1))
		case reflect.String:
			e.SetString(f.Name)
		case reflect.Pointer:
			e.Set(reflect.New(f.Type.Elem()))
		default:
			t.Fatalf("EventFrames.%s: no test value for a %s", f.Name, f.Type)
		}
	}
	got := reflect.ValueOf(FramesOf(&ev))
	for i := 0; i < ft.NumField(); i++ {
		name := ft.Field(i).Name
		if !reflect.DeepEqual(got.Field(i).Interface(), evv.FieldByName(name).Interface()) || got.Field(i).IsZero() {
			t.Errorf("FramesOf: %s is %v, the event's %v", name, got.Field(i), evv.FieldByName(name))
		}
	}
}
