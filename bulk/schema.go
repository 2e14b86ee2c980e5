package bulk

import (
	"encoding/json"
	"fmt"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// SchemaDialect is the JSON Schema draft of the files' schemas.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// SchemaID is the $id of the schema of a game's file of a kind: a URN, so
// that it names the schema wherever the file is mirrored.
func SchemaID(game, kind string) string {
	return fmt.Sprintf("urn:cardedge:bulk:%s:v%d", FileName(game, kind), FormatVersion)
}

// Schema returns the JSON Schema (2020-12) of one line of a game's file of
// a kind, as written beside the file: every key required, no others.
func Schema(game, kind string) ([]byte, error) {
	k, ok := KindOf(kind)
	if !ok {
		return nil, fmt.Errorf("bulk: unknown kind %q", kind)
	}
	var row map[string]any
	switch kind {
	case "cards":
		row = cardSchema(game)
	case "sets":
		row = setSchema()
	case "prices":
		row = priceSchema()
	case "price-history":
		row = historySchema()
	}
	row["$schema"] = SchemaDialect
	row["$id"] = SchemaID(game, kind)
	row["title"] = fmt.Sprintf("%s, one line of %s.jsonl.gz", FileName(game, kind), FileName(game, kind))
	row["description"] = k.Description + " Money in USD with two decimals, dates YYYY-MM-DD."
	b, err := json.MarshalIndent(row, "", "  ") // map keys sorted: same schema, same bytes
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Schema building blocks.

func typ(t string, desc string) map[string]any {
	m := map[string]any{"type": t}
	if desc != "" {
		m["description"] = desc
	}
	return m
}

func orNull(t string, desc string) map[string]any {
	m := typ(t, desc)
	m["type"] = []any{t, "null"}
	return m
}

func strs(desc string) map[string]any {
	m := typ("array", desc)
	m["items"] = map[string]any{"type": "string"}
	return m
}

func strsOrNull(desc string) map[string]any {
	m := strs(desc)
	m["type"] = []any{"array", "null"}
	return m
}

var datePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`

func date(desc string) map[string]any {
	m := typ("string", desc)
	m["format"], m["pattern"] = "date", datePattern
	return m
}

func dateOrNull(desc string) map[string]any {
	m := date(desc)
	m["type"] = []any{"string", "null"}
	return m
}

func usd(desc string) map[string]any {
	m := typ("number", desc)
	m["minimum"] = 0
	return m
}

func usdOrNull(desc string) map[string]any {
	m := usd(desc)
	m["type"] = []any{"number", "null"}
	return m
}

func count(desc string) map[string]any {
	m := typ("integer", desc)
	m["minimum"] = 0
	return m
}

func enum(desc string, values []string) map[string]any {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	m := typ("string", desc)
	m["enum"] = vs
	return m
}

// object is a closed object: every property required, no others.
func object(props map[string]any) map[string]any {
	req := make([]any, 0, len(props))
	for _, k := range sortedKeys(keysOf(props)) {
		req = append(req, k)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

func keysOf(m map[string]any) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func nullable(s map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// gradeNames are every grade's name, in grade order.
func gradeNames() []string {
	var out []string
	for g := snapshots.Grade(0); g.Valid(); g++ {
		out = append(out, g.String())
	}
	return out
}

var confidences = []string{"none", "low", "medium", "high"}

func flagsSchema(desc string) map[string]any {
	var names []string
	for _, f := range estimate.Default.Flags {
		names = append(names, f.Name)
	}
	m := typ("array", desc)
	m["items"] = enum("", names)
	m["uniqueItems"] = true
	return m
}

// sourceSchema is a source of prices (pricing.Origin).
func sourceSchema(what string) map[string]any {
	return enum(what+": a marketplace's or guide's file (tcgplayer, cardmarket, pricecharting: a snapshot built from them), "+
		"observed (the estimator over verified sales) or synthetic (the synthetic market).",
		[]string{snapshots.SourceTCGplayer, snapshots.SourceCardmarket, snapshots.SourcePriceCharting, snapshots.SourceObserved, snapshots.SourceSynthetic})
}

func games() []string { return []string{"pokemon", "onepiece"} }

func cardSchema(game string) map[string]any {
	printing := object(map[string]any{
		"finish":         orNull("string", "The printing: one of the card's variants; null for a card without known variants (one printing)."),
		"base":           typ("boolean", "Whether this is the card's base printing, the one it is priced in when no printing is asked."),
		"price_usd":      usdOrNull("raw:near_mint fmv of the printing; null without a price or at confidence none."),
		"source":         sourceSchema("Where price_usd comes from"),
		"synthetic":      typ("boolean", "Whether price_usd is synthesized."),
		"sample_size":    count("Accepted verified raw:near_mint sales of the trailing 90 days."),
		"last_sale_date": dateOrNull("The last accepted verified raw:near_mint sale."),
		"confidence":     enum("Confidence of price_usd (see /api/v3/methodology).", confidences),
		"flags":          flagsSchema("Estimator flags of the raw:near_mint series."),
		"volume_30d_usd": usd("Verified sales volume of the printing over the last 30 days, every grade."),
		"sales_30d":      count("Verified sales of the printing over the last 30 days, every grade."),
		"sales_all":      count("Verified sales of the printing, every grade, all history."),
		"listings":       count("Current shop listings of the printing."),
		"low_ask_usd":    usdOrNull("The cheapest current listing of the printing; null when none."),
	})
	props := map[string]any{
		"card_id":       typ("string", "<language>:<source_id>, unique per game (case-insensitively too)."),
		"game":          enum("", []string{game}),
		"language":      enum("Language edition of the printed card.", snapshots.Languages),
		"source_id":     typ("string", "The catalog source's own card id (pokemon-tcg-data's base1-4 for English Pokémon)."),
		"name":          typ("string", ""),
		"name_language": typ("string", "Language name is written in."),
		"set": object(map[string]any{
			"id": typ("string", "set_id of the set's row in the sets file."), "name": typ("string", ""),
		}),
		"number":             typ("string", "Collector number as printed."),
		"rarity":             orNull("string", ""),
		"supertype":          orNull("string", ""),
		"subtypes":           strs(""),
		"colors":             strs(""),
		"national_dex":       map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "integer"}, "description": "National Pokédex numbers (Pokémon cards only)."},
		"variants":           strsOrNull("The card's printings (finishes), null when unknown."),
		"en_card_id":         orNull("string", "On non-English rows: the related English card, when one could be established."),
		"en_match":           orNull("string", "How en_card_id was found: same-image (exact) or fingerprint (heuristic)."),
		"partner_product_id": map[string]any{"type": []any{"integer", "null"}, "description": "The partner marketplace's (TCGplayer's) product id of the base printing; null when the card has none."},
		"market_ids": map[string]any{"type": "array", "description": "Each printing with a marketplace product id: Cardmarket's idProduct and TCGplayer's productId, and their pages.",
			"items": object(map[string]any{
				"variant":        orNull("string", "The printing; null for a card without known variants."),
				"cardmarket":     orNull("integer", "Cardmarket's idProduct (its price guide's); null when none."),
				"cardmarket_url": orNull("string", "Cardmarket's search for the card (its product pages are addressed by slugs the guide does not carry)."),
				"tcgplayer":      orNull("integer", "TCGplayer's productId; null when none."),
				"tcgplayer_url":  orNull("string", "TCGplayer's product page."),
			})},
		"play":           playSchema(game),
		"source":         typ("string", "The catalog source of the row (its license is in the listing's sources)."),
		"market_sources": strs("Off-chain marketplaces with verified sales of the card."),
		"venues":         strs("On-chain venues with verified sales of the card."),
		"market": object(map[string]any{
			"price_usd":      usdOrNull("raw:near_mint fmv of the base printing; null without a price or at confidence none."),
			"price_date":     dateOrNull("Day of the last price point behind price_usd."),
			"source":         sourceSchema("Where price_usd comes from"),
			"synthetic":      typ("boolean", "Whether price_usd is synthesized."),
			"volume_30d_usd": usd("Verified sales volume over the last 30 days, every printing and grade."),
			"sales_30d":      count("Verified sales over the last 30 days, every printing and grade."),
			"sales_all":      count("Verified sales, all history, every printing and grade."),
			"listings":       count("Current shop listings, every printing."),
		}),
		"printings": map[string]any{"type": "array", "minItems": 1, "items": printing, "description": "One per variant, in variants order (one unnamed printing when variants are unknown)."},
	}
	return object(props)
}

func playSchema(game string) map[string]any {
	str, num := orNull("string", ""), orNull("integer", "")
	if game == "onepiece" {
		return nullable(object(map[string]any{
			"life": num, "cost": num, "power": num, "counter": num, "attributes": strs(""), "block": orNull("integer", "Block icon (rotation group)."),
		}))
	}
	legal := map[string]any{"type": []any{"string", "null"}, "enum": []any{"legal", "banned", "not_legal", nil}}
	mod := object(map[string]any{"type": typ("string", ""), "value": str})
	return nullable(object(map[string]any{
		"hp": num, "types": strs(""), "evolves_from": str, "level": str,
		"abilities":   map[string]any{"type": "array", "items": object(map[string]any{"name": str, "type": str})},
		"attacks":     map[string]any{"type": "array", "items": object(map[string]any{"name": str, "cost": strs(""), "damage": str})},
		"weaknesses":  map[string]any{"type": "array", "items": mod},
		"resistances": map[string]any{"type": "array", "items": mod},
		"retreat":     num, "artist": str, "regulation_mark": str,
		"legalities": object(map[string]any{"standard": legal, "expanded": legal, "unlimited": legal}),
	}))
}

func setSchema() map[string]any {
	return object(map[string]any{
		"set_id":             typ("string", "<language>:<source_id>, unique per game."),
		"game":               enum("", games()),
		"language":           enum("", snapshots.Languages),
		"source_id":          typ("string", "The catalog source's own set id or code."),
		"name":               typ("string", ""),
		"series":             orNull("string", ""),
		"release_date":       dateOrNull("Release of this language edition, when known."),
		"abbreviation":       orNull("string", "Official set code."),
		"card_count_printed": orNull("integer", "The number printed on the cards (the /198 part), when known."),
		"card_count_total":   orNull("integer", "Total including secret rares, when known."),
		"card_count":         count("Cards of the catalog in this set."),
		"volume_30d_usd":     usd("Verified sales volume over the last 30 days."),
		"sales_30d":          count("Verified sales over the last 30 days."),
		"source":             typ("string", "The catalog source of the row."),
	})
}

func seriesHead() map[string]any {
	return map[string]any{
		"game":    enum("", games()),
		"card_id": typ("string", "card_id of the card's row in the cards file."),
		"finish":  orNull("string", "The printing: one of the card's variants; null for a card without known variants."),
		"base":    typ("boolean", "Whether finish is the card's base printing."),
		"grade":   enum("raw:<condition> or <grader>:<number>.", gradeNames()),
	}
}

func priceSchema() map[string]any {
	p := seriesHead()
	p["fmv_usd"] = usdOrNull("Fair market value in force at as_of (exponentially smoothed daily medians, outliers set aside); " +
		"null at confidence none (the last values are the series' last row in price-history).")
	p["tvwap_usd"] = usdOrNull("Time- and volume-weighted average of the accepted sales of the 7 days up to the series' last day with sales; null at confidence none.")
	p["median_usd"] = usdOrNull("Median of the accepted sales of the 7 days up to the series' last day with sales; null at confidence none.")
	p["sample_size"] = count("Accepted verified sales of the trailing 90 days.")
	p["last_sale_date"] = dateOrNull("The last accepted verified sale; null when none.")
	p["confidence"] = enum("high, medium, low or none (see /api/v3/methodology).", confidences)
	p["flags"] = flagsSchema("thin, solo, outlier_excluded, stale.")
	p["source"] = sourceSchema("Where the series comes from")
	p["synthetic"] = typ("boolean", "Whether the series is synthesized.")
	return object(p)
}

func historySchema() map[string]any {
	p := seriesHead()
	p["date"] = date("The day; rows of a series are oldest first.")
	p["fmv_usd"] = usdOrNull("Fair market value after the day's sales.")
	p["tvwap_usd"] = usdOrNull("Time- and volume-weighted average of the accepted sales of the trailing 7 days; null when none.")
	p["median_usd"] = usdOrNull("Median of the accepted sales of the trailing 7 days; null when none.")
	p["sales"] = count("Accepted sales behind tvwap and median (trailing 7 days).")
	p["sample_size"] = count("Accepted verified sales of the trailing 90 days.")
	p["confidence"] = enum("", confidences)
	p["flags"] = flagsSchema("thin, outlier_excluded.")
	p["carried_from"] = dateOrNull("On the series' first row only: the earlier day whose values are in force on date (no sale on date); null on every other row.")
	p["source"] = sourceSchema("Where the series comes from")
	p["synthetic"] = typ("boolean", "Whether the series is synthesized.")
	return object(p)
}
