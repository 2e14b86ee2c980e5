package gold

import "strings"

// Table describes one table of gold.sqlite, as Schema returns it.
type Table struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Columns     []TableColumn `json:"columns"`
}

// TableColumn is one column of a Table.
type TableColumn struct {
	Name string `json:"name"`
	// Type is the column's type in the result vocabulary of Column:
	// "integer", "real", "text" or "blob".
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// colDef is one column of a gold table. sqlType is the STRICT table type;
// gen, when set, makes the column a VIRTUAL generated column computed from
// the others on read (the *_usd amounts from the cents, sales.hidden from
// the flags): nothing stored, nothing written.
type colDef struct {
	name, sqlType, desc string
	gen                 string
}

func col(name, sqlType, desc string) colDef { return colDef{name: name, sqlType: sqlType, desc: desc} }

func genCol(name, sqlType, desc, expr string) colDef {
	return colDef{name: name, sqlType: sqlType, desc: desc, gen: expr}
}

type tableDef struct {
	name, desc string
	cols       []colDef
	// pk, when set, makes the table WITHOUT ROWID, clustered on these
	// columns: a card's rows sit together and need no separate index. The
	// Writer inserts such a table in key order (see writeSales); in card
	// order it cost more than a rowid table plus an index built at the end.
	pk      []string
	indexes []string // CREATE INDEX statements, run by Writer.Close
}

// stored returns how many columns are written (not generated).
func (t *tableDef) stored() int {
	n := 0
	for _, c := range t.cols {
		if c.gen == "" {
			n++
		}
	}
	return n
}

// insertSQL returns an INSERT of rows rows into the stored columns, with
// anonymous ? parameters: modernc.org/sqlite looks numbered ones (?NNN) up
// by name, which is quadratic in the number of parameters.
func (t *tableDef) insertSQL(rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(t.name)
	b.WriteString(" (")
	first := true
	for _, c := range t.cols {
		if c.gen != "" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(c.name)
	}
	b.WriteString(") VALUES ")
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", t.stored()), ",") + ")"
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	return b.String()
}

func (t *tableDef) createSQL() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(t.name)
	b.WriteString(" (\n")
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  ")
		b.WriteString(c.name)
		b.WriteByte(' ')
		b.WriteString(c.sqlType)
		if c.gen != "" {
			b.WriteString(" GENERATED ALWAYS AS (")
			b.WriteString(c.gen)
			b.WriteString(") VIRTUAL")
		}
	}
	if len(t.pk) > 0 {
		b.WriteString(",\n  PRIMARY KEY (")
		b.WriteString(strings.Join(t.pk, ", "))
		b.WriteString(")")
	}
	b.WriteString("\n) STRICT")
	if len(t.pk) > 0 {
		b.WriteString(", WITHOUT ROWID")
	}
	return b.String()
}

// The gold tables. The order of cols is the order of the INSERT arguments in
// writer.go: keep them in step. doc.go documents every column; a test checks
// that it names them all.
var (
	setsTable = tableDef{
		name: "sets",
		desc: "One language edition of a card set, with its 30-day market summary.",
		cols: []colDef{
			col("game", "TEXT NOT NULL", "game of the set (pokemon, onepiece, ...)"),
			col("id", "TEXT NOT NULL", "set id, e.g. en:EB-01; unique within a game"),
			col("language", "TEXT NOT NULL", "card language: en, ja, zh-cn, zh-tw"),
			col("source_id", "TEXT", "id of the set in its catalog source"),
			col("name", "TEXT NOT NULL", "set name"),
			col("series", "TEXT", "series the set belongs to; NULL when unknown"),
			col("release_date", "TEXT", "release date YYYY-MM-DD; NULL when unknown"),
			col("abbreviation", "TEXT", "set abbreviation; NULL when unknown"),
			col("card_count_printed", "INTEGER", "printed card count; NULL when unknown"),
			col("card_count_total", "INTEGER", "total card count incl. secret cards; NULL when unknown"),
			col("source", "TEXT", "catalog source of the set"),
			col("card_count", "INTEGER NOT NULL", "cards of the catalog in this set"),
			genCol("volume_30d_usd", "REAL", "verified sales volume over the 30 days up to as_of, USD", "volume_30d_cents / 100.0"),
			col("volume_30d_cents", "INTEGER NOT NULL", "the same in cents"),
			col("sales_30d", "INTEGER NOT NULL", "verified sales over the 30 days up to as_of"),
		},
		indexes: []string{
			"CREATE UNIQUE INDEX sets_id ON sets(id, game)",
		},
	}

	cardsTable = tableDef{
		name: "cards",
		desc: "One printed card of the catalog with its market summary as of the snapshot.",
		cols: []colDef{
			col("game", "TEXT NOT NULL", "game of the card"),
			col("id", "TEXT NOT NULL", "card id, e.g. en:EB01-001; unique within a game"),
			col("language", "TEXT NOT NULL", "card language: en, ja, zh-cn, zh-tw"),
			col("source_id", "TEXT", "id of the card in its catalog source"),
			col("set_id", "TEXT NOT NULL", "id of the card's set (sets.id)"),
			col("name", "TEXT NOT NULL", "card name"),
			col("name_language", "TEXT", "language of name"),
			col("number", "TEXT", "collector number as printed"),
			col("rarity", "TEXT", "rarity; NULL when the card has none"),
			col("supertype", "TEXT", "supertype (Pokémon, Trainer, Leader, ...); NULL when none"),
			col("subtypes", "TEXT NOT NULL", "JSON array of strings; [] when none"),
			col("colors", "TEXT NOT NULL", "JSON array of strings (types or colors); [] when none"),
			col("national_dex", "TEXT NOT NULL", "JSON array of national Pokédex numbers; [] when none"),
			col("variants", "TEXT", "JSON array of finishes the card exists in; NULL when unknown"),
			col("en_card_id", "TEXT", "id of the matching English card for other languages; NULL when none"),
			col("en_match", "TEXT", "how en_card_id was matched; NULL when none"),
			col("source", "TEXT", "catalog source of the card"),
			col("partner_product_id", "INTEGER", "partner marketplace product id; NULL when none"),
			col("ordinal", "INTEGER NOT NULL", "position in the game's catalog order"),
			col("market_sources", "TEXT NOT NULL", "JSON array of off-chain marketplaces with verified sales"),
			col("venues", "TEXT NOT NULL", "JSON array of on-chain venues with verified sales"),
			genCol("price_usd", "REAL", "raw:near_mint fair market value as of the snapshot, USD; NULL when unpriced", "price_cents / 100.0"),
			col("price_cents", "INTEGER", "the same in cents; NULL when unpriced"),
			col("price_date", "TEXT", "YYYY-MM-DD of the last price change behind price_usd; NULL when unpriced"),
			genCol("volume_30d_usd", "REAL", "verified sales volume over the 30 days up to as_of, USD", "volume_30d_cents / 100.0"),
			col("volume_30d_cents", "INTEGER NOT NULL", "the same in cents"),
			col("sales_30d", "INTEGER NOT NULL", "verified sales over the 30 days up to as_of"),
			col("sales_all", "INTEGER NOT NULL", "verified sales over all history"),
			col("listings", "INTEGER NOT NULL", "current shop listings"),
		},
		indexes: []string{
			"CREATE UNIQUE INDEX cards_id ON cards(id, game)",
			"CREATE INDEX cards_set_id ON cards(set_id)",
		},
	}

	salesTable = tableDef{
		name: "sales",
		desc: "Every recorded sale, and the partner price-feed rows (price_feed = 1), clustered by card, day and id.",
		cols: []colDef{
			col("id", "INTEGER NOT NULL", "sale id"),
			col("card_id", "TEXT NOT NULL", "card sold (cards.id)"),
			col("game", "TEXT NOT NULL", "game of the card"),
			col("sale_date", "TEXT NOT NULL", "day of the sale, YYYY-MM-DD (UTC)"),
			genCol("price_usd", "REAL", "price, USD", "price_cents / 100.0"),
			col("price_cents", "INTEGER NOT NULL", "price in cents"),
			col("marketplace", "TEXT NOT NULL", "partner, ebay, cardmarket, mercari, yahoo_auctions, courtyard, collector_crypt"),
			col("trade_type", "TEXT NOT NULL", "auction, fixed_price, best_offer, on_chain_transfer"),
			col("grade", "TEXT NOT NULL", "raw:<condition> or <grader>:<number>, e.g. raw:near_mint, slab:10"),
			col("identity_confidence", "TEXT NOT NULL", "exact, agree_high, agree_medium, disagree_medium, disagree_high"),
			col("quality_flagged", "INTEGER NOT NULL", "1 when a quality rule flagged the sale (hidden by default)"),
			col("price_feed", "INTEGER NOT NULL", "1 for a partner price-feed row: a daily market median, not an executed sale"),
			genCol("hidden", "INTEGER", "1 when the API hides the row by default: quality_flagged, price_feed or a disagree_* confidence", "quality_flagged OR price_feed OR identity_confidence IN ('disagree_medium', 'disagree_high')"),
			col("finish", "TEXT", "finish (one of the card's variants); NULL when unknown"),
			col("outlier", "INTEGER NOT NULL", "1 when the estimator set the verified sale aside as an outlier: it counts in volumes and sales counts but moves no price (GET /api/v3/methodology)"),
		},
		pk: []string{"card_id", "sale_date", "id"},
		indexes: []string{
			"CREATE INDEX sales_sale_date ON sales(sale_date)",
		},
	}

	pricePointsTable = tableDef{
		name: "price_points",
		desc: "Oracle price change points per card and grade of the card's base printing (the series of card detail without finish; other printings are served by the REST routes with finish); a day without a point keeps the previous point's values.",
		cols: []colDef{
			col("card_id", "TEXT NOT NULL", "card (cards.id)"),
			col("game", "TEXT NOT NULL", "game of the card"),
			col("grade", "TEXT NOT NULL", "grade of the series, e.g. raw:near_mint, slab:10"),
			col("date", "TEXT NOT NULL", "day of the change, YYYY-MM-DD"),
			genCol("fmv_usd", "REAL", "fair market value (smoothed estimate from sales), USD", "fmv_cents / 100.0"),
			col("fmv_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("tvwap_usd", "REAL", "time- and volume-weighted average over the trailing 7 days, USD", "tvwap_cents / 100.0"),
			col("tvwap_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("median_usd", "REAL", "median of the day's (or trailing 7 days') sales, USD", "median_cents / 100.0"),
			col("median_cents", "INTEGER NOT NULL", "the same in cents"),
			col("sales", "INTEGER NOT NULL", "sales behind this point (trailing 7 days)"),
		},
		indexes: []string{
			"CREATE INDEX price_points_card_id ON price_points(card_id, grade, date)",
		},
	}

	listingsTable = tableDef{
		name: "listings",
		desc: "Current shop listings (beta); deal_score and platform_freshness_h are experimental.",
		cols: []colDef{
			col("id", "TEXT NOT NULL", "listing id"),
			col("card_id", "TEXT NOT NULL", "card listed (cards.id)"),
			col("game", "TEXT NOT NULL", "game of the card"),
			col("platform", "TEXT NOT NULL", "shop platform (a marketplace name)"),
			col("grade", "TEXT NOT NULL", "grade of the listed copy"),
			col("finish", "TEXT", "finish; NULL when unknown"),
			genCol("ask_usd", "REAL", "asking price, USD", "ask_cents / 100.0"),
			col("ask_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("shipping_usd", "REAL", "shipping, USD", "shipping_cents / 100.0"),
			col("shipping_cents", "INTEGER NOT NULL", "the same in cents"),
			col("listed_date", "TEXT NOT NULL", "day the listing appeared, YYYY-MM-DD"),
			col("quantity", "INTEGER NOT NULL", "copies available"),
			col("deal_score", "REAL NOT NULL", "experimental: 100 × (1 - ask / fmv), clamped to [-100, 100]"),
			col("platform_freshness_h", "INTEGER NOT NULL", "experimental: hours since the platform was last read"),
		},
		indexes: []string{
			"CREATE INDEX listings_card_id ON listings(card_id)",
		},
	}

	cardAnalyticsTable = tableDef{
		name: "card_analytics",
		desc: "Per-card verified-sales statistics of the card's base printing, one row per card and window (1w, 1m, 3m, 6m, 1y, all).",
		cols: []colDef{
			col("card_id", "TEXT NOT NULL", "card (cards.id)"),
			col("game", "TEXT NOT NULL", "game of the card"),
			col("window", "TEXT NOT NULL", "1w, 1m, 3m, 6m, 1y or all"),
			col("from_date", "TEXT", "first day of the window, YYYY-MM-DD"),
			col("to_date", "TEXT", "last day of the window (as_of), YYYY-MM-DD"),
			col("sales", "INTEGER NOT NULL", "verified sales in the window"),
			genCol("volume_usd", "REAL", "their volume, USD", "volume_cents / 100.0"),
			col("volume_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("avg_usd", "REAL", "average price, USD", "avg_cents / 100.0"),
			col("avg_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("median_usd", "REAL", "median price, USD", "median_cents / 100.0"),
			col("median_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("low_usd", "REAL", "lowest price, USD", "low_cents / 100.0"),
			col("low_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("high_usd", "REAL", "highest price, USD", "high_cents / 100.0"),
			col("high_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("first_fmv_usd", "REAL", "raw:near_mint fmv at the start of the window, USD", "first_fmv_cents / 100.0"),
			col("first_fmv_cents", "INTEGER NOT NULL", "the same in cents"),
			genCol("last_fmv_usd", "REAL", "raw:near_mint fmv at the end of the window, USD", "last_fmv_cents / 100.0"),
			col("last_fmv_cents", "INTEGER NOT NULL", "the same in cents"),
			col("change_pct", "REAL NOT NULL", "fmv change over the window, percent"),
			col("volatility_pct", "REAL NOT NULL", "stdev of daily log returns of raw fmv, percent"),
			col("by_marketplace", "TEXT NOT NULL", "JSON object: sales per marketplace"),
			col("by_grade", "TEXT NOT NULL", "JSON object: sales per grade"),
			col("grade_median_cents", "TEXT NOT NULL", "JSON object: median price in cents per grade"),
			col("trade_types", "TEXT NOT NULL", "JSON object: sales per trade type"),
			col("extra", "TEXT", "JSON object of further metrics; NULL when none"),
		},
		indexes: []string{
			"CREATE INDEX card_analytics_card_id ON card_analytics(card_id, window)",
		},
	}
)

// tables lists the gold tables in schema order.
var tables = []*tableDef{&setsTable, &cardsTable, &salesTable, &pricePointsTable, &listingsTable, &cardAnalyticsTable}

// findTableDef returns the static definition of table name, or nil.
func findTableDef(name string) *tableDef {
	for _, t := range tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// affinityType maps a declared SQLite column type to the result vocabulary
// ("integer", "real", "text", "blob") with SQLite's affinity rules
// (https://www.sqlite.org/datatype3.html#determination_of_column_affinity).
// It returns "" when the declared type says nothing definite (empty, ANY or
// NUMERIC affinity): the caller then derives the type from the values.
func affinityType(decl string) string {
	d := strings.ToUpper(decl)
	switch {
	case d == "" || d == "ANY":
		return ""
	case strings.Contains(d, "INT"):
		return "integer"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "text"
	case strings.Contains(d, "BLOB"):
		return "blob"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "real"
	}
	return ""
}
