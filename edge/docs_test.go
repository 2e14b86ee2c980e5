package edge

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocs_Assets: the committed Redoc bundle is the one SHA256SUMS names
// (make redoc-assets writes both), and the bundle served differs from it
// only in the logo URL of Redocly's CDN.
func TestDocs_Assets(t *testing.T) {
	sums, err := os.ReadFile("assets/redoc/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := strings.Cut(string(sums), " ")
	b, _ := os.ReadFile("assets/redoc/redoc.standalone.js")
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("assets/redoc/redoc.standalone.js has SHA-256 %s, SHA256SUMS says %s (run make redoc-assets)", got, want)
	}
	if n := bytes.Count(b, []byte(redocRemoteLogo)); n != 1 {
		t.Errorf("the bundle names Redocly's logo URL %d times, want 1 (a new Redoc: check what else it fetches)", n)
	}
	var d docs
	d.load()
	if bytes.Contains(d.bundle, []byte("cdn.redoc.ly")) || len(d.bundle) != len(b)-len(redocRemoteLogo)+len(redocLocalLogo) {
		t.Errorf("the served bundle is not the committed one with the logo replaced")
	}
}

func TestDocs_Serve(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	status, page := e.do(t, "GET", DocsPath, "", "")
	if status != 200 {
		t.Fatalf("GET %s: %d %s", DocsPath, status, page)
	}
	r := e.get(t, DocsPath)
	if csp := r.Headers["Content-Security-Policy"]; !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe-eval") ||
		!strings.Contains(csp, "frame-ancestors 'none'") || r.Headers["Content-Type"] != "text/html; charset=utf-8" {
		t.Errorf("page headers %v", r.Headers)
	}
	// Every script and link of the page is on this server.
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(string(page), -1) {
		if !strings.HasPrefix(m[1], "/") && !strings.HasPrefix(m[1], "data:") {
			t.Errorf("the page refers to %s", m[1])
		}
		if strings.HasPrefix(m[1], DocsPath+"/") {
			if st, _ := e.do(t, "GET", m[1], "", ""); st != 200 {
				t.Errorf("GET %s: %d", m[1], st)
			}
		}
	}
	if bytes.Contains(page, []byte("<script>")) {
		t.Errorf("the page has an inline script")
	}
	var d docs
	d.load()
	r = e.get(t, d.bundleURL, "Accept-Encoding", "gzip")
	if r.Headers["Content-Encoding"] != "gzip" || !strings.Contains(r.Headers["Cache-Control"], "immutable") {
		t.Errorf("bundle headers %v", r.Headers)
	}
	zr, err := gzip.NewReader(strings.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := io.ReadAll(zr); !bytes.Equal(js, d.bundle) {
		t.Errorf("the gzipped bundle is not the bundle")
	}
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"HEAD", DocsPath, 200},
		{"GET", DocsPath + "/", 200},
		{"GET", DocsPath + "/LICENSE", 200},
		{"GET", DocsPath + "/redoc.standalone.js.LICENSE.txt", 200},
		{"GET", DocsPath + "/nope.js", 404},
		{"POST", DocsPath, 405},
		{"GET", DocsPath + "x", 404}, // not the page: no route
	} {
		if st, body := e.do(t, c.method, c.path, "", ""); st != c.status {
			t.Errorf("%s %s: %d, want %d: %.200s", c.method, c.path, st, c.status, body)
		}
	}
}
