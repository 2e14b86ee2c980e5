package e2e_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	cardedgeclient "github.com/cardedge/cardedge/clients/go"
	"github.com/cardedge/cardedge/e2e/e2etest"
)

// Typed clients generated from the OpenAPI document, against the real edge
// (README "Clients").

// TestClients_TypeScript generates TypeScript types from the served
// document with openapi-typescript, type-checks clients/ts/example.ts
// (openapi-fetch calls of the card list, card detail with includes and
// price history) with tsc --noEmit, then compiles and runs it.
func TestClients_TypeScript(t *testing.T) {
	dir := npmWorkdir(t, "clients/ts", "example.ts", "tsconfig.json", "package.json")
	runNode(t, dir, 2*time.Minute, "openapi-typescript", env.base+"/api/v3/openapi.json", "-o", "schema.d.ts")
	runNode(t, dir, 3*time.Minute, "tsc", "--noEmit")
	runNode(t, dir, 3*time.Minute, "tsc", "--noCheck") // emit only: checked above
	key := mustKey(t, access.Pro, false)
	out := runNode(t, dir, time.Minute, "node", "out/example.js", env.base, key)
	var sum struct {
		Cards    []string `json:"cards"`
		Includes []string `json:"includes"`
		Points   int      `json:"points"`
		Grade    string   `json:"grade"`
		NotFound string   `json:"not_found"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("example.js printed %s: %v", out, err)
	}
	if len(sum.Cards) == 0 || strings.Join(sum.Includes, ",") != "market_summary,recent_sales" || sum.Grade != "raw:near_mint" || sum.NotFound != "not_found" {
		t.Errorf("example.js: %s", out)
	}
	t.Logf("TypeScript client: %s", out)
}

// TestClients_Go calls the same three routes through the Go client that
// oapi-codegen generated (clients/go).
func TestClients_Go(t *testing.T) {
	key := mustKey(t, access.Pro, false)
	c, err := cardedgeclient.NewClientWithResponses(env.base, cardedgeclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, limit, sort := "charizard", 3, cardedgeclient.CardsListParamsSortPrice
	list, err := c.CardsListWithResponse(ctx, &cardedgeclient.CardsListParams{Q: &q, Limit: &limit, Sort: &sort})
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data.Items) == 0 {
		t.Fatalf("CardsList: %v %s", err, truncate(list.Body))
	}
	id := list.JSON200.Data.Items[0].CardId
	include := "market_summary,recent_sales"
	detail, err := c.CardGetWithResponse(ctx, id, &cardedgeclient.CardGetParams{Include: &include})
	if err != nil || detail.JSON200 == nil {
		t.Fatalf("CardGet: %v %s", err, truncate(detail.Body))
	}
	card := detail.JSON200.Data
	if card.CardId != id || card.Includes == nil || card.Includes.MarketSummary == nil || card.Includes.RecentSales == nil {
		t.Errorf("CardGet %s: %+v", id, card)
	}
	grade := "raw:near_mint"
	hist, err := c.CardPriceHistoryWithResponse(ctx, id, &cardedgeclient.CardPriceHistoryParams{Grade: &grade})
	if err != nil || hist.JSON200 == nil || hist.JSON200.Data.Grade != grade {
		t.Fatalf("CardPriceHistory: %v %s", err, truncate(hist.Body))
	}
	missing, err := c.CardGetWithResponse(ctx, "en:no-such-card", nil)
	if err != nil || missing.JSON404 == nil || missing.JSON404.Error.Code != "not_found" {
		t.Errorf("CardGet of an unknown card: %v %d %s", err, missing.StatusCode(), truncate(missing.Body))
	}
	t.Logf("Go client: %d cards, %s: %d price points", len(list.JSON200.Data.Items), id, len(hist.JSON200.Data.Items))
}

// TestClients_GoUpToDate: the Go client was generated from the document as
// it is (go generate writes the document's digest beside the client).
func TestClients_GoUpToDate(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(e2etest.RepoRoot(), "edge", "testdata", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(e2etest.RepoRoot(), "clients", "go", "openapi.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(doc)
	if got := hex.EncodeToString(sum[:]); got != strings.TrimSpace(string(want)) {
		t.Errorf("clients/go was generated from another document (run make golden, which runs go generate ./clients/go)")
	}
}
