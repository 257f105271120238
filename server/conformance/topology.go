package main

import (
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Queue and exchange operations on a Ch.

// Q is a queue declaration's flags and arguments.
type Q struct {
	Durable, AutoDelete, Exclusive, Passive bool
	Args                                    amqp.Table
}

func (q Q) String() string {
	return flags(q.Args, []namedFlag{{q.Passive, "passive"}, {q.Durable, "durable"}, {q.AutoDelete, "auto-delete"}, {q.Exclusive, "exclusive"}})
}

type namedFlag struct {
	on   bool
	name string
}

// flags renders the set flags and the arguments, each preceded by a space.
func flags(args amqp.Table, fs []namedFlag) string {
	var b strings.Builder
	for _, f := range fs {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	if len(args) > 0 {
		b.WriteString(" {" + tableBody(args) + "}")
	}
	return b.String()
}

// DeclareQ declares a queue and logs the declare-ok counts or the error.
// It returns the queue's name ("" on error): server-chosen for "".
func (c *Ch) DeclareQ(short string, q Q) string {
	name := c.s.N(short)
	c.s.trackQueue(name)
	var ok amqp.Queue
	var err error
	if q.Passive {
		ok, err = c.ch.QueueDeclarePassive(name, q.Durable, q.AutoDelete, q.Exclusive, false, q.Args)
	} else {
		ok, err = c.ch.QueueDeclare(name, q.Durable, q.AutoDelete, q.Exclusive, false, q.Args)
	}
	if err != nil {
		c.log("queue.declare %q%s: %s", short, q, c.res(err))
		return ""
	}
	if short == "" {
		c.s.trackServerNamed(ok.Name)
	}
	c.log("queue.declare %q%s: ok name=%q messages=%d consumers=%d", short, q, ok.Name, ok.Messages, ok.Consumers)
	return ok.Name
}

// QDel is a queue.delete's conditions.
type QDel struct{ IfUnused, IfEmpty bool }

func (d QDel) String() string {
	return flags(nil, []namedFlag{{d.IfUnused, "if-unused"}, {d.IfEmpty, "if-empty"}})
}

// DeleteQ deletes a queue.
func (c *Ch) DeleteQ(short string, d QDel) {
	n, err := c.ch.QueueDelete(c.s.N(short), d.IfUnused, d.IfEmpty, false)
	if err != nil {
		c.log("queue.delete %q%s: %s", short, d, c.res(err))
		return
	}
	c.log("queue.delete %q%s: ok messages=%d", short, d, n)
}

// Purge purges a queue.
func (c *Ch) Purge(short string) {
	n, err := c.ch.QueuePurge(c.s.N(short), false)
	if err != nil {
		c.log("queue.purge %q: %s", short, c.res(err))
		return
	}
	c.log("queue.purge %q: ok messages=%d", short, n)
}

// Bind binds a queue to an exchange.
func (c *Ch) Bind(queue, exchange, key string, args amqp.Table) {
	err := c.ch.QueueBind(c.s.N(queue), key, c.s.N(exchange), false, args)
	c.log("queue.bind %q %q key=%q {%s}: %s", queue, exchange, key, tableBody(args), c.res(err))
}

// Unbind removes a queue binding.
func (c *Ch) Unbind(queue, exchange, key string, args amqp.Table) {
	err := c.ch.QueueUnbind(c.s.N(queue), key, c.s.N(exchange), args)
	c.log("queue.unbind %q %q key=%q: %s", queue, exchange, key, c.res(err))
}

// X is an exchange declaration's flags and arguments.
type X struct {
	Durable, AutoDelete, Internal, Passive bool
	Args                                   amqp.Table
}

func (x X) String() string {
	return flags(x.Args, []namedFlag{{x.Passive, "passive"}, {x.Durable, "durable"}, {x.AutoDelete, "auto-delete"}, {x.Internal, "internal"}})
}

// DeclareX declares an exchange.
func (c *Ch) DeclareX(short, kind string, x X) {
	name := c.s.N(short)
	c.s.trackExchange(name)
	var err error
	if x.Passive {
		err = c.ch.ExchangeDeclarePassive(name, kind, x.Durable, x.AutoDelete, x.Internal, false, x.Args)
	} else {
		err = c.ch.ExchangeDeclare(name, kind, x.Durable, x.AutoDelete, x.Internal, false, x.Args)
	}
	c.log("exchange.declare %q %q%s: %s", short, kind, x, c.res(err))
}

// DeleteX deletes an exchange.
func (c *Ch) DeleteX(short string, ifUnused bool) {
	err := c.ch.ExchangeDelete(c.s.N(short), ifUnused, false)
	c.log("exchange.delete %q if-unused=%t: %s", short, ifUnused, c.res(err))
}

// BindX binds exchange dest to exchange src.
func (c *Ch) BindX(dest, src, key string, args amqp.Table) {
	err := c.ch.ExchangeBind(c.s.N(dest), key, c.s.N(src), false, args)
	c.log("exchange.bind %q <- %q key=%q: %s", dest, src, key, c.res(err))
}

// UnbindX removes an exchange-to-exchange binding.
func (c *Ch) UnbindX(dest, src, key string) {
	err := c.ch.ExchangeUnbind(c.s.N(dest), key, c.s.N(src), false, nil)
	c.log("exchange.unbind %q <- %q key=%q: %s", dest, src, key, c.res(err))
}
