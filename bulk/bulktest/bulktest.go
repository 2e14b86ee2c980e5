// Package bulktest checks bulk files the way a consumer reads them: gunzip,
// split lines, validate each against the file's JSON Schema (2020-12, formats
// asserted). The bulk package's tests and the edge's end-to-end tests share
// it.
//
// It imports the standard library and santhosh-tekuri/jsonschema/v6; no
// production package imports it.
package bulktest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles a schema as written beside a bulk file.
func Compile(schema []byte) (*jsonschema.Schema, error) {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	id, _ := doc["$id"].(string)
	if id == "" {
		return nil, fmt.Errorf("schema has no $id")
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
}

// Check reads a gzip JSON Lines file from r and validates every line
// against schema. It returns the number of rows, or an error naming the
// first bad line.
func Check(schema []byte, r io.Reader) (int64, error) {
	sch, err := Compile(schema)
	if err != nil {
		return 0, err
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var rows int64
	for sc.Scan() {
		rows++
		line := sc.Bytes()
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err != nil {
			return rows, fmt.Errorf("line %d: not JSON: %v", rows, err)
		}
		if err := sch.Validate(v); err != nil {
			return rows, fmt.Errorf("line %d: %v\n%s", rows, err, line)
		}
	}
	if err := sc.Err(); err != nil { // trailing bytes after the gzip stream fail as a bad header
		return rows, err
	}
	return rows, zr.Close()
}
