package web

import "warren/lessons"

// allLessons returns the lessons for a page in lang. The lessons package
// has them in English only for now, so every language gets the English
// text; the page around them is in lang.
func allLessons(lang string) ([]*lessons.Lesson, error) { return lessons.All() }

// findLesson returns the lesson with the slug for a page in lang, or nil
// (see allLessons).
func findLesson(lang, slug string) *lessons.Lesson { return lessons.Find(slug) }

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
