package oauth_test

import (
	"testing"
)

// BenchmarkServer_Verify is the cost an MCP call pays to verify its access
// token (the ended grants' revision is read at most once a second; the
// test clock stands still, so never here after the first call).
func BenchmarkServer_Verify(b *testing.B) {
	e := MustEnv(b, nil)
	_, tok := e.connect()
	access := []byte(tok["access_token"].(string))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.srv.Verify(access, e.srv.Resource()); err != nil {
			b.Fatal(err)
		}
	}
}
