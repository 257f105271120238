package warren_test

import (
	"bufio"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// treePackage is one package of the module as its files say, whatever
// their build constraints (as Go's deps_test reads the standard library):
// a file for GOOS=js counts as much as one for Linux.
type treePackage struct {
	name        string          // import path without the module's, "." for the root
	code        bool            // it has non-test files
	imports     map[string]bool // of its non-test files, as policy names
	testImports map[string]bool // of its _test.go files, either package
}

// modulePath reads the module's path from go.mod.
func modulePath() (string, error) {
	f, err := os.Open("go.mod")
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if mod, ok := strings.CutPrefix(s.Text(), "module "); ok {
			return strings.Trim(strings.TrimSpace(mod), `"`), nil
		}
	}
	return "", os.ErrNotExist
}

// policyName is the name depsRules gives an import path: the module's
// own packages without the module's path.
func policyName(module, importPath string) string {
	if importPath == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(importPath, module+"/"); ok {
		return rest
	}
	return importPath
}

// readTree parses every Go file under the module's root (this directory),
// skipping testdata, node_modules, hidden folders and nested modules.
func readTree(module string) (map[string]*treePackage, error) {
	pkgs := map[string]*treePackage{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := d.Name()
			if file != "." && (base == "testdata" || base == "node_modules" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(file, "go.mod")); err == nil && file != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(file, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				if expr, err := constraint.Parse(c.Text); err == nil && expr.String() == "ignore" {
					return nil
				}
			}
		}
		dir := filepath.ToSlash(filepath.Dir(file))
		p := pkgs[dir]
		if p == nil {
			p = &treePackage{name: dir, imports: map[string]bool{}, testImports: map[string]bool{}}
			pkgs[dir] = p
		}
		into := p.testImports
		if !strings.HasSuffix(file, "_test.go") {
			into, p.code = p.imports, true
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			into[policyName(module, path)] = true
		}
		return nil
	})
	return pkgs, err
}

// sortedKeys returns a set's members in order.
func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
