package edge

import (
	"bytes"
	"compress/gzip"
	"embed"
	"strings"
	"sync"

	"github.com/cardedge/cardedge/apperr"
	"github.com/valyala/fasthttp"
)

// The API reference page, GET /api/v3/docs: the OpenAPI document rendered by
// Redoc (its standalone bundle from npm, pinned and committed under
// edge/assets/redoc with its licenses; make redoc-assets refreshes it),
// served from the binary. Nothing is fetched from another host: the page,
// the bundle, the script that starts it and the document all come from this
// server, and the Content-Security-Policy says so. The page's requests are
// not charged (static files), except the document itself, a Playground
// request like any other.

// DocsPath is the reference page.
const DocsPath = "/api/v3/docs"

//go:embed assets/redoc/redoc.standalone.js assets/redoc/*.LICENSE.txt assets/redoc/LICENSE assets/redoc/VERSION
var redocAssets embed.FS

// docsCSP is the page's Content-Security-Policy: everything from this
// server ('self'), and what Redoc needs besides, nothing more:
//   - style-src 'unsafe-inline': Redoc styles its components with
//     styled-components, which writes <style> elements at run time (their
//     rules change with the document, so no hash or nonce can name them);
//   - worker-src blob:: Redoc's search index runs in a Web Worker it builds
//     from a Blob of its own code;
//   - img-src data:: the icons in Redoc's stylesheet are data: URLs.
//
// Scripts are 'self' only (no inline script, no eval), the page cannot be
// framed, and it submits no form.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Redoc's menu ends with an "API docs by Redocly" link whose logo it loads
// from Redocly's CDN: the one thing it fetches from another host (the CSP
// would block it, and log a violation). The bundle is served as published
// but for that URL, which becomes an empty image; the link stays.
const (
	redocRemoteLogo = `"https://cdn.redoc.ly/redoc/logo-mini.svg"`
	redocLocalLogo  = `"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='0' height='0'/%3E"`
)

// docs holds the page's files, made once.
type docs struct {
	once      sync.Once
	version   string
	bundle    []byte // redoc.standalone.js
	bundleGz  []byte
	bundleURL string
	page      []byte
	licenses  map[string][]byte
}

func (d *docs) load() {
	d.once.Do(func() {
		v, _ := redocAssets.ReadFile("assets/redoc/VERSION")
		d.version = strings.TrimSpace(string(v))
		bundle, _ := redocAssets.ReadFile("assets/redoc/redoc.standalone.js")
		d.bundle = bytes.Replace(bundle, []byte(redocRemoteLogo), []byte(redocLocalLogo), 1)
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		w.Write(d.bundle)
		w.Close()
		d.bundleGz = gz.Bytes()
		d.bundleURL = DocsPath + "/redoc-" + d.version + ".standalone.js"
		d.licenses = map[string][]byte{}
		entries, _ := redocAssets.ReadDir("assets/redoc")
		for _, e := range entries {
			if n := e.Name(); n == "LICENSE" || strings.HasSuffix(n, ".LICENSE.txt") {
				d.licenses[n], _ = redocAssets.ReadFile("assets/redoc/" + n)
			}
		}
		d.page = []byte(strings.NewReplacer("{{bundle}}", d.bundleURL, "{{version}}", d.version).Replace(docsPage))
	})
}

// docsPage is the reference page. Its only scripts are Redoc's bundle and
// docs.js, which starts Redoc on the element that names the document.
const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>cardedge API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript><p>This page renders the API's OpenAPI document with JavaScript. Without it, read the document itself:
<a href="/api/v3/openapi.json">/api/v3/openapi.json</a>.</p></noscript>
<div id="redoc" data-spec-url="/api/v3/openapi.json"></div>
<script src="{{bundle}}"></script>
<script src="` + DocsPath + `/docs.js"></script>
<!-- Redoc {{version}} (MIT): ` + DocsPath + `/LICENSE; the licenses of what its bundle holds: ` + DocsPath + `/redoc.standalone.js.LICENSE.txt -->
</body>
</html>
`

// docsScript starts Redoc (no inline script: the CSP allows none).
const docsScript = `"use strict";
(function () {
  var el = document.getElementById("redoc");
  Redoc.init(el.getAttribute("data-spec-url"), {
    expandResponses: "200",
    jsonSampleExpandLevel: 3,
    hideDownloadButton: false,
    requiredPropsFirst: true,
    sortRequiredPropsFirst: true,
    theme: { colors: { primary: { main: "#1f5f8b" } } }
  }, el);
})();
`

// isDocsPath reports whether p is the page or one of its files.
func isDocsPath(p []byte) bool {
	return bytes.HasPrefix(p, []byte(DocsPath)) && (len(p) == len(DocsPath) || p[len(DocsPath)] == '/')
}

// handleDocs serves the page and its files (GET and HEAD).
func (s *Server) handleDocs(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		writeCode(ctx, apperr.EMETHOD, string(ctx.Method())+" is not allowed here; use GET")
		return
	}
	d := &s.docs
	d.load()
	h := &ctx.Response.Header
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	path := string(ctx.Path())
	switch {
	case path == DocsPath || path == DocsPath+"/":
		h.Set("Content-Security-Policy", docsCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		ctx.SetContentType("text/html; charset=utf-8")
		ctx.SetBody(d.page)
	case path == DocsPath+"/docs.js":
		h.Set("Cache-Control", "no-cache")
		ctx.SetContentType("text/javascript; charset=utf-8")
		ctx.SetBodyString(docsScript)
	case path == d.bundleURL:
		// The version is in the name: a new bundle is a new URL.
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("Vary", "Accept-Encoding")
		ctx.SetContentType("text/javascript; charset=utf-8")
		if ctx.Request.Header.HasAcceptEncoding("gzip") {
			h.Set("Content-Encoding", "gzip")
			ctx.SetBody(d.bundleGz)
		} else {
			ctx.SetBody(d.bundle)
		}
	case strings.HasPrefix(path, DocsPath+"/") && d.licenses[path[len(DocsPath)+1:]] != nil:
		h.Set("Cache-Control", "public, max-age=86400")
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBody(d.licenses[path[len(DocsPath)+1:]])
	default:
		writeCode(ctx, apperr.ENOTFOUND, "no file "+path+" of the API reference; the page is "+DocsPath)
	}
}
