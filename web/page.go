package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/account"
)

// Page conventions (a new page, #21's cards or chat, follows them):
//
//   - templates/<name>.html defines "content" (and may define "head" for
//     extra <link> tags); it is parsed with layout.html and partials.html,
//     which give it the header, the navigation, the notices, the "csrf"
//     hidden field, "field" (a labelled input) and "chart" (an SVG chart
//     made by newBarChart).
//   - A handler fills a page (Title, Nav key, Data) and calls h.render;
//     templates read their own values under .Data, and the layout's under
//     the page itself.
//   - Every state-changing form is method="post" with {{template "csrf" $}}
//     and its handler is wrapped in requireSession (or checks the form
//     cookie before sign-in); after a change, redirect (303) to a GET page.
//   - No inline script or style (the CSP forbids them): styles go to
//     static/app.css, behaviour to static/app.js, which only improves pages
//     that work without it.
//   - Add the page to nav below when it belongs in the navigation.

//go:embed templates static
var files embed.FS

// navItem is one entry of the navigation of signed-in pages.
type navItem struct {
	Key, Label, Href string
}

// nav is the navigation, in order.
var nav = []navItem{
	{"cards", "Cards", Base + "/cards"},
	{"movers", "Movers", Base + "/movers"},
	{"collection", "Collection", Base + "/collection"},
	{"alerts", "Alerts", Base + "/alerts"},
	{"webhooks", "Webhooks", Base + "/webhooks"},
	{"keys", "Keys", Base + "/keys"},
	{"usage", "Usage", Base + "/usage"},
	{"chat", "Chat", Base + "/chat"},
	{"apps", "Connected apps", Base + "/apps"},
	{"account", "Account", Base + "/account"},
}

// page is what the layout renders.
type page struct {
	Title  string
	Lang   string // the language of the title when it is a card's name (ja, zh-cn...); "" for the page's
	Nav    string // the navigation key of this page ("" for none)
	Notice string // a confirmation ("Key revoked.")
	Error  string // what went wrong, shown above the content
	Data   any    // the page template's own values

	Account *account.Account // nil before sign-in
	CSRF    string           // the token of the page's forms
	Items   []navLink
	// Synthetic: the live snapshot's market data is synthesized (the
	// offline default): the layout says so above every page.
	Synthetic bool
}

type navLink struct {
	Label, Href string
	Current     bool
}

// pages are the parsed templates, one set per page.
type pages struct {
	sets   map[string]*template.Template
	assets map[string]asset
}

type asset struct {
	body  []byte
	ctype string
	tag   string // the first 12 hex digits of its SHA-256, for cache busting
}

func parsePages() (*pages, error) {
	p := &pages{sets: map[string]*template.Template{}, assets: map[string]asset{}}
	err := fs.WalkDir(files, "static", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ctype := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
			".svg": "image/svg+xml"}[path.Ext(name)]
		p.assets[path.Base(name)] = asset{body: b, ctype: ctype, tag: hex.EncodeToString(sum[:6])}
		return nil
	})
	if err != nil {
		return nil, err
	}
	funcs := template.FuncMap{
		"asset": func(name string) (string, error) {
			a, ok := p.assets[name]
			if !ok {
				return "", fmt.Errorf("web: no asset %q", name)
			}
			return Base + "/static/" + name + "?v=" + a.tag, nil
		},
		"date":     func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"datetime": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"num":      formatInt,
		"int":      func(n int) string { return formatInt(int64(n)) },
		"stamp":    stamp,
		"fieldOf":  fieldOf,
		"rulesOf":  func(rows []ruleRow, csrf string) ruleTable { return ruleTable{Rows: rows, CSRF: csrf} },
	}
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, err
		}
		p.sets[base] = t
	}
	return p, nil
}

// render writes page name with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	t := h.pages.sets[name]
	if t == nil {
		panic("web: no page template " + name)
	}
	if p.Account != nil {
		for _, it := range nav {
			if it.Key == "apps" && h.opts.OAuth == nil {
				continue
			}
			p.Items = append(p.Items, navLink{Label: it.Label, Href: it.Href, Current: it.Key == p.Nav})
		}
	}
	if h.opts.Snapshots != nil {
		v := h.opts.Snapshots.Acquire()
		p.Synthetic = v.Reader.Manifest().Synthetic()
		v.Release()
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, p); err != nil {
		h.log.Error("web: rendering a page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// renderError writes the error page: status and what to do.
func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	p := page{Title: http.StatusText(status), Error: msg}
	if status != http.StatusTooManyRequests { // a limited client gets no store read
		if _, s, a, ok := h.session(r); ok {
			p.Account, p.CSRF = &a, s.CSRF
		}
	}
	h.render(w, r, status, "error", p)
}

// signedInPage returns a page of the signed-in account.
func (si signedIn) page(title, navKey string, data any) page {
	a := si.account
	return page{Title: title, Nav: navKey, Data: data, Account: &a, CSRF: si.session.CSRF}
}

func (h *Handler) registerAssetRoutes() {
	h.mux.HandleFunc("GET "+Base+"/static/{name}", func(w http.ResponseWriter, r *http.Request) {
		a, ok := h.pages.assets[r.PathValue("name")]
		if !ok {
			h.handleNotFound(w, r)
			return
		}
		if r.URL.Query().Get("v") == a.tag {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		w.Header().Set("Content-Type", a.ctype)
		w.Write(a.body)
	})
}

// formatInt writes n with thin thousands separators (12,345).
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// stamp writes an RFC 3339 time as pages show times (2006-01-02 15:04 UTC);
// anything else as it is.
func stamp(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
