package web

// firstLesson is the slug of the lesson the playground's guided first
// step leads to: lesson 1.
const firstLesson = "amqp-model"

// firstSteps are the guided first step's lines (playground.templ's
// firstStep), each with the catalog key of what it shows. The default
// exchange routes by the queue's name, so three lines make a round trip.
var firstSteps = []struct{ Line, Key string }{
	{"declare queue hello", "pg.first.declare"},
	{`publish hello "Hello World!"`, "pg.first.publish"},
	{"get hello", "pg.first.get"},
}
