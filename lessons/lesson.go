// Package lessons holds Warren's interactive tutorials and their loader and
// checker. A lesson is a text file (see Parse for the format): a few steps,
// each with prose, the script lines the learner is asked to run, and
// expect lines that say when the step is done. Every lesson is written in
// each of Languages, as content/LANG/NN-slug.txt; the translations share
// their file name, their steps and every script line, and differ only in
// their prose. The web frame (web.LessonPage) shows a lesson beside the
// playground and runs the expect lines in the page's own engine; Check
// runs every lesson in the Go engine, so a lesson whose steps do not work —
// or whose check would pass before the learner did anything, or fail after
// a harmless line — fails the build's tests instead of a learner.
package lessons

// A Lesson is one tutorial.
type Lesson struct {
	Slug    string // from the file name: 08-ttl.txt is "ttl"
	Lang    string // one of Languages: the directory it was read from
	File    string // its file name, the same in every language
	Title   string
	Summary string
	Steps   []Step
}

// A Step is one stage of a lesson. Lines are script lines (engine/script).
type Step struct {
	Title string
	Text  []Paragraph
	// Setup runs when the step opens, before the learner acts.
	Setup []string
	// Try is what the learner is asked to run; the page offers each line
	// as a button, and Check runs them as the step's reference solution.
	Try []string
	// Check holds expect lines, all of which pass once the step is done.
	Check []string
}

// A Paragraph is prose; backquoted parts are code.
type Paragraph []Span

// A Span is a run of text, code or not.
type Span struct {
	Text string `json:"text"`
	Code bool   `json:"code,omitempty"`
}

// Before returns the lines that rebuild the state a learner has on opening
// step i (0-based) after doing every earlier step as written: each earlier
// step's Setup and Try, then step i's Setup.
func (l *Lesson) Before(i int) []string {
	var lines []string
	for _, s := range l.Steps[:i] {
		lines = append(lines, s.Setup...)
		lines = append(lines, s.Try...)
	}
	return append(lines, l.Steps[i].Setup...)
}
