package lessons

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
)

//go:embed content/*.txt
var content embed.FS

var (
	loadOnce sync.Once
	all      []*Lesson
	loadErr  error
)

// All returns every lesson in content/, in file-name order (the files are
// numbered: 01-ttl-and-dead-lettering.txt). A lesson that does not parse is
// a build error of the program, caught by this package's tests; All then
// returns the error.
func All() ([]*Lesson, error) {
	loadOnce.Do(func() { all, loadErr = load() })
	return all, loadErr
}

// Find returns the lesson with the slug, or nil.
func Find(slug string) *Lesson {
	ls, _ := All()
	for _, l := range ls {
		if l.Slug == slug {
			return l
		}
	}
	return nil
}

func load() ([]*Lesson, error) {
	entries, err := content.ReadDir("content")
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var ls []*Lesson
	seen := map[string]string{}
	for _, e := range entries {
		data, err := content.ReadFile(path.Join("content", e.Name()))
		if err != nil {
			return nil, err
		}
		l, err := Parse(e.Name(), string(data))
		if err != nil {
			return nil, err
		}
		l.Slug = slugOf(e.Name())
		if prev, dup := seen[l.Slug]; dup {
			return nil, fmt.Errorf("%s and %s have the same slug %q", prev, e.Name(), l.Slug)
		}
		seen[l.Slug] = e.Name()
		ls = append(ls, l)
	}
	return ls, nil
}

// slugOf drops the number and the extension: 01-ttl.txt is "ttl".
func slugOf(name string) string {
	s := strings.TrimSuffix(name, ".txt")
	if i := strings.IndexByte(s, '-'); i > 0 && strings.Trim(s[:i], "0123456789") == "" {
		s = s[i+1:]
	}
	return s
}
