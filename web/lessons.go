package web

import (
	"strconv"

	"warren/lessons"
)

// lessonStep is what static/lesson.js needs of a step: its lines. The prose
// is in the page already.
type lessonStep struct {
	Title string   `json:"title"`
	Setup []string `json:"setup"`
	Try   []string `json:"try"`
	Check []string `json:"check"`
	// Before rebuilds the state the step starts from (lessons.Lesson.Before).
	Before []string `json:"before"`
}

// lessonData is the lesson-data JSON of a lesson page.
func lessonData(l *lessons.Lesson) any {
	steps := make([]lessonStep, len(l.Steps))
	for i, s := range l.Steps {
		steps[i] = lessonStep{Title: s.Title, Setup: nonNil(s.Setup), Try: nonNil(s.Try), Check: nonNil(s.Check), Before: nonNil(l.Before(i))}
	}
	return struct {
		Slug  string       `json:"slug"`
		Steps []lessonStep `json:"steps"`
	}{l.Slug, steps}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// stepNumber is the 1-based number of step i.
func stepNumber(i int) string { return strconv.Itoa(i + 1) }

func stepCount(n int) string {
	if n == 1 {
		return "1 step"
	}
	return strconv.Itoa(n) + " steps"
}
