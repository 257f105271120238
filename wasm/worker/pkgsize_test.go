//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// packageCost is what one Go package's functions add to the worker's
// wasm: their code, and that code compressed on its own (an estimate of
// what it adds to the gzipped size the budget counts).
type packageCost struct {
	pkg        string
	code, gzip int
}

// codeByPackage reads a wasm module's code section and its name section
// (which a build without -s keeps) and sums the function bodies by the Go
// package their names start with. Data (strings, type descriptors, the
// runtime's tables) is not attributed: it is reported whole.
func codeByPackage(wasm []byte) (costs []packageCost, data int, err error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, 0, errors.New("not a wasm module")
	}
	r := wasmReader{b: wasm, i: 8}
	var imports int
	var bodies [][]byte
	names := map[int]string{}
	for r.i < len(r.b) && r.err == nil {
		id := r.byte()
		sec := wasmReader{b: r.bytes(int(r.uleb()))}
		switch id {
		case 2: // imports: functions among them come first in the index space
			for n := sec.uleb(); n > 0 && sec.err == nil; n-- {
				sec.bytes(int(sec.uleb()))
				sec.bytes(int(sec.uleb()))
				switch sec.byte() {
				case 0:
					sec.uleb()
					imports++
				case 1:
					sec.byte()
					sec.limits()
				case 2:
					sec.limits()
				case 3:
					sec.bytes(2)
				}
			}
		case 10: // code
			for n := sec.uleb(); n > 0 && sec.err == nil; n-- {
				bodies = append(bodies, sec.bytes(int(sec.uleb())))
			}
		case 11: // data
			data += len(sec.b)
		case 0:
			if string(sec.bytes(int(sec.uleb()))) != "name" {
				continue
			}
			for sec.i < len(sec.b) && sec.err == nil {
				kind := sec.byte()
				sub := wasmReader{b: sec.bytes(int(sec.uleb()))}
				if kind != 1 { // function names
					continue
				}
				for n := sub.uleb(); n > 0 && sub.err == nil; n-- {
					idx := int(sub.uleb())
					names[idx] = string(sub.bytes(int(sub.uleb())))
				}
			}
		}
		if sec.err != nil {
			r.err = sec.err
		}
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	if len(names) == 0 {
		return nil, 0, errors.New("the module has no function names (built with -s?)")
	}
	byPkg := map[string]*bytes.Buffer{}
	for i, body := range bodies {
		p := packageOf(names[imports+i])
		if byPkg[p] == nil {
			byPkg[p] = &bytes.Buffer{}
		}
		byPkg[p].Write(body)
	}
	for p, code := range byPkg {
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		w.Write(code.Bytes())
		w.Close()
		costs = append(costs, packageCost{p, code.Len(), z.Len()})
	}
	sort.Slice(costs, func(i, j int) bool { return costs[i].gzip > costs[j].gzip })
	return costs, data, nil
}

// packageOf is the package of a function as Go's wasm name section spells
// it: the import path with "/" as "_", then "."; a module path's own dot
// (github.com) is kept, so such names take the text up to their second dot.
func packageOf(name string) string {
	p, rest, _ := strings.Cut(name, ".")
	for _, host := range []string{"github", "golang", "gopkg"} {
		if p == host {
			second, _, _ := strings.Cut(rest, ".")
			p += "." + second
		}
	}
	return p
}

// wasmReader reads a wasm module's encoding; the first error sticks.
type wasmReader struct {
	b   []byte
	i   int
	err error
}

func (r *wasmReader) byte() byte {
	if r.err != nil || r.i >= len(r.b) {
		r.err = errors.New("truncated wasm")
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *wasmReader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return v
}

func (r *wasmReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.i+n > len(r.b) {
		r.err = errors.New("truncated wasm")
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

// limits skips a table's or memory's limits.
func (r *wasmReader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}

// TestWorkerCodeByPackage builds each edge worker's wasm (the site's,
// this package, and the broker's, wasm/broker) with its function names
// and reports the packages whose code costs the most, compressed: where
// to look when a worker nears its budget (TestWorkerSize,
// TestBrokerWorkerSize). It fails when a module or its names cannot be
// read.
func TestWorkerCodeByPackage(t *testing.T) {
	for _, w := range []struct {
		dir  string
		want []string // packages whose code must be found
	}{
		{".", []string{"runtime", "warren_engine", "github.com_syumai_workers"}},
		{"../broker", []string{"runtime", "warren_engine", "warren_server_broker", "warren_server_mgmt"}},
	} {
		t.Run(filepath.Base(filepath.Clean(filepath.Join("wasm/worker", w.dir))), func(t *testing.T) { codeOf(t, w.dir, w.want) })
	}
}

func codeOf(t *testing.T, dir string, want []string) {
	out := filepath.Join(t.TempDir(), "app.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	costs, data, err := codeByPackage(wasm)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	total := 0
	for _, c := range costs {
		total += c.gzip
	}
	fmt.Fprintf(&sb, "code by package, compressed on its own (all: %d bytes; data section, not attributed: %d bytes raw):\n", total, data)
	for _, c := range costs[:min(30, len(costs))] {
		fmt.Fprintf(&sb, "%9d %9d  %s\n", c.gzip, c.code, c.pkg)
	}
	t.Log(sb.String())
	// The names were read: the runtime and the engine are there.
	found := map[string]bool{}
	for _, c := range costs {
		found[c.pkg] = true
	}
	for _, w := range want {
		if !found[w] {
			t.Errorf("no code attributed to %s", w)
		}
	}
}
