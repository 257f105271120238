package broker

import "warren/engine"

// Apply applies cmds in order with engine.Broker.Apply, on the calling
// goroutine under the broker's lock, with the engine advanced to now,
// appends each command's result to res and returns it; then it hands the
// events the commands caused to the sinks. This is the driver boundary: a
// driver turns its input into commands and gets results and events back,
// and none of its code runs while it owns the engine. The commands of one
// call are applied in one turn, with no other request between them.
func (b *Broker) Apply(cmds []engine.Command, res []engine.Result) ([]engine.Result, error) {
	err := b.own(func() {
		for _, c := range cmds {
			res = append(res, b.eng.Apply(c))
		}
	})
	return res, err
}

// ApplyOne applies one command, as Apply does, and returns its result; the
// error is the command's (Result.Err) or ErrStopped.
func (b *Broker) ApplyOne(c engine.Command) (engine.Result, error) {
	var r engine.Result
	if err := b.own(func() { r = b.eng.Apply(c) }); err != nil {
		return r, err
	}
	return r, r.Err
}
