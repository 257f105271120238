package lessons

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestEveryLessonWorks runs every lesson, in every language, in the engine
// (see Check): each step's check fails before its try lines, passes after
// them, and still passes after a harmless line or a repeated try line.
func TestEveryLessonWorks(t *testing.T) {
	for _, lang := range Languages {
		ls, err := All(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) == 0 {
			t.Errorf("no lessons in content/%s", lang)
		}
		for _, l := range ls {
			t.Run(lang+"/"+l.Slug, func(t *testing.T) {
				if err := Check(l); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestEveryLessonInEveryLanguage: each lesson file exists in every
// language, and its translations have the same steps with the same setup,
// try and check lines in the same order; only the prose differs.
func TestEveryLessonInEveryLanguage(t *testing.T) {
	files := map[string]map[string]*Lesson{} // file name -> language -> lesson
	for _, lang := range Languages {
		ls, err := All(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			if files[l.File] == nil {
				files[l.File] = map[string]*Lesson{}
			}
			files[l.File][l.Lang] = l
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		first := Languages[0]
		for _, lang := range Languages {
			if files[name][lang] == nil {
				t.Errorf("content/%s/%s is missing: every lesson is written in %s", lang, name, strings.Join(Languages, " and "))
			}
		}
		a := files[name][first]
		for _, lang := range Languages[1:] {
			if b := files[name][lang]; a != nil && b != nil {
				if err := sameLines(a, b); err != nil {
					t.Error(err)
				}
			}
		}
	}
}

// sameLines says how two translations of a lesson differ in anything but
// prose: their number of steps, or a setup, try or check line.
func sameLines(a, b *Lesson) error {
	pa, pb := "content/"+a.Lang+"/"+a.File, "content/"+b.Lang+"/"+b.File
	if len(a.Steps) != len(b.Steps) {
		return fmt.Errorf("%s has %d steps, %s has %d", pa, len(a.Steps), pb, len(b.Steps))
	}
	for i := range a.Steps {
		sa, sb := a.Steps[i], b.Steps[i]
		for _, k := range []struct {
			key  string
			x, y []string
		}{{"setup", sa.Setup, sb.Setup}, {"try", sa.Try, sb.Try}, {"check", sa.Check, sb.Check}} {
			for j := range max(len(k.x), len(k.y)) {
				x, y := "(none)", "(none)"
				if j < len(k.x) {
					x = k.x[j]
				}
				if j < len(k.y) {
					y = k.y[j]
				}
				if x != y {
					return fmt.Errorf("step %d, %s line %d: %s has %q, %s has %q: translations share every script line", i+1, k.key, j+1, pa, x, pb, y)
				}
			}
		}
	}
	return nil
}

func TestParse(t *testing.T) {
	const ok = "title: T\nsummary: S\n\nstep: One\nSome `code` here,\ncontinued.\n\nSecond.\nsetup: declare queue a\ntry: publish a x\ncheck: expect queue a ready=1\n"
	l, err := Parse("ok.txt", ok)
	if err != nil {
		t.Fatal(err)
	}
	s := l.Steps[0]
	if l.Title != "T" || l.Summary != "S" || s.Title != "One" || len(s.Text) != 2 ||
		len(s.Setup) != 1 || len(s.Try) != 1 || len(s.Check) != 1 {
		t.Fatalf("parsed %+v", l)
	}
	want := Paragraph{{Text: "Some "}, {Text: "code", Code: true}, {Text: " here, continued."}}
	if len(s.Text[0]) != len(want) {
		t.Fatalf("spans %+v, want %+v", s.Text[0], want)
	}
	for i := range want {
		if s.Text[0][i] != want[i] {
			t.Fatalf("spans %+v, want %+v", s.Text[0], want)
		}
	}
	if got := l.Before(0); len(got) != 1 || got[0] != "declare queue a" {
		t.Errorf("Before(0) = %q", got)
	}

	for _, c := range []struct{ src, err string }{
		{"summary: S\nstep: A\ntext", "x.txt: no title: line"},
		{"title: T\nstep: A\ntext", "x.txt: no summary: line"},
		{"title: T\nsummary: S\n", "x.txt: no steps"},
		{"title: T\nsummary: S\nprose", "x.txt:3: prose before the first step"},
		{"title: T\nsummary: S\nstep: A\ntry: declare queue a\n", "x.txt: step 1 (A) has no prose"},
		{"title: T\nsummary: S\nstep: A\ntext\ntry: declare queue a\n", "x.txt: step 1 (A) has try lines but no check lines"},
		{"title: T\nsummary: S\nstep: A\ntext\ncheck: publish a\n", `x.txt:5: check: "publish a" is not an expect line`},
		{"title: T\nsummary: S\nstep: A\ntext\ntry: frobnicate\n", `x.txt:5: unknown command "frobnicate"`},
		{"title: T\nsummary: S\nstep: A\ntext\ntitle: again\n", "x.txt:5: title: belongs before the first step"},
		{"title:\n", "x.txt:1: title: is empty"},
	} {
		_, err := Parse("x.txt", c.src)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.src, err, c.err)
		}
	}
}

func TestCheckCatchesBrokenLessons(t *testing.T) {
	for _, c := range []struct{ src, err string }{
		// The check already holds before the try lines: it checks nothing.
		{"title: T\nsummary: S\nstep: A\ntext\nsetup: declare queue a\ntry: publish b x\ncheck: expect queue a ready=0\n", "already pass"},
		// The try lines do not get there.
		{"title: T\nsummary: S\nstep: A\ntext\ntry: declare queue a\ncheck: expect queue a ready=1\n", `check "expect queue a ready=1"`},
		// A try line the engine refuses as a script error.
		{"title: T\nsummary: S\nstep: A\ntext\ntry: advance -5s\ncheck: expect time 5s\n", `try "advance -5s"`},
		// A check on the last command's events fails once a harmless line ran.
		{"title: T\nsummary: S\nstep: A\ntext\ntry: declare queue a\ntry: publish a x\ncheck: expect event enqueued q=a\n",
			`check "expect event enqueued q=a" fails after the harmless lines`},
	} {
		l, err := Parse("x.txt", c.src)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if err := Check(l); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Check(%q) = %v, want an error containing %q", c.src, err, c.err)
		}
	}
}

// TestCheckRepeatsTryLines: a try line run again that leaves the broker as
// it was must leave the check passing; one that changes the broker need
// not. Harmless is cut down to a show line so that the repeat is what
// catches the check.
func TestCheckRepeatsTryLines(t *testing.T) {
	defer func(h []string) { Harmless = h }(Harmless)
	Harmless = []string{"show queues"}
	for _, c := range []struct{ src, err string }{
		// confirm again changes nothing, and the event is gone.
		{"title: T\nsummary: S\nstep: A\ntext\ntry: confirm\ntry: publish nowhere x\ncheck: expect event confirmed tag=1\n",
			`check "expect event confirmed tag=1" fails after the try line "confirm" runs again, which leaves the broker as it was`},
		// What the publisher was told stays.
		{"title: T\nsummary: S\nstep: A\ntext\ntry: confirm\ntry: publish nowhere x\ncheck: expect confirm app 1 ack\n", ""},
		// Publishing again adds a message: a different state, judged as such.
		{"title: T\nsummary: S\nstep: A\ntext\ntry: declare queue a\ntry: publish a x\ncheck: expect queue a ready=1\n", ""},
	} {
		l, err := Parse("x.txt", c.src)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		err = Check(l)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Check(%q) = %v, want %q", c.src, err, c.err)
		}
	}
}

func TestSlugOf(t *testing.T) {
	for name, want := range map[string]string{"08-ttl.txt": "ttl", "ttl.txt": "ttl", "2-a-b.txt": "a-b", "x1-a.txt": "x1-a"} {
		if got := slugOf(name); got != want {
			t.Errorf("slugOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestSameLinesCatchesADifference(t *testing.T) {
	parse := func(lang, src string) *Lesson {
		l, err := Parse("x.txt", src)
		if err != nil {
			t.Fatal(err)
		}
		l.Lang, l.File = lang, "01-x.txt"
		return l
	}
	en := parse("en", "title: T\nsummary: S\nstep: A\ntext\ntry: declare queue a\ncheck: expect exists queue a\n")
	for _, c := range []struct{ src, err string }{
		{"title: 标题\nsummary: 摘要\nstep: 甲\n正文\ntry: declare queue a\ncheck: expect exists queue a\n", ""},
		{"title: 标题\nsummary: 摘要\nstep: 甲\n正文\ntry: declare queue b\ncheck: expect exists queue a\n", `step 1, try line 1: content/en/01-x.txt has "declare queue a", content/zh-CN/01-x.txt has "declare queue b"`},
		{"title: 标题\nsummary: 摘要\nstep: 甲\n正文\ntry: declare queue a\ncheck: expect queue a ready=0\n", `check line 1: content/en/01-x.txt has "expect exists queue a", content/zh-CN/01-x.txt has "expect queue a ready=0"`},
		{"title: 标题\nsummary: 摘要\nstep: 甲\n正文\ntry: declare queue a\ncheck: expect exists queue a\ncheck: expect queue a ready=0\n", `check line 2: content/en/01-x.txt has "(none)"`},
		{"title: 标题\nsummary: 摘要\nstep: 甲\n正文\ntry: declare queue a\ncheck: expect exists queue a\nstep: 乙\n正文\n", "content/en/01-x.txt has 1 steps, content/zh-CN/01-x.txt has 2"},
	} {
		err := sameLines(en, parse("zh-CN", c.src))
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("sameLines(%q) = %v, want %q", c.src, err, c.err)
		}
	}
}
