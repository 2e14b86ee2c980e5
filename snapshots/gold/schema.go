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

// colDef is one column of a gold table. sqlType is the STRICT table type.
type colDef struct {
	name, sqlType, desc string
}

type tableDef struct {
	name, desc string
	cols       []colDef
	indexes    []string // CREATE INDEX statements, run by Writer.Close
}

func (t *tableDef) insertSQL() string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(t.name)
	b.WriteString(" VALUES (")
	for i := range t.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('?')
	}
	b.WriteByte(')')
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
	}
	b.WriteString("\n) STRICT")
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
			{"game", "TEXT NOT NULL", "game of the set (pokemon, onepiece, ...)"},
			{"id", "TEXT NOT NULL", "set id, e.g. en:EB-01; unique within a game"},
			{"language", "TEXT NOT NULL", "card language: en, ja, zh-cn, zh-tw"},
			{"source_id", "TEXT", "id of the set in its catalog source"},
			{"name", "TEXT NOT NULL", "set name"},
			{"series", "TEXT", "series the set belongs to; NULL when unknown"},
			{"release_date", "TEXT", "release date YYYY-MM-DD; NULL when unknown"},
			{"abbreviation", "TEXT", "set abbreviation; NULL when unknown"},
			{"card_count_printed", "INTEGER", "printed card count; NULL when unknown"},
			{"card_count_total", "INTEGER", "total card count incl. secret cards; NULL when unknown"},
			{"source", "TEXT", "catalog source of the set"},
			{"card_count", "INTEGER NOT NULL", "cards of the catalog in this set"},
			{"volume_30d_usd", "REAL NOT NULL", "verified sales volume over the 30 days up to as_of, USD"},
			{"volume_30d_cents", "INTEGER NOT NULL", "the same in cents"},
			{"sales_30d", "INTEGER NOT NULL", "verified sales over the 30 days up to as_of"},
		},
		indexes: []string{
			"CREATE UNIQUE INDEX sets_id ON sets(id, game)",
		},
	}

	cardsTable = tableDef{
		name: "cards",
		desc: "One printed card of the catalog with its market summary as of the snapshot.",
		cols: []colDef{
			{"game", "TEXT NOT NULL", "game of the card"},
			{"id", "TEXT NOT NULL", "card id, e.g. en:EB01-001; unique within a game"},
			{"language", "TEXT NOT NULL", "card language: en, ja, zh-cn, zh-tw"},
			{"source_id", "TEXT", "id of the card in its catalog source"},
			{"set_id", "TEXT NOT NULL", "id of the card's set (sets.id)"},
			{"name", "TEXT NOT NULL", "card name"},
			{"name_language", "TEXT", "language of name"},
			{"number", "TEXT", "collector number as printed"},
			{"rarity", "TEXT", "rarity; NULL when the card has none"},
			{"supertype", "TEXT", "supertype (Pokémon, Trainer, Leader, ...); NULL when none"},
			{"subtypes", "TEXT NOT NULL", "JSON array of strings; [] when none"},
			{"colors", "TEXT NOT NULL", "JSON array of strings (types or colors); [] when none"},
			{"national_dex", "TEXT NOT NULL", "JSON array of national Pokédex numbers; [] when none"},
			{"variants", "TEXT", "JSON array of finishes the card exists in; NULL when unknown"},
			{"en_card_id", "TEXT", "id of the matching English card for other languages; NULL when none"},
			{"en_match", "TEXT", "how en_card_id was matched; NULL when none"},
			{"source", "TEXT", "catalog source of the card"},
			{"partner_product_id", "INTEGER", "partner marketplace product id; NULL when none"},
			{"ordinal", "INTEGER NOT NULL", "position in the game's catalog order"},
			{"market_sources", "TEXT NOT NULL", "JSON array of off-chain marketplaces with verified sales"},
			{"venues", "TEXT NOT NULL", "JSON array of on-chain venues with verified sales"},
			{"price_usd", "REAL", "raw:near_mint fair market value as of the snapshot, USD; NULL when unpriced"},
			{"price_cents", "INTEGER", "the same in cents; NULL when unpriced"},
			{"price_date", "TEXT", "YYYY-MM-DD of the last price change behind price_usd; NULL when unpriced"},
			{"volume_30d_usd", "REAL NOT NULL", "verified sales volume over the 30 days up to as_of, USD"},
			{"volume_30d_cents", "INTEGER NOT NULL", "the same in cents"},
			{"sales_30d", "INTEGER NOT NULL", "verified sales over the 30 days up to as_of"},
			{"sales_all", "INTEGER NOT NULL", "verified sales over all history"},
			{"listings", "INTEGER NOT NULL", "current shop listings"},
		},
		indexes: []string{
			"CREATE UNIQUE INDEX cards_id ON cards(id, game)",
			"CREATE INDEX cards_set_id ON cards(set_id)",
		},
	}

	salesTable = tableDef{
		name: "sales",
		desc: "Every recorded sale, and the partner price-feed rows (price_feed = 1), newest first per card.",
		cols: []colDef{
			{"id", "INTEGER NOT NULL", "sale id"},
			{"card_id", "TEXT NOT NULL", "card sold (cards.id)"},
			{"game", "TEXT NOT NULL", "game of the card"},
			{"sale_date", "TEXT NOT NULL", "day of the sale, YYYY-MM-DD (UTC)"},
			{"price_usd", "REAL NOT NULL", "price, USD"},
			{"price_cents", "INTEGER NOT NULL", "price in cents"},
			{"marketplace", "TEXT NOT NULL", "partner, ebay, cardmarket, mercari, yahoo_auctions, courtyard, collector_crypt"},
			{"trade_type", "TEXT NOT NULL", "auction, fixed_price, best_offer, on_chain_transfer"},
			{"grade", "TEXT NOT NULL", "raw:<condition> or <grader>:<number>, e.g. raw:near_mint, slab:10"},
			{"identity_confidence", "TEXT NOT NULL", "exact, agree_high, agree_medium, disagree_medium, disagree_high"},
			{"quality_flagged", "INTEGER NOT NULL", "1 when a quality rule flagged the sale (hidden by default)"},
			{"price_feed", "INTEGER NOT NULL", "1 for a partner price-feed row: a daily market median, not an executed sale"},
			{"hidden", "INTEGER NOT NULL", "1 when the API hides the row by default: quality_flagged, price_feed or a disagree_* confidence"},
			{"finish", "TEXT", "finish (one of the card's variants); NULL when unknown"},
		},
		indexes: []string{
			"CREATE INDEX sales_card_id ON sales(card_id, sale_date)",
			"CREATE INDEX sales_sale_date ON sales(sale_date)",
		},
	}

	pricePointsTable = tableDef{
		name: "price_points",
		desc: "Oracle price change points per card and grade; a day without a point keeps the previous point's values.",
		cols: []colDef{
			{"card_id", "TEXT NOT NULL", "card (cards.id)"},
			{"game", "TEXT NOT NULL", "game of the card"},
			{"grade", "TEXT NOT NULL", "grade of the series, e.g. raw:near_mint, slab:10"},
			{"date", "TEXT NOT NULL", "day of the change, YYYY-MM-DD"},
			{"fmv_usd", "REAL NOT NULL", "fair market value (smoothed estimate from sales), USD"},
			{"fmv_cents", "INTEGER NOT NULL", "the same in cents"},
			{"tvwap_usd", "REAL NOT NULL", "time- and volume-weighted average over the trailing 7 days, USD"},
			{"tvwap_cents", "INTEGER NOT NULL", "the same in cents"},
			{"median_usd", "REAL NOT NULL", "median of the day's (or trailing 7 days') sales, USD"},
			{"median_cents", "INTEGER NOT NULL", "the same in cents"},
			{"sales", "INTEGER NOT NULL", "sales behind this point (trailing 7 days)"},
		},
		indexes: []string{
			"CREATE INDEX price_points_card_id ON price_points(card_id, grade, date)",
			"CREATE INDEX price_points_date ON price_points(date)",
		},
	}

	listingsTable = tableDef{
		name: "listings",
		desc: "Current shop listings (beta); deal_score and platform_freshness_h are experimental.",
		cols: []colDef{
			{"id", "TEXT NOT NULL", "listing id"},
			{"card_id", "TEXT NOT NULL", "card listed (cards.id)"},
			{"game", "TEXT NOT NULL", "game of the card"},
			{"platform", "TEXT NOT NULL", "shop platform (a marketplace name)"},
			{"grade", "TEXT NOT NULL", "grade of the listed copy"},
			{"finish", "TEXT", "finish; NULL when unknown"},
			{"ask_usd", "REAL NOT NULL", "asking price, USD"},
			{"ask_cents", "INTEGER NOT NULL", "the same in cents"},
			{"shipping_usd", "REAL NOT NULL", "shipping, USD"},
			{"shipping_cents", "INTEGER NOT NULL", "the same in cents"},
			{"listed_date", "TEXT NOT NULL", "day the listing appeared, YYYY-MM-DD"},
			{"quantity", "INTEGER NOT NULL", "copies available"},
			{"deal_score", "REAL NOT NULL", "experimental: 100 × (1 - ask / fmv), clamped to [-100, 100]"},
			{"platform_freshness_h", "INTEGER NOT NULL", "experimental: hours since the platform was last read"},
		},
		indexes: []string{
			"CREATE INDEX listings_card_id ON listings(card_id)",
		},
	}

	cardAnalyticsTable = tableDef{
		name: "card_analytics",
		desc: "Per-card verified-sales statistics, one row per card and window (1w, 1m, 3m, 6m, 1y, all).",
		cols: []colDef{
			{"card_id", "TEXT NOT NULL", "card (cards.id)"},
			{"game", "TEXT NOT NULL", "game of the card"},
			{"window", "TEXT NOT NULL", "1w, 1m, 3m, 6m, 1y or all"},
			{"from_date", "TEXT", "first day of the window, YYYY-MM-DD"},
			{"to_date", "TEXT", "last day of the window (as_of), YYYY-MM-DD"},
			{"sales", "INTEGER NOT NULL", "verified sales in the window"},
			{"volume_usd", "REAL NOT NULL", "their volume, USD"},
			{"volume_cents", "INTEGER NOT NULL", "the same in cents"},
			{"avg_usd", "REAL NOT NULL", "average price, USD"},
			{"avg_cents", "INTEGER NOT NULL", "the same in cents"},
			{"median_usd", "REAL NOT NULL", "median price, USD"},
			{"median_cents", "INTEGER NOT NULL", "the same in cents"},
			{"low_usd", "REAL NOT NULL", "lowest price, USD"},
			{"low_cents", "INTEGER NOT NULL", "the same in cents"},
			{"high_usd", "REAL NOT NULL", "highest price, USD"},
			{"high_cents", "INTEGER NOT NULL", "the same in cents"},
			{"first_fmv_usd", "REAL NOT NULL", "raw:near_mint fmv at the start of the window, USD"},
			{"first_fmv_cents", "INTEGER NOT NULL", "the same in cents"},
			{"last_fmv_usd", "REAL NOT NULL", "raw:near_mint fmv at the end of the window, USD"},
			{"last_fmv_cents", "INTEGER NOT NULL", "the same in cents"},
			{"change_pct", "REAL NOT NULL", "fmv change over the window, percent"},
			{"volatility_pct", "REAL NOT NULL", "stdev of daily log returns of raw fmv, percent"},
			{"by_marketplace", "TEXT NOT NULL", "JSON object: sales per marketplace"},
			{"by_grade", "TEXT NOT NULL", "JSON object: sales per grade"},
			{"grade_median_cents", "TEXT NOT NULL", "JSON object: median price in cents per grade"},
			{"trade_types", "TEXT NOT NULL", "JSON object: sales per trade type"},
			{"extra", "TEXT", "JSON object of further metrics; NULL when none"},
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
