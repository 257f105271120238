package web

import (
	"slices"

	"warren/lessons"
)

// allLessons returns the lessons for a page in lang: in lang when the
// lessons are written in it, else in the lessons' first language.
func allLessons(lang string) ([]*lessons.Lesson, error) { return lessons.All(lessonLang(lang)) }

// findLesson returns the lesson with the slug for a page in lang, or nil
// (see allLessons).
func findLesson(lang, slug string) *lessons.Lesson { return lessons.Find(lessonLang(lang), slug) }

func lessonLang(lang string) string {
	if slices.Contains(lessons.Languages, lang) {
		return lang
	}
	return lessons.Languages[0]
}

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
