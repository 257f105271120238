package lessons

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// content holds the lessons, one directory per language:
// content/en/08-ttl-and-dead-lettering.txt and its translation
// content/zh-CN/08-ttl-and-dead-lettering.txt.
//
//go:embed content
var content embed.FS

// Languages are the languages the lessons are written in, as BCP 47 tags
// and directory names under content/; the first is the default. Every
// lesson exists in each of them, with the same steps and the same script
// lines (TestEveryLessonInEveryLanguage): only the prose is translated.
var Languages = []string{"en", "zh-CN"}

var (
	loadOnce sync.Once
	byLang   map[string][]*Lesson
	loadErr  error
)

// All returns every lesson in language lang, in file-name order (the files
// are numbered: 08-ttl-and-dead-lettering.txt comes after
// 02-exchanges-and-routing.txt). A lesson that does not parse is a build
// error of the program, caught by this package's tests; All then returns
// the error. A language not in Languages has no lessons.
func All(lang string) ([]*Lesson, error) {
	loadOnce.Do(func() { byLang, loadErr = load() })
	if loadErr != nil {
		return nil, loadErr
	}
	if !slices.Contains(Languages, lang) {
		return nil, fmt.Errorf("lessons: no lessons in %q; the languages are %s", lang, strings.Join(Languages, ", "))
	}
	return byLang[lang], nil
}

// Find returns the lesson with the slug in language lang, or nil.
func Find(lang, slug string) *Lesson {
	ls, _ := All(lang)
	for _, l := range ls {
		if l.Slug == slug {
			return l
		}
	}
	return nil
}

func load() (map[string][]*Lesson, error) {
	dirs, err := content.ReadDir("content")
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if !d.IsDir() || !slices.Contains(Languages, d.Name()) {
			return nil, fmt.Errorf("content/%s: content/ holds one directory per language (%s), nothing else", d.Name(), strings.Join(Languages, ", "))
		}
	}
	out := map[string][]*Lesson{}
	for _, lang := range Languages {
		ls, err := loadLang(lang)
		if err != nil {
			return nil, err
		}
		out[lang] = ls
	}
	return out, nil
}

// loadLang reads content/LANG/*.txt; a language with no directory has no
// lessons.
func loadLang(lang string) ([]*Lesson, error) {
	dir := path.Join("content", lang)
	entries, err := content.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ls []*Lesson
	seen := map[string]string{}
	for _, e := range entries { // ReadDir sorts by file name
		name := path.Join(dir, e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txt") {
			return nil, fmt.Errorf("%s: not a lesson: lessons are NN-slug.txt files", name)
		}
		data, err := content.ReadFile(name)
		if err != nil {
			return nil, err
		}
		l, err := Parse(name, string(data))
		if err != nil {
			return nil, err
		}
		l.Slug, l.Lang, l.File = slugOf(e.Name()), lang, e.Name()
		if prev, dup := seen[l.Slug]; dup {
			return nil, fmt.Errorf("%s and %s have the same slug %q", path.Join(dir, prev), name, l.Slug)
		}
		seen[l.Slug] = e.Name()
		ls = append(ls, l)
	}
	return ls, nil
}

// slugOf drops the number and the extension: 08-ttl.txt is "ttl".
func slugOf(name string) string {
	s := strings.TrimSuffix(name, ".txt")
	if i := strings.IndexByte(s, '-'); i > 0 && strings.Trim(s[:i], "0123456789") == "" {
		s = s[i+1:]
	}
	return s
}
