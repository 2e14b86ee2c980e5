package edge

import (
	"bytes"
	"encoding/json"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
)

// Hooks for the lookup tests in package edge_test.

// LookupBodies answers a lookup over ix as the handler does and returns
// the body it writes (AppendJSON) and encoding/json's encoding of the
// documented payload (lookupPayload), which must be the same bytes.
func LookupBodies(ix *index.Index, game, q, language string, limit int) (fast, reflected []byte) {
	b := lookup(ix, game, q, language, limit)
	return b.AppendJSON(nil), encodeJSON(b.payload())
}

// JSONQuery and JSONPrice are the lookup body's encoders of the query and
// of a price; EncodeJSON is encoding/json's (HTML escaping off).
func JSONQuery(s string) []byte     { return appendJSONStr(nil, s) }
func JSONPrice(cents int64) []byte  { return appendUSDOrNull(nil, cents) }
func USDOrNil(cents int64) *float64 { return snapshots.USDOrNil(cents) }
func EncodeJSON(v any) []byte       { return encodeJSON(v) }

func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("error: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
