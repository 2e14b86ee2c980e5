package edge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRouterMatch(t *testing.T) {
	r := newRouter()
	for _, rt := range []*route{
		{method: "GET", pattern: "/api/v3/cards", name: "list"},
		{method: "GET", pattern: "/api/v3/cards/{card_id}", name: "card"},
		{method: "POST", pattern: "/api/v3/cards/batch", name: "batch"},
		{method: "GET", pattern: "/api/v3/cards/{card_id}/sales", name: "sales"},
		{method: "GET", pattern: "/api/v3/cards/{card_id}/history", name: "removed_history", removed: true},
		{method: "GET", pattern: "/api/v3/sets/{id}/{part}", name: "set_part"},
		{method: "GET", pattern: "/api/v3/sets/{id}/breakdown", name: "breakdown"},
		{method: "GET", pattern: "/prices", name: "prices_get"},
		{method: "POST", pattern: "/prices", name: "prices_post"},
		{method: "GET", pattern: "/", name: "root"},
	} {
		r.add(rt)
	}
	for _, tc := range []struct {
		method, path string
		name         string // "" = no route
		vars         []string
		allowed      []string
	}{
		{"GET", "/api/v3/cards", "list", nil, nil},
		{"GET", "/api/v3/cards/", "list", nil, nil},
		{"HEAD", "/api/v3/cards", "list", nil, nil},
		{"GET", "/api/v3/cards/en:base1-4", "card", []string{"en:base1-4"}, nil},
		{"POST", "/api/v3/cards/batch", "batch", nil, nil},
		// GET of the batch path is the card route (a card id "batch": 404 later).
		{"GET", "/api/v3/cards/batch", "card", []string{"batch"}, nil},
		{"GET", "/api/v3/cards/x/sales", "sales", []string{"x"}, nil},
		{"GET", "/api/v3/cards/x/history", "removed_history", []string{"x"}, nil},
		{"GET", "/api/v3/sets/base1/breakdown", "breakdown", []string{"base1"}, nil},
		{"GET", "/api/v3/sets/base1/other", "set_part", []string{"base1", "other"}, nil},
		{"GET", "/prices", "prices_get", nil, nil},
		{"POST", "/prices", "prices_post", nil, nil},
		{"DELETE", "/prices", "", nil, []string{"GET", "POST"}},
		{"POST", "/api/v3/cards/x", "", nil, []string{"GET"}},
		{"GET", "/", "root", nil, nil},
		{"GET", "", "root", nil, nil},
		{"GET", "/api/v3//sales", "", nil, nil},
		{"GET", "/api/v3/cards/x/sales/more", "", nil, nil},
		{"GET", "/nothing", "", nil, nil},
	} {
		rt, vars, allowed := r.match(tc.method, tc.path)
		name := ""
		if rt != nil {
			name = rt.name
		}
		if name != tc.name {
			t.Errorf("%s %s: route %q, want %q", tc.method, tc.path, name, tc.name)
			continue
		}
		if diff := cmp.Diff(tc.vars, vars.list(), cmpEmptyNil); diff != "" {
			t.Errorf("%s %s: vars (-want +got):\n%s", tc.method, tc.path, diff)
		}
		if diff := cmp.Diff(tc.allowed, allowed, cmpEmptyNil); diff != "" {
			t.Errorf("%s %s: allowed (-want +got):\n%s", tc.method, tc.path, diff)
		}
	}
}

var cmpEmptyNil = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func BenchmarkRouterMatch(b *testing.B) {
	s := &Server{router: newRouter()}
	s.registerRoutes()
	b.ReportAllocs()
	for b.Loop() {
		if rt, _, _ := s.router.match("GET", "/api/v3/cards/en:base1-4/price-history"); rt == nil {
			b.Fatal("no route")
		}
	}
}

func TestAcceptsEncoding(t *testing.T) {
	for _, tc := range []struct {
		header, enc string
		want        bool
	}{
		{"gzip", "gzip", true},
		{"gzip, deflate, br", "br", true},
		{"GZIP;q=0.5", "gzip", true},
		{"gzip;q=0", "gzip", false},
		{"gzip; Q = 0.000", "gzip", false},
		{"br;q=0.001, gzip", "br", true},
		{"deflate", "gzip", false},
		{"", "gzip", false},
		{"x-gzip", "gzip", false},
	} {
		if got := acceptsEncoding([]byte(tc.header), tc.enc); got != tc.want {
			t.Errorf("acceptsEncoding(%q, %q) = %v, want %v", tc.header, tc.enc, got, tc.want)
		}
	}
}

func TestETagMatch(t *testing.T) {
	for _, tc := range []struct {
		inm  string
		want bool
	}{
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`*`, true},
		{`"abcd"`, false},
		{`abc`, false},
		{``, false},
	} {
		if got := etagMatch([]byte(tc.inm), []byte(`"abc"`)); got != tc.want {
			t.Errorf("etagMatch(%q) = %v, want %v", tc.inm, got, tc.want)
		}
	}
}
