package gold_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/gold"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// Handmade records of the test database.
var (
	testSets = []*snapshots.Set{
		{Game: "pokemon", ID: "en:base1", Language: "en", SourceID: "base1", Name: "Base", Series: "Base",
			ReleaseDate: "1999-01-09", Abbreviation: "BS", CardCountPrinted: 102, CardCountTotal: 102,
			Source: "test", CardCount: 2, Volume30dCents: 123456, Sales30d: 3},
		{Game: "onepiece", ID: "en:OP-01", Language: "en", SourceID: "OP-01", Name: "Romance Dawn",
			Source: "test", CardCount: 1},
	}
	charizard = &snapshots.Card{Game: "pokemon", ID: "en:base1-4", Language: "en", SourceID: "base1-4",
		SetID: "en:base1", Name: "Charizard", NameLanguage: "en", Number: "4", Rarity: "Rare Holo",
		Supertype: "Pokémon", Subtypes: []string{"Stage 2"}, Colors: []string{"Fire"}, NationalDex: []int{6},
		Variants: []string{"holofoil", "1st-edition-holofoil"}, Source: "test", PartnerProductID: 42382,
		Ordinal: 3, MarketSources: []string{"partner", "ebay"}, Venues: []string{}, PriceCents: 45000,
		PriceDay: snapshotstest.Day("2026-10-30"), Volume30dCents: 123456, Sales30d: 3, SalesAll: 3, Listings: 2}
	charizardSales = []snapshots.Sale{
		{ID: 105, Day: snapshotstest.Day("2026-10-31"), PriceCents: 46000, Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeFixedPrice, Grade: snapshots.RawNearMint, Flags: snapshots.SalePriceFeed},
		{ID: 104, Day: snapshotstest.Day("2026-10-30"), PriceCents: 45050, Marketplace: snapshots.MarketEbay, TradeType: snapshots.TradeAuction, Grade: snapshots.RawNearMint, Finish: 1},
		{ID: 103, Day: snapshotstest.Day("2026-10-20"), PriceCents: 99999, Marketplace: snapshots.MarketEbay, TradeType: snapshots.TradeAuction, Grade: snapshots.RawNearMint, Flags: snapshots.SaleFlagged},
		{ID: 102, Day: snapshotstest.Day("2026-10-10"), PriceCents: 44000, Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeBestOffer, Grade: snapshots.GradedGrade(0, 10)},
		{ID: 101, Day: snapshotstest.Day("2026-10-01"), PriceCents: 34406, Marketplace: snapshots.VenueCourtyard, TradeType: snapshots.TradeOnChainTransfer, Grade: snapshots.RawNearMint, Confidence: snapshots.ConfDisagreeHigh},
		{ID: 100, Day: snapshotstest.Day("2026-09-30"), PriceCents: 34406, Marketplace: snapshots.MarketCardmarket, TradeType: snapshots.TradeFixedPrice, Grade: snapshots.RawNearMint, Confidence: snapshots.ConfAgreeHigh},
	}
	charizardSeries = []snapshots.PriceSeries{
		{Grade: snapshots.RawNearMint, Points: []snapshots.PricePoint{
			{Day: snapshotstest.Day("2026-10-01"), FMVCents: 40000, TVWAPCents: 39000, MedianCents: 39500, Sales: 2},
			{Day: snapshotstest.Day("2026-10-30"), FMVCents: 45000, TVWAPCents: 44000, MedianCents: 44500, Sales: 3},
		}},
		{Grade: snapshots.GradedGrade(0, 10), Points: []snapshots.PricePoint{
			{Day: snapshotstest.Day("2026-10-10"), FMVCents: 440000, TVWAPCents: 440000, MedianCents: 440000, Sales: 1},
		}},
	}
	charizardListings = []snapshots.Listing{
		{ID: "l1", CardID: "en:base1-4", Platform: "ebay", Grade: "raw:near_mint", AskCents: 47500, ShippingCents: 500, ListedDay: snapshotstest.Day("2026-10-29"), Quantity: 1, DealScore: -5.5, PlatformFreshnessH: 3},
		{ID: "l2", CardID: "en:base1-4", Platform: "partner", Grade: "slab:10", Finish: "holofoil", AskCents: 450000, ListedDay: snapshotstest.Day("2026-10-25"), Quantity: 2, PlatformFreshnessH: 1},
	}
	charizardAnalytics = []snapshots.CardAnalytics{
		{Window: "1w", From: "2026-10-25", To: "2026-10-31", Sales: 1, VolumeCents: 45050, AvgCents: 45050, MedianCents: 45050, LowCents: 45050, HighCents: 45050,
			ByMarketplace: map[string]int{"ebay": 1}, ByGrade: map[string]int{"raw:near_mint": 1}, GradeMedianCts: map[string]int64{"raw:near_mint": 45050}, TradeTypes: map[string]int{"auction": 1}},
		{Window: "all", From: "2026-09-30", To: "2026-10-31", Sales: 3, VolumeCents: 123456, ChangePct: 12.5, VolatilityPct: 3.25, Extra: map[string]float64{"x": 1.5}},
	}
	blastoise = &snapshots.Card{Game: "pokemon", ID: "en:base1-2", Language: "en", SetID: "en:base1", Name: "Blastoise", Number: "2", Ordinal: 1}
	luffy     = &snapshots.Card{Game: "onepiece", ID: "en:OP01-001", Language: "en", SetID: "en:OP-01", Name: "Roronoa Zoro; the \"swordsman\"", Number: "OP01-001"}
	luffySale = []snapshots.Sale{{ID: 200, Day: snapshotstest.Day("2026-10-31"), PriceCents: 199, Marketplace: snapshots.MarketMercari, Grade: snapshots.RawGrade(1)}}
)

// MustWrite writes the handmade test database and returns its path.
func MustWrite(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "gold.sqlite")
	w, err := gold.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range testSets {
		if err := w.AddSet(s); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.AddCard(charizard, charizardSales, charizardSeries, charizardListings, charizardAnalytics); err != nil {
		tb.Fatal(err)
	}
	if err := w.AddCard(blastoise, nil, nil, nil, nil); err != nil {
		tb.Fatal(err)
	}
	if err := w.AddCard(luffy, luffySale, nil, nil, nil); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// MustOpen opens a fresh copy of the test database with opt, closed at the
// end of the test.
func MustOpen(tb testing.TB, opt gold.Options) *gold.DB {
	tb.Helper()
	db, err := gold.OpenWith(MustWrite(tb), opt)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

// MustQuery runs a query that must succeed.
func MustQuery(tb testing.TB, db *gold.DB, sql string) *gold.Result {
	tb.Helper()
	res, err := db.Query(context.Background(), sql)
	if err != nil {
		tb.Fatalf("Query(%q): %v", sql, err)
	}
	return res
}

// wantInvalid asserts that err is an EINVALID *apperr.Error whose message
// matches re.
func wantInvalid(tb testing.TB, err error, re string) {
	tb.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.EINVALID {
		tb.Fatalf("error = %v (%T), want an EINVALID *apperr.Error", err, err)
	}
	if !regexp.MustCompile(re).MatchString(e.Message) {
		tb.Fatalf("message = %q, want it to match %q", e.Message, re)
	}
}

func TestWriter_Rows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gold.sqlite")
	w, err := gold.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddCard(charizard, charizardSales, charizardSeries, charizardListings, charizardAnalytics); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := w.Rows()
	want := map[string]int64{"sets": 0, "cards": 1, "sales": 6, "price_points": 3, "listings": 2, "card_analytics": 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rows() mismatch (-want +got):\n%s", diff)
	}
	if err := w.AddSet(testSets[0]); err == nil {
		t.Error("AddSet after Close: want an error")
	}
}

func TestWriter_ErrSticky(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gold.sqlite")
	w, err := gold.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := &snapshots.Card{Game: "pokemon", ID: "x", SetID: "s", Name: "NaN analytics"}
	an := []snapshots.CardAnalytics{{Window: "all", Extra: map[string]float64{"bad": nan()}}}
	err1 := w.AddCard(bad, nil, nil, nil, an)
	if err1 == nil {
		t.Fatal("AddCard with a NaN in Extra: want an error")
	}
	if err := w.AddSet(testSets[0]); err != err1 {
		t.Errorf("AddSet after an error = %v, want the first error %v", err, err1)
	}
	if err := w.Close(); err != err1 {
		t.Errorf("Close after an error = %v, want the first error %v", err, err1)
	}
}

func TestWriter_ErrDuplicateSale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gold.sqlite")
	w, err := gold.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	dup := []snapshots.Sale{charizardSales[1], charizardSales[1]}
	if err := w.AddCard(charizard, dup, nil, nil, nil); err != nil {
		t.Fatal(err) // sales are inserted at Close
	}
	err = w.Close()
	if err == nil || !strings.Contains(err.Error(), "UNIQUE constraint failed: sales.card_id, sales.sale_date, sales.id") {
		t.Fatalf("Close = %v, want a UNIQUE constraint error on sales", err)
	}
	if err2 := w.Close(); err2 != err {
		t.Errorf("second Close = %v, want the first error again", err2)
	}
}

func nan() float64 {
	z := 0.0
	return z / z
}

func TestWriter_Create_Replaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gold.sqlite")
	if err := os.WriteFile(path, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := gold.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := gold.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res := MustQuery(t, db, "SELECT count(*) FROM cards")
	if got := res.Rows[0][0]; got != int64(0) {
		t.Errorf("cards = %v, want 0", got)
	}
}

func TestDB_Query(t *testing.T) {
	db := MustOpen(t, gold.Options{})

	t.Run("OK", func(t *testing.T) {
		res := MustQuery(t, db, `
			SELECT count(*) AS n, sum(price_cents) AS cents, round(sum(price_usd), 2) AS usd
			FROM sales WHERE card_id = 'en:base1-4' AND hidden = 0;`)
		want := &gold.Result{
			Columns:  []gold.Column{{Name: "n", Type: "integer"}, {Name: "cents", Type: "integer"}, {Name: "usd", Type: "real"}},
			Rows:     [][]any{{int64(3), int64(45050 + 44000 + 34406), 1234.56}},
			RowCount: 1,
			MaxRows:  1000,
		}
		if diff := cmp.Diff(want, res, cmpResult); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
		res.ElapsedMS = 1.5
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		const wantJSON = `{"columns":[{"name":"n","type":"integer"},{"name":"cents","type":"integer"},{"name":"usd","type":"real"}],` +
			`"rows":[[3,123456,1234.56]],"row_count":1,"truncated":false,"max_rows":1000,"elapsed_ms":1.5}`
		if string(b) != wantJSON {
			t.Errorf("JSON:\n got %s\nwant %s", b, wantJSON)
		}
	})

	t.Run("Rows", func(t *testing.T) {
		res := MustQuery(t, db, `SELECT id, sale_date, price_usd, price_cents, marketplace, trade_type, grade,
			identity_confidence, quality_flagged, price_feed, hidden, finish
			FROM sales WHERE card_id = 'en:base1-4' ORDER BY id DESC LIMIT 4`)
		want := &gold.Result{
			Columns: []gold.Column{
				{"id", "integer"}, {"sale_date", "text"}, {"price_usd", "real"}, {"price_cents", "integer"},
				{"marketplace", "text"}, {"trade_type", "text"}, {"grade", "text"}, {"identity_confidence", "text"},
				{"quality_flagged", "integer"}, {"price_feed", "integer"}, {"hidden", "integer"}, {"finish", "text"},
			},
			Rows: [][]any{
				{int64(105), "2026-10-31", 460.0, int64(46000), "partner", "fixed_price", "raw:near_mint", "exact", int64(0), int64(1), int64(1), "holofoil"},
				{int64(104), "2026-10-30", 450.5, int64(45050), "ebay", "auction", "raw:near_mint", "exact", int64(0), int64(0), int64(0), "1st-edition-holofoil"},
				{int64(103), "2026-10-20", 999.99, int64(99999), "ebay", "auction", "raw:near_mint", "exact", int64(1), int64(0), int64(1), "holofoil"},
				{int64(102), "2026-10-10", 440.0, int64(44000), "partner", "best_offer", "slab:10", "exact", int64(0), int64(0), int64(0), "holofoil"},
			},
			RowCount: 4,
			MaxRows:  1000,
		}
		if diff := cmp.Diff(want, res, cmpResult); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("Joins", func(t *testing.T) {
		res := MustQuery(t, db, `
			WITH v AS (SELECT card_id, count(*) AS n FROM sales WHERE NOT hidden GROUP BY card_id)
			SELECT c.name, s.name AS set_name, c.price_usd, v.n, json_array_length(c.variants) AS variants,
			       (SELECT group_concat(window, ',') FROM card_analytics a WHERE a.card_id = c.id) AS windows,
			       (SELECT count(*) FROM price_points p WHERE p.card_id = c.id AND p.grade = 'raw:near_mint') AS points,
			       (SELECT sum(ask_cents + shipping_cents) FROM listings l WHERE l.card_id = c.id) AS asks
			FROM cards c JOIN sets s ON s.id = c.set_id AND s.game = c.game
			LEFT JOIN v ON v.card_id = c.id
			ORDER BY c.game DESC, c.ordinal`)
		want := [][]any{
			{"Blastoise", "Base", nil, nil, nil, nil, int64(0), nil},
			{"Charizard", "Base", 450.0, int64(3), int64(2), "1w,all", int64(2), int64(498000)},
			{"Roronoa Zoro; the \"swordsman\"", "Romance Dawn", nil, int64(1), nil, nil, int64(0), nil},
		}
		if diff := cmp.Diff(want, res.Rows); diff != "" {
			t.Errorf("rows mismatch (-want +got):\n%s", diff)
		}
		wantCols := []gold.Column{{"name", "text"}, {"set_name", "text"}, {"price_usd", "real"}, {"n", "integer"},
			{"variants", "integer"}, {"windows", "text"}, {"points", "integer"}, {"asks", "integer"}}
		if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
			t.Errorf("columns mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("DerivedTypes", func(t *testing.T) {
		res := MustQuery(t, db, `SELECT NULL AS a, x'00ff' AS b, 1.5 AS c, 'x' AS d,
			CASE WHEN id % 2 = 0 THEN 1 ELSE 2.5 END AS e, CASE WHEN id % 2 = 0 THEN 1 ELSE 'x' END AS f,
			1e999 AS g
			FROM sales WHERE card_id = 'en:base1-4' ORDER BY id LIMIT 2`)
		wantCols := []gold.Column{{"a", "null"}, {"b", "blob"}, {"c", "real"}, {"d", "text"}, {"e", "real"}, {"f", "any"}, {"g", "real"}}
		if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
			t.Errorf("columns mismatch (-want +got):\n%s", diff)
		}
		want := []any{nil, []byte{0, 0xff}, 1.5, "x", int64(1), int64(1), nil}
		if diff := cmp.Diff(want, res.Rows[0]); diff != "" {
			t.Errorf("row mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("CatalogFields", func(t *testing.T) {
		res := MustQuery(t, db, `SELECT subtypes, colors, national_dex, variants, market_sources, venues,
			partner_product_id, price_date, rarity FROM cards WHERE id IN ('en:base1-4', 'en:base1-2') ORDER BY ordinal DESC`)
		want := [][]any{
			{`["Stage 2"]`, `["Fire"]`, `[6]`, `["holofoil","1st-edition-holofoil"]`, `["partner","ebay"]`, `[]`, int64(42382), "2026-10-30", "Rare Holo"},
			{`[]`, `[]`, `[]`, nil, `[]`, `[]`, nil, nil, nil},
		}
		if diff := cmp.Diff(want, res.Rows); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("Analytics", func(t *testing.T) {
		res := MustQuery(t, db, `SELECT window, from_date, to_date, volume_usd, by_marketplace, grade_median_cents,
			json_extract(extra, '$.x'), change_pct FROM card_analytics ORDER BY window`)
		want := [][]any{
			{"1w", "2026-10-25", "2026-10-31", 450.5, `{"ebay":1}`, `{"raw:near_mint":45050}`, nil, 0.0},
			{"all", "2026-09-30", "2026-10-31", 1234.56, `{}`, `{}`, 1.5, 12.5},
		}
		if diff := cmp.Diff(want, res.Rows); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("ErrSQL", func(t *testing.T) {
		_, err := db.Query(context.Background(), "SELECT * FROM no_such_table")
		wantInvalid(t, err, `^SQL error: no such table: no_such_table$`)
		_, err = db.Query(context.Background(), "SELECT nope FROM sales")
		wantInvalid(t, err, `no such column: nope`)
		_, err = db.Query(context.Background(), "SELECT FROM")
		wantInvalid(t, err, `syntax error`)
	})
}

// cmpResult ignores the timing of a Result.
var cmpResult = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ElapsedMS" }, cmp.Ignore())

func TestDB_Query_ErrRefused(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	for _, tc := range []struct{ name, sql, re string }{
		{"Insert", "INSERT INTO sales(id) VALUES (1)", "INSERT is refused"},
		{"Update", "update cards set name = 'x'", "UPDATE is refused"},
		{"Delete", "DELETE FROM sales", "DELETE is refused"},
		{"Replace", "REPLACE INTO sets(id) VALUES ('x')", "REPLACE is refused"},
		{"Create", "CREATE TABLE t(x)", "CREATE is refused"},
		{"CreateTrigger", "CREATE TRIGGER t AFTER INSERT ON sales BEGIN DELETE FROM sales; END", "only one statement|CREATE is refused"},
		{"Drop", "DROP TABLE sales", "DROP is refused"},
		{"Alter", "ALTER TABLE sales ADD COLUMN x", "ALTER is refused"},
		{"Attach", "ATTACH DATABASE '/tmp/x.db' AS x", "ATTACH is refused"},
		{"Detach", "DETACH DATABASE main", "DETACH is refused"},
		{"PragmaWrite", "PRAGMA query_only = 0", "PRAGMA is refused"},
		{"PragmaRead", "PRAGMA table_info(sales)", "PRAGMA is refused"},
		{"PragmaWritableSchema", "pragma writable_schema=1", "PRAGMA is refused"},
		{"Vacuum", "VACUUM", "VACUUM is refused"},
		{"VacuumInto", "VACUUM INTO '/tmp/x.db'", "VACUUM is refused"},
		{"Reindex", "REINDEX", "REINDEX is refused"},
		{"Analyze", "ANALYZE", "ANALYZE is refused"},
		{"Begin", "BEGIN IMMEDIATE", "BEGIN is refused"},
		{"Commit", "COMMIT", "COMMIT is refused"},
		{"Savepoint", "SAVEPOINT a", "SAVEPOINT is refused"},
		{"Explain", "EXPLAIN SELECT 1", "EXPLAIN is refused"},
		{"ExplainQueryPlan", "EXPLAIN QUERY PLAN SELECT 1", "EXPLAIN is refused"},
		{"Values", "VALUES (1)", "VALUES is refused"},
		{"WithDelete", "WITH x AS (SELECT id FROM sales) DELETE FROM sales WHERE id IN (SELECT id FROM x)", "followed by DELETE"},
		{"WithInsert", "WITH RECURSIVE x(n) AS (SELECT 1) INSERT INTO sales(id) SELECT n FROM x", "followed by INSERT"},
		{"WithUpdate", "with x as materialized (select 1), y as not materialized (select 2) update cards set name = 'x'", "followed by UPDATE"},
		{"WithReplace", "WITH x AS (SELECT 1) REPLACE INTO sets(id) VALUES ('x')", "followed by REPLACE"},
		{"WithMalformed", "WITH x (SELECT 1) SELECT 1", "malformed WITH"},
		{"WithUnclosed", "WITH x AS (SELECT 1 SELECT 1", "malformed WITH"},
		{"LoadExtension", "SELECT load_extension('/tmp/evil.so')", "load_extension is not allowed"},
		{"LoadExtensionUpper", "SELECT LOAD_EXTENSION('/tmp/evil.so', 'init')", "load_extension is not allowed"},
		{"LoadExtensionQuoted", `SELECT "load_extension"('/tmp/evil.so')`, "load_extension is not allowed"},
		{"LoadExtensionBracket", `SELECT [load_extension]('/tmp/evil.so')`, "load_extension is not allowed"},
		{"LoadExtensionInSubquery", "SELECT (SELECT load_extension('x')) FROM cards", "load_extension is not allowed"},
		{"Fts3Tokenizer", "SELECT fts3_tokenizer('simple')", "fts3_tokenizer is not allowed"},
		{"DBPage", "SELECT * FROM sqlite_dbpage", "sqlite_dbpage is not allowed"},
		{"DBPageString", "SELECT * FROM 'sqlite_dbpage'", "sqlite_dbpage is not allowed"},
		{"PragmaFunction", "SELECT * FROM pragma_database_list", "pragma_database_list is not allowed"},
		{"PragmaFunctionString", "SELECT * FROM 'pragma_database_list'", "pragma_database_list is not allowed"},
		{"PragmaFunctionQueryOnly", "SELECT * FROM pragma_query_only", "pragma_query_only is not allowed"},
		{"TwoSelects", "select 1; select 2", "only one statement is allowed; found 2"},
		{"TwoSelectsNoSpace", "select 1;select 2;", "only one statement"},
		{"SelectThenDelete", "SELECT 1; DELETE FROM sales", "only one statement"},
		{"CommentThenStatement", "SELECT 1; /* c */ DELETE FROM sales -- x", "only one statement"},
		{"LineCommentEndsAtNewline", "SELECT 1 -- comment ;\n; DELETE FROM sales", "only one statement"},
		{"BlockCommentClosed", "SELECT 1 /* ; */; DELETE FROM sales", "only one statement"},
		{"StringThenStatement", "SELECT ';'; DELETE FROM sales", "only one statement"},
		{"EscapedQuote", "SELECT 'it''s;'; DELETE FROM sales", "only one statement"},
		{"QuotedIdentThenStatement", `SELECT 1 AS "a;""b"; DROP TABLE sales`, "only one statement"},
		{"BacktickThenStatement", "SELECT 1 AS `a;b`; DROP TABLE sales", "only one statement"},
		{"BracketThenStatement", "SELECT 1 AS [a;b]; DROP TABLE sales", "only one statement"},
		{"SlashStarAtEnd", "SELECT 1; /*", "only one statement"},
		{"UnterminatedString", "SELECT 'abc; DELETE FROM sales", "unterminated string"},
		{"UnterminatedIdent", `SELECT "abc; DELETE FROM sales`, "unterminated quoted identifier"},
		{"UnterminatedBracket", `SELECT [abc; DELETE FROM sales`, "unterminated quoted identifier"},
		{"NUL", "SELECT 1\x00; DELETE FROM sales", "NUL byte"},
		{"ControlChar", "SELECT 1\v", "control character"},
		{"Empty", "", "no statement"},
		{"OnlyComments", " -- nothing\n/* here */ ;; ", "no statement"},
		{"Parameter", "SELECT * FROM sales WHERE id = ?", "bound parameters"},
		{"NamedParameter", "SELECT * FROM sales WHERE id = :id", "bound parameters"},
		{"TclParameter", "SELECT $a(;)", "bound parameters|only one statement"},
		{"NotSQL", "hello world", "must start with SELECT or WITH"},
		{"Paren", "(SELECT 1)", "must start with SELECT or WITH"},
		{"TooLong", "SELECT 1 " + strings.Repeat(" ", gold.MaxSQLBytes), "at most 16384 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := db.Query(context.Background(), tc.sql)
			if err == nil {
				t.Fatalf("Query(%q) = %v rows, want refused", tc.sql, res.RowCount)
			}
			wantInvalid(t, err, tc.re)
		})
	}
}

func TestDB_Query_Allowed(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	for _, sql := range []string{
		"select 1",
		"SELECT 1;",
		"SELECT 1 ; ;\n -- trailing comment\n /* and a block */ ",
		"SELECT 1 -- no newline at the end",
		"SELECT 1 /* unterminated comment swallows the rest; DELETE FROM sales",
		"SELECT ';' AS semi, 'DELETE FROM sales; --' AS s, \"name\" FROM cards LIMIT 1",
		"/* leading */ -- comment\n SELECT 1",
		"WITH x AS (SELECT 1 AS n) SELECT n FROM x",
		"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5), d AS MATERIALIZED (SELECT 2) SELECT sum(n) FROM c, d",
		"WITH \"delete\"(x) AS NOT MATERIALIZED (SELECT 1) SELECT * FROM \"delete\"",
		"SELECT name FROM pragma_table_info('sales')",
		"SELECT * FROM cards WHERE name = 'edit' OR name = 'load_extension'",
		"SELECT x'0102', 0x1F, 1e3, .5, 1_000",
		"SELECT window FROM card_analytics",
		"SELECT * FROM sqlite_schema",
	} {
		if _, err := db.Query(context.Background(), sql); err != nil {
			t.Errorf("Query(%q): %v", sql, err)
		}
	}
}

func TestDB_Query_DefenceInDepth(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	ctx := context.Background()
	for _, tc := range []struct{ name, sql, re string }{
		{"Delete", "DELETE FROM sales", "read-only|readonly"},
		{"Insert", "INSERT INTO sets(game, id, language, name, card_count, volume_30d_cents, sales_30d) VALUES ('a','b','c','d',0,0,0)", "read-only|readonly"},
		{"WithDelete", "WITH x AS (SELECT 1) DELETE FROM sales", "read-only|readonly"},
		{"Create", "CREATE TABLE t(x)", "read-only|readonly"},
		{"CreateTemp", "CREATE TEMP TABLE t(x)", "read-only|readonly"},
		{"Attach", "ATTACH DATABASE ':memory:' AS x", "too many attached databases"},
		{"LoadExtension", "SELECT load_extension('/nonexistent/evil.so')", "not authorized"},
		{"PragmaQueryOnlyOff", "PRAGMA query_only = 0", ""}, // the pragma runs, but see below: the file is still read-only
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.QueryUnchecked(ctx, tc.sql)
			if tc.re == "" {
				return
			}
			if err == nil {
				t.Fatalf("%q ran on the guarded connection", tc.sql)
			}
			wantInvalid(t, err, tc.re)
		})
	}
	t.Run("QueryOnly", func(t *testing.T) {
		// Every connection of the pool has query_only set; a write after
		// PRAGMA query_only=0 still fails on the read-only, immutable file.
		res, err := db.QueryUnchecked(ctx, "PRAGMA query_only")
		if err != nil {
			t.Fatal(err)
		}
		_ = res
		_, err = db.QueryUnchecked(ctx, "DELETE FROM sales")
		wantInvalid(t, err, "read-only|readonly")
		res = MustQuery(t, db, "SELECT count(*) FROM sales")
		if got := res.Rows[0][0]; got != int64(7) {
			t.Errorf("sales = %v, want 7", got)
		}
	})
	t.Run("QueryOnlyPragma", func(t *testing.T) {
		db := MustOpen(t, gold.Options{MaxConns: 1})
		res, err := db.QueryUnchecked(ctx, "PRAGMA query_only")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Rows[0][0]; got != int64(1) {
			t.Errorf("PRAGMA query_only = %v, want 1", got)
		}
		_, err = db.QueryUnchecked(ctx, "UPDATE cards SET name = 'x'")
		wantInvalid(t, err, "readonly|read-only")
	})
}

func TestDB_Query_ErrTimeLimit(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	for _, tc := range []struct{ name, sql string }{
		// All the work happens before the first row.
		{"FirstStep", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"},
		// The first row comes at once; the work happens while reading the next.
		{"LaterRows", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c WHERE x = 1 OR x < 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := db.Query(context.Background(), tc.sql)
			elapsed := time.Since(start)
			wantInvalid(t, err, `^query exceeded the 1 s time limit$`)
			if elapsed > 10*time.Second {
				t.Errorf("the query stopped after %v", elapsed)
			}
		})
	}
	t.Run("ConnectionReusable", func(t *testing.T) {
		for range 4 {
			res := MustQuery(t, db, "SELECT count(*) FROM cards")
			if got := res.Rows[0][0]; got != int64(3) {
				t.Fatalf("cards = %v, want 3", got)
			}
		}
	})
}

func TestDB_Query_ErrContext(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := db.Query(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestDB_Query_ErrBusy(t *testing.T) {
	db := MustOpen(t, gold.Options{MaxConns: 1, WaitTimeout: 20 * time.Millisecond})
	done := make(chan error)
	go func() {
		_, err := db.Query(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c")
		done <- err
	}()
	// While the bomb holds the only connection, other queries are refused.
	busy := false
	for !busy {
		select {
		case err := <-done:
			t.Fatalf("the bomb ended (%v) before a second query saw the runner busy", err)
		default:
		}
		_, err := db.Query(context.Background(), "SELECT 1")
		switch code := apperr.ErrorCode(err); {
		case err == nil:
			time.Sleep(5 * time.Millisecond) // the bomb has not started yet
		case code == apperr.EQUOTA:
			busy = true
		default:
			t.Fatalf("second query: error %v (code %s), want EQUOTA", err, code)
		}
	}
	wantInvalid(t, <-done, `^query exceeded the 1 s time limit$`)
	MustQuery(t, db, "SELECT 1") // the connection is back
}

func TestDB_Query_TimeLimitOption(t *testing.T) {
	db := MustOpen(t, gold.Options{Timeout: 200 * time.Millisecond})
	_, err := db.Query(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c")
	wantInvalid(t, err, `^query exceeded the 200ms time limit$`)
}

func TestOpen_Path(t *testing.T) {
	// A path that needs escaping in a file: URI.
	dir := filepath.Join(t.TempDir(), "a b#c%20d?e")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "gold.sqlite")
	w, err := gold.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddSet(testSets[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "gold.sqlite" {
		t.Fatalf("directory holds %v (%v), want gold.sqlite alone", entries, err)
	}
	db, err := gold.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res := MustQuery(t, db, "SELECT name FROM sets")
	if diff := cmp.Diff([][]any{{"Base"}}, res.Rows); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestDB_Query_RowCap(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	t.Run("Truncated", func(t *testing.T) {
		res := MustQuery(t, db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1500) SELECT x FROM c")
		if !res.Truncated || res.RowCount != 1000 || len(res.Rows) != 1000 || res.MaxRows != 1000 {
			t.Errorf("Truncated=%v RowCount=%d len(Rows)=%d MaxRows=%d, want true 1000 1000 1000", res.Truncated, res.RowCount, len(res.Rows), res.MaxRows)
		}
		if got := res.Rows[999][0]; got != int64(1000) {
			t.Errorf("last row = %v, want 1000", got)
		}
	})
	t.Run("Exact", func(t *testing.T) {
		res := MustQuery(t, db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000) SELECT x FROM c")
		if res.Truncated || res.RowCount != 1000 {
			t.Errorf("Truncated=%v RowCount=%d, want false 1000", res.Truncated, res.RowCount)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		res := MustQuery(t, db, "SELECT id FROM sales WHERE 0")
		if res.Truncated || res.RowCount != 0 || res.Rows == nil {
			t.Errorf("Truncated=%v RowCount=%d Rows=%#v, want false 0 []", res.Truncated, res.RowCount, res.Rows)
		}
		if diff := cmp.Diff([]gold.Column{{"id", "integer"}}, res.Columns); diff != "" {
			t.Errorf("columns (-want +got):\n%s", diff)
		}
	})
	t.Run("Option", func(t *testing.T) {
		db := MustOpen(t, gold.Options{MaxRows: 2})
		res := MustQuery(t, db, "SELECT id FROM sales")
		if !res.Truncated || res.RowCount != 2 || res.MaxRows != 2 {
			t.Errorf("Truncated=%v RowCount=%d MaxRows=%d, want true 2 2", res.Truncated, res.RowCount, res.MaxRows)
		}
	})
}

func TestDB_Query_ErrTooBig(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	_, err := db.Query(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000) SELECT x, printf('%.5000c', 'a') FROM c")
	wantInvalid(t, err, `the result exceeds 4 MiB after \d+ rows`)
	_, err = db.Query(context.Background(), "SELECT zeroblob(10000000)")
	wantInvalid(t, err, `too big|exceeds`)
}

func TestDB_Query_Concurrent(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				res, err := db.Query(context.Background(), "SELECT count(*) FROM sales WHERE card_id = 'en:base1-4'")
				if err != nil {
					t.Error(i, err)
					return
				}
				if got := res.Rows[0][0]; got != int64(6) {
					t.Errorf("count = %v, want 6", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestDB_Schema(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	var names []string
	for _, tb := range db.Schema() {
		names = append(names, tb.Name)
		if tb.Description == "" {
			t.Errorf("table %s has no description", tb.Name)
		}
		for _, c := range tb.Columns {
			if c.Description == "" || c.Type == "" || c.Type == "any" {
				t.Errorf("column %s.%s: type %q description %q", tb.Name, c.Name, c.Type, c.Description)
			}
		}
	}
	want := []string{"sets", "cards", "sales", "price_points", "listings", "card_analytics"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	sales := db.Schema()[2]
	wantSales := []gold.TableColumn{
		{Name: "id", Type: "integer"}, {Name: "card_id", Type: "text"}, {Name: "game", Type: "text"},
		{Name: "sale_date", Type: "text"}, {Name: "price_usd", Type: "real"}, {Name: "price_cents", Type: "integer"},
		{Name: "marketplace", Type: "text"}, {Name: "trade_type", Type: "text"}, {Name: "grade", Type: "text"},
		{Name: "identity_confidence", Type: "text"}, {Name: "quality_flagged", Type: "integer"},
		{Name: "price_feed", Type: "integer"}, {Name: "hidden", Type: "integer"}, {Name: "finish", Type: "text"},
		{Name: "outlier", Type: "integer"},
	}
	if diff := cmp.Diff(wantSales, sales.Columns, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Description"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("sales columns (-want +got):\n%s", diff)
	}
}

// TestDoc checks that doc.go documents every table and column.
func TestDoc(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	db := MustOpen(t, gold.Options{})
	for _, tb := range db.Schema() {
		i := strings.Index(doc, "Table "+tb.Name+":")
		if i < 0 {
			t.Errorf("doc.go has no section %q", "Table "+tb.Name+":")
			continue
		}
		section := doc[i:]
		if j := strings.Index(section[1:], "Table "); j >= 0 {
			section = section[:j+1]
		}
		for _, c := range tb.Columns {
			if !regexp.MustCompile(`(?m)^//\s+` + regexp.QuoteMeta(c.Name) + `\s`).MatchString(section) {
				t.Errorf("doc.go section of table %s does not document column %s", tb.Name, c.Name)
			}
		}
	}
}

func TestOpen_ErrMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.sqlite")
	if _, err := gold.Open(path); err == nil {
		t.Fatal("Open of a missing file: want an error")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open created %s", path)
	}
}

// TestWriter_File checks the file the Writer leaves: consistent, with the
// page size it asked for, and planner statistics.
func TestWriter_File(t *testing.T) {
	db := MustOpen(t, gold.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		sql  string
		want any
	}{
		{"PRAGMA integrity_check", "ok"},
		{"PRAGMA page_size", int64(8192)},
		{"SELECT count(*) > 0 FROM sqlite_stat1", int64(1)},
		{"SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_%'", int64(7)},
	} {
		res, err := db.QueryUnchecked(ctx, tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := res.Rows[0][0]; got != tc.want {
			t.Errorf("%s = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

// TestDB_QueryPlan checks that the usual lookups use an index, not a scan,
// on a synthetic market large enough for the planner statistics to matter.
func TestDB_QueryPlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gold.sqlite")
	writeMarket(t, path, synthMarket(60, 10, 3))
	db, err := gold.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct{ sql, want string }{
		{"SELECT * FROM sales WHERE card_id = 'x'", "USING PRIMARY KEY (card_id=?)"},
		{"SELECT * FROM sales WHERE card_id = 'x' AND sale_date >= '2026-01-01'", "USING PRIMARY KEY (card_id=? AND sale_date>?)"},
		{"SELECT count(*) FROM sales WHERE sale_date BETWEEN '2026-10-01' AND '2026-10-31'", "USING COVERING INDEX sales_sale_date"},
		{"SELECT * FROM cards WHERE id = 'x'", "USING INDEX cards_id"},
		{"SELECT * FROM cards WHERE set_id = 'x'", "USING INDEX cards_set_id"},
		{"SELECT * FROM price_points WHERE card_id = 'x' AND grade = 'raw:near_mint'", "USING INDEX price_points_card_id"},
		{"SELECT * FROM listings WHERE card_id = 'x'", "USING INDEX listings_card_id"},
		{"SELECT * FROM card_analytics WHERE card_id = 'x'", "USING INDEX card_analytics_card_id"},
	} {
		res, err := db.QueryUnchecked(context.Background(), "EXPLAIN QUERY PLAN "+tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		var plan []string
		for _, row := range res.Rows {
			plan = append(plan, row[len(row)-1].(string))
		}
		if got := strings.Join(plan, "; "); !strings.Contains(got, tc.want) {
			t.Errorf("plan of %s = %q, want it to contain %q", tc.sql, got, tc.want)
		}
	}
}

// TestWriter_Spill checks that the sales wait in the scratch file beside the
// database and that Close removes it, after success and after an error.
func TestWriter_Spill(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sales []snapshots.Sale
	}{
		{"OK", charizardSales},
		{"ErrDuplicateSale", []snapshots.Sale{charizardSales[1], charizardSales[1]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gold.sqlite")
			w, err := gold.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddCard(charizard, tc.sales, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path + "-sales"); err != nil {
				t.Errorf("spill file before Close: %v", err)
			}
			err = w.Close()
			if got, want := err != nil, tc.name != "OK"; got != want {
				t.Errorf("Close = %v, want an error: %v", err, want)
			}
			if _, err := os.Stat(path + "-sales"); !os.IsNotExist(err) {
				t.Errorf("spill file after Close: %v, want it removed", err)
			}
		})
	}
}

func TestWriter_Abort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gold.sqlite")
	w, err := gold.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddCard(charizard, charizardSales, charizardSeries, charizardListings, charizardAnalytics); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if _, err := os.Stat(path + "-sales"); !os.IsNotExist(err) {
		t.Errorf("spill file after Abort: %v, want it removed", err)
	}
	if got := w.Rows()["sales"]; got != 0 {
		t.Errorf("sales rows after Abort = %d, want 0 (Abort inserts nothing more)", got)
	}
	if err := w.AddSet(testSets[0]); err == nil {
		t.Error("AddSet after Abort: want an error")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort: want an error")
	}
	w.Abort() // a second Abort does nothing
}
