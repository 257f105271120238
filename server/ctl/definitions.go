package ctl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// runExportDefinitions is export_definitions FILE (or - for stdout). The
// document is written compact with sorted keys, as rabbitmqctl writes it.
func runExportDefinitions(e *env) int {
	file := e.args[0]
	if file != "-" {
		dir := filepath.Dir(file)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return e.argError(exitDataErr, fmt.Sprintf("Bad argument: Directory %s does not exist", dir))
		}
		e.info("Exporting definitions in JSON to a file at %s ...", quoted(file))
	}
	var doc any
	if err := e.c.getJSON(path("definitions"), &doc); err != nil {
		return e.failed(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return e.fail(exitSoftware, err.Error())
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if file == "-" {
		e.stdout.Write(out)
		return exitOK
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return e.fail(exitDataErr, err.Error())
	}
	return exitOK
}

// maxDefinitions bounds a definitions file read by import_definitions.
const maxDefinitions = 32 << 20

// runImportDefinitions is import_definitions FILE (or - for stdin). The
// server imports synchronously, so success means the definitions are in
// force (rabbitmqctl 3.10 only says an import has started).
func runImportDefinitions(e *env) int {
	file := e.args[0]
	var r io.Reader = e.stdin
	if file == "-" {
		e.info("Importing definitions in JSON from standard input ...")
	} else {
		f, err := os.Open(file)
		if err != nil {
			return e.argError(exitDataErr, fmt.Sprintf("Bad argument: File %s does not exist", file))
		}
		defer f.Close()
		r = f
		e.info("Importing definitions in JSON from a file at %s ...", quoted(file))
	}
	data, err := io.ReadAll(io.LimitReader(r, maxDefinitions+1))
	if err != nil {
		return e.fail(exitDataErr, err.Error())
	}
	if len(data) > maxDefinitions {
		return e.fail(exitDataErr, fmt.Sprintf("definitions larger than %d bytes", maxDefinitions))
	}
	var probe map[string]any
	if err := json.Unmarshal(data, &probe); err != nil {
		return e.fail(exitDataErr, fmt.Sprintf("Failed to deserialise input (format: JSON) (error: %v)", err))
	}
	if _, err := e.c.do("POST", path("definitions"), json.RawMessage(data)); err != nil {
		return e.failed(err)
	}
	e.info("Successfully imported definitions.")
	return exitOK
}
