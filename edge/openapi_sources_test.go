package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/openapi"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// sourcesRoot is a snapshots root built from the sources' fixtures
// (sourcetest.BuildDays: two days of Cardmarket's guide and TCGplayer's
// prices), built on first use.
var sourcesRoot = snapshotstest.SharedRoot{Build: func(dir string) error { _, err := sourcetest.BuildDays(dir); return err }}

// sourcesExampleRequests are recorded a second time on sourcesRoot: the
// document's "sources" examples, which show each price with its source,
// the original currency and the ECB rate, as a build from real files
// serves them. Their numbers are the fixtures' (e2e's TestRealData_Served
// checks them one by one).
var sourcesExampleRequests = []struct{ route, target string }{
	{"card_get", "/api/v3/cards/en:base1-4"},
	{"card_price_history", "/api/v3/cards/en:base1-4/price-history"},
	{"card_partner_history", "/api/v3/cards/en:base1-4/partner-history"},
	{"trending", "/api/v3/trending?metric=price_pct&window=1d"},
	{"quote", "/api/v3/quote?q=cardmarket:273699&grade=raw:near_mint"},
	{"prices_get", "/prices?ids=en:base1-4&source=cardmarket"},
}

// TestOpenAPI_SourcesExamples compares (or, with -update, writes) the
// sources examples: each response validates against the document.
func TestOpenAPI_SourcesExamples(t *testing.T) {
	e := newMemoEnv(t, filepath.Join(sourcesRoot.Get(t), "snapshots"), 0)
	secret, key, err := e.store.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "examples", Unmetered: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.acc.Sync(); err != nil {
		t.Fatal(err)
	}
	doc := mustServedDocument(t, e.srv)
	norm := normalizer{keyID: key.ID, ids: map[string]string{}}
	dir := filepath.Join(examplesDir, "sources")
	files := map[string]bool{}
	for _, x := range sourcesExampleRequests {
		files[x.route+".json"] = true
		status, resp := e.do(t, "GET", x.target, "", "", "Authorization", "Bearer "+secret)
		pathOnly, _, _ := strings.Cut(x.target, "?")
		rt, _, _ := e.srv.router.match("GET", pathOnly)
		if status != 200 || rt == nil || rt.name != x.route {
			t.Errorf("GET %s: %d (route %v): %s", x.target, status, rt, resp)
			continue
		}
		if err := doc.ValidateResponse("GET", rt.pattern, 200, resp); err != nil {
			t.Errorf("GET %s: the response does not validate against the document:\n%v", x.target, err)
		}
		got, err := json.MarshalIndent(openapi.Example{Request: x.target, Response: norm.normalize(resp)}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		file := filepath.Join(dir, x.route+".json")
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if want, err := os.ReadFile(file); err != nil || !bytes.Equal(got, want) {
			t.Errorf("the sources example of %s (%s) differs from its response (%v); if the change is meant, run make golden and review the diff\n%s",
				x.route, file, err, firstDiff(want, got))
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, ent := range entries {
		if !files[ent.Name()] {
			t.Errorf("%s/%s is the sources example of no route (run make golden)", dir, ent.Name())
		}
	}
}
