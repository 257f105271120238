package lessons

import (
	"strings"
	"testing"
)

// TestEveryLessonWorks runs every lesson in the engine: each step's check
// fails before its try lines and passes after them.
func TestEveryLessonWorks(t *testing.T) {
	ls, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) == 0 {
		t.Fatal("no lessons in content/")
	}
	for _, l := range ls {
		t.Run(l.Slug, func(t *testing.T) {
			if err := Check(l); err != nil {
				t.Error(err)
			}
		})
	}
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

func TestSlugOf(t *testing.T) {
	for name, want := range map[string]string{"01-ttl.txt": "ttl", "ttl.txt": "ttl", "2-a-b.txt": "a-b", "x1-a.txt": "x1-a"} {
		if got := slugOf(name); got != want {
			t.Errorf("slugOf(%q) = %q, want %q", name, got, want)
		}
	}
}
