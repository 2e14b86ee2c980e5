package jsontext

import (
	"bytes"
	"encoding/json"
)

// Marshal returns v as encoding/json writes it with SetEscapeHTML(false)
// (how every payload is encoded), without Encode's newline: the reference
// the appenders are tested against, and how a rare value without an
// appender is written inside one.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
