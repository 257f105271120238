package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputIsCurrent regenerates from the engine's declarations and
// compares with the committed command_gen.go, so that go test catches a
// Cmd struct changed without go generate (as make generate-check does).
func TestOutputIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "engine")
	structs, cmds, err := parse(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := generate(structs, cmds)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, output))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("engine/command_gen.go is stale: run go generate ./engine")
	}
	got, err = generateWrappers(structs, cmds)
	if err != nil {
		t.Fatal(err)
	}
	want, err = os.ReadFile(filepath.Join(dir, wrappersOutput))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("engine/wrappers_gen.go is stale: run go generate ./engine")
	}
}

// TestUnknownFieldTypeIsRefused checks that a field type without a codec
// stops the generator instead of being given an encoding by guess.
func TestUnknownFieldTypeIsRefused(t *testing.T) {
	expr, err := parser.ParseExpr("struct{ Channel ChannelID; When float64 }")
	if err != nil {
		t.Fatal(err)
	}
	_, err = fieldsOf(map[string]*ast.StructType{}, expr.(*ast.StructType), "CmdX")
	if err == nil || !strings.Contains(err.Error(), "no codec for type float64") {
		t.Fatalf("got %v", err)
	}
}
