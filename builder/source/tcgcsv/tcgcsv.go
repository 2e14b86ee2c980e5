package tcgcsv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// Categories of tcgcsv (TCGplayer's categoryId) and their game and
// language.
const (
	CategoryPokemon      = 3
	CategoryPokemonJapan = 85
	CategoryOnePiece     = 68
)

// categories are the categories read, with their game and language.
var categories = map[int]struct{ game, language string }{
	CategoryPokemon:      {"pokemon", "en"},
	CategoryPokemonJapan: {"pokemon", "ja"},
	CategoryOnePiece:     {"onepiece", "en"},
}

// DefaultCategories are read from a URL when no categories option is given.
var DefaultCategories = []int{CategoryPokemon, CategoryPokemonJapan, CategoryOnePiece}

// Fields maps the price fields of a prices result to the observations'
// field names.
var Fields = []struct{ JSON, Name string }{
	{"marketPrice", "market"}, {"lowPrice", "low"}, {"midPrice", "mid"}, {"highPrice", "high"}, {"directLowPrice", "direct_low"},
}

// Source is TCGplayer through tcgcsv.
type Source struct{}

var _ source.Source = Source{}

// Name implements source.Source.
func (Source) Name() string { return source.TCGplayer }

// Options implements source.Source.
func (Source) Options() []string { return []string{"categories", "day"} }

// Read implements source.Source: in.Location is a tcgcsv base URL or
// directory, or an archive day's directory (named YYYY-MM-DD). Options:
// categories=3+85+68, day=YYYY-MM-DD (when last-updated.txt is missing).
func (Source) Read(ctx context.Context, f *source.Fetcher, in source.Input) (*source.Day, error) {
	if err := in.CheckOptions(Source{}.Options()...); err != nil {
		return nil, err
	}
	dayOpt, haveDay, err := in.DayOption()
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(in.Location, "/")
	if !source.IsURL(base) {
		if d, err := snapshots.ParseDay(lastElem(base)); err == nil && source.IsDir(base) {
			return readArchiveDay(ctx, f, in, base, d)
		}
	}
	cats, err := categoriesOf(in, func() ([]int, error) { return dirCategories(source.Join(base, "tcgplayer")) })
	if err != nil {
		return nil, err
	}
	d := &source.Day{Source: source.TCGplayer, Input: in.Location}
	var bodies [][]byte
	lu, err := f.Get(ctx, source.Join(base, "last-updated.txt"))
	switch {
	case err == nil:
		bodies = append(bodies, lu.Body)
		t, perr := parseUpdated(lu.Body)
		if perr != nil {
			return nil, fmt.Errorf("tcgplayer: %w", perr)
		}
		d.CreatedAt = t
		d.Date, _ = snapshots.ParseDay(t.Format("2006-01-02"))
	case errors.Is(err, source.ErrNotFound) && haveDay:
	case errors.Is(err, source.ErrNotFound):
		return nil, fmt.Errorf("tcgplayer: %w", source.Refusedf("no last-updated.txt in %s: the day is unknown (give day=YYYY-MM-DD)", in.Location))
	default:
		return nil, fmt.Errorf("tcgplayer: %w", err)
	}
	if haveDay {
		d.Date = dayOpt
	}
	for _, cat := range cats {
		root := source.Join(base, "tcgplayer", strconv.Itoa(cat))
		gb, err := f.Get(ctx, source.Join(root, "groups"))
		if err != nil {
			return nil, refuse(err)
		}
		bodies = append(bodies, gb.Body)
		groups, err := parseGroups(gb.Body)
		if err != nil {
			return nil, fmt.Errorf("tcgplayer: %s: %w", source.Join(root, "groups"), err)
		}
		for _, g := range groups {
			gid := strconv.FormatInt(g.GroupID, 10)
			pb, err := f.Get(ctx, source.Join(root, gid, "products"))
			if err != nil {
				return nil, refuse(err)
			}
			products, err := parseProducts(pb.Body)
			if err != nil {
				return nil, fmt.Errorf("tcgplayer: %s: %w", source.Join(root, gid, "products"), err)
			}
			rb, err := f.Get(ctx, source.Join(root, gid, "prices"))
			if err != nil {
				return nil, refuse(err)
			}
			bodies = append(bodies, pb.Body, rb.Body)
			if err := addPrices(d, rb.Body, source.Join(root, gid, "prices"), cat, &g, products); err != nil {
				return nil, err
			}
		}
	}
	if len(d.Rows) == 0 && len(d.Rejected) == 0 {
		return nil, fmt.Errorf("tcgplayer %s: %w", in.Location, source.Refusedf("no prices in categories %v", cats))
	}
	d.Digest = source.Digest(bodies...)
	return d, nil
}

func refuse(err error) error {
	if errors.Is(err, source.ErrNotFound) {
		return fmt.Errorf("tcgplayer: %w", source.Refusedf("%v (the mirror is incomplete)", err))
	}
	return fmt.Errorf("tcgplayer: %w", err)
}

func lastElem(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// categoriesOf reads the categories option, else asks def (a directory's
// categories), else DefaultCategories.
func categoriesOf(in source.Input, def func() ([]int, error)) ([]int, error) {
	s, ok := in.Options["categories"]
	if !ok {
		if source.IsURL(in.Location) {
			return DefaultCategories, nil
		}
		cats, err := def()
		if err != nil {
			return nil, fmt.Errorf("tcgplayer: %w", source.Refusedf("%v", err))
		}
		return cats, nil
	}
	var out []int
	for _, p := range strings.Split(s, "+") {
		n, err := strconv.Atoi(p)
		if _, known := categories[n]; err != nil || !known {
			return nil, fmt.Errorf("source tcgplayer: categories: %q is not one of 3 (Pokémon), 85 (Pokémon Japan), 68 (One Piece)", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// dirCategories lists the known categories among a directory's entries.
func dirCategories(dir string) ([]int, error) {
	names, err := source.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, n := range names {
		if c, err := strconv.Atoi(n); err == nil {
			if _, ok := categories[c]; ok {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no category directory (3, 85, 68) in %s", dir)
	}
	sort.Ints(out)
	return out, nil
}

// parseUpdated reads last-updated.txt: one timestamp.
func parseUpdated(b []byte) (time.Time, error) {
	s := strings.TrimSpace(string(source.TrimBOM(b)))
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05-0700", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, source.Refusedf("last-updated.txt %q is not a timestamp", s)
}

// envelope is tcgcsv's answer shape.
type envelope struct {
	Success *bool             `json:"success"`
	Errors  []json.RawMessage `json:"errors"`
	Results json.RawMessage   `json:"results"`
}

// decodeEnvelope reads one answer whole (a BOM skipped): success true and
// a results array; its raw results.
func decodeEnvelope(b []byte) (json.RawMessage, error) {
	var e envelope
	dec := json.NewDecoder(bytes.NewReader(source.TrimBOM(b)))
	if err := dec.Decode(&e); err != nil {
		return nil, source.Refusedf("not whole JSON: %v", err)
	}
	if dec.More() {
		return nil, source.Refusedf("data after the JSON object")
	}
	if e.Success == nil || !*e.Success {
		return nil, source.Refusedf("success is not true (errors: %s)", joinRaw(e.Errors))
	}
	if len(e.Results) == 0 || e.Results[0] != '[' {
		return nil, source.Refusedf("results is not an array")
	}
	return e.Results, nil
}

func joinRaw(list []json.RawMessage) string {
	parts := make([]string, len(list))
	for i, r := range list {
		parts[i] = string(r)
	}
	return strings.Join(parts, "; ")
}

// Group is one group (a set) of a category.
type Group struct {
	GroupID      int64  `json:"groupId"`
	Name         string `json:"name"`
	Abbreviation string `json:"abbreviation"`
}

func parseGroups(b []byte) ([]Group, error) {
	raw, err := decodeEnvelope(b)
	if err != nil {
		return nil, err
	}
	var groups []Group
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, source.Refusedf("groups: %v", err)
	}
	for i, g := range groups {
		if g.GroupID <= 0 {
			return nil, source.Refusedf("groups result %d: groupId %d is not positive", i+1, g.GroupID)
		}
	}
	return groups, nil
}

// product is what a products result gives.
type product struct {
	Name, Number string
}

func parseProducts(b []byte) (map[int64]product, error) {
	raw, err := decodeEnvelope(b)
	if err != nil {
		return nil, err
	}
	var results []struct {
		ProductID    int64  `json:"productId"`
		Name         string `json:"name"`
		ExtendedData []struct {
			Name  string          `json:"name"`
			Value json.RawMessage `json:"value"`
		} `json:"extendedData"`
	}
	if err := json.Unmarshal(raw, &results); err != nil {
		return nil, source.Refusedf("products: %v", err)
	}
	out := make(map[int64]product, len(results))
	for _, r := range results {
		p := product{Name: r.Name}
		for _, e := range r.ExtendedData {
			if e.Name == "Number" {
				var s string
				if json.Unmarshal(e.Value, &s) == nil {
					p.Number = s
				}
			}
		}
		out[r.ProductID] = p
	}
	return out, nil
}

// priceResult is one prices result; fields are numbers or null.
type priceResult struct {
	ProductID      *json.Number `json:"productId"`
	LowPrice       *json.Number `json:"lowPrice"`
	MidPrice       *json.Number `json:"midPrice"`
	HighPrice      *json.Number `json:"highPrice"`
	MarketPrice    *json.Number `json:"marketPrice"`
	DirectLowPrice *json.Number `json:"directLowPrice"`
	SubTypeName    *string      `json:"subTypeName"`
}

func (p *priceResult) fields() []*json.Number {
	return []*json.Number{p.MarketPrice, p.LowPrice, p.MidPrice, p.HighPrice, p.DirectLowPrice}
}

// addPrices reads one prices answer into rows of d.
func addPrices(d *source.Day, b []byte, loc string, cat int, g *Group, products map[int64]product) error {
	raw, err := decodeEnvelope(b)
	if err != nil {
		return fmt.Errorf("tcgplayer: %s: %w", loc, err)
	}
	var results []json.RawMessage
	if err := json.Unmarshal(raw, &results); err != nil {
		return fmt.Errorf("tcgplayer: %s: %w", loc, source.Refusedf("results: %v", err))
	}
	seen := map[string]bool{}
	for i, rr := range results {
		var p priceResult
		dec := json.NewDecoder(bytes.NewReader(rr))
		dec.UseNumber()
		err := dec.Decode(&p)
		row := source.Row{Category: strconv.Itoa(cat), Currency: "USD", Prices: map[string]int64{}}
		if g != nil {
			row.Group, row.Set, row.SetCode = strconv.FormatInt(g.GroupID, 10), g.Name, g.Abbreviation
		}
		reject := func(reason, detail string) {
			d.Rejected = append(d.Rejected, source.Entry{Status: source.StatusRejected, Product: row.Product, Printing: row.Printing,
				Reason: reason, Detail: fmt.Sprintf("%s result %d: %s", loc, i+1, detail)})
		}
		if p.ProductID != nil {
			row.Product = p.ProductID.String()
		}
		if p.SubTypeName != nil {
			row.Printing = *p.SubTypeName
		}
		if err != nil {
			reject("bad field type", err.Error())
			continue
		}
		id, perr := strconv.ParseInt(row.Product, 10, 64)
		if p.ProductID == nil || perr != nil || id <= 0 {
			reject("bad productId", "productId "+row.Product+" is not a positive integer")
			continue
		}
		if row.Printing == "" {
			reject("no subTypeName", "")
			continue
		}
		if pr, ok := products[id]; ok {
			row.Name, row.Number = pr.Name, pr.Number
		}
		bad := false
		for j, v := range p.fields() {
			if v == nil {
				continue
			}
			cents, err := source.ParseAmount(v.String())
			if err != nil {
				reject("bad amount", Fields[j].JSON+": "+err.Error())
				bad = true
				break
			}
			row.Prices[Fields[j].Name] = cents
		}
		if bad {
			continue
		}
		key := row.Product + "|" + row.Printing
		if seen[key] {
			reject("duplicate product and subTypeName", "")
			continue
		}
		seen[key] = true
		d.Rows = append(d.Rows, row)
	}
	return nil
}

// readArchiveDay reads one day of the archive layout: dir/{category}/{group}/prices.
func readArchiveDay(ctx context.Context, f *source.Fetcher, in source.Input, dir string, day snapshots.Day) (*source.Day, error) {
	root := dir
	if source.IsDir(source.Join(dir, "tcgplayer")) {
		root = source.Join(dir, "tcgplayer")
	}
	cats, err := categoriesOf(in, func() ([]int, error) { return dirCategories(root) })
	if err != nil {
		return nil, err
	}
	d := &source.Day{Source: source.TCGplayer, Input: in.Location, Date: day}
	var bodies [][]byte
	for _, cat := range cats {
		cdir := source.Join(root, strconv.Itoa(cat))
		groups, err := source.ReadDir(cdir)
		if err != nil {
			return nil, fmt.Errorf("tcgplayer: %w", source.Refusedf("%v", err))
		}
		for _, gname := range groups {
			gid, err := strconv.ParseInt(gname, 10, 64)
			if err != nil || gid <= 0 {
				continue
			}
			loc := source.Join(cdir, gname, "prices")
			rb, err := f.Get(ctx, loc)
			if err != nil {
				return nil, refuse(err)
			}
			bodies = append(bodies, rb.Body)
			if err := addPrices(d, rb.Body, loc, cat, &Group{GroupID: gid}, nil); err != nil {
				return nil, err
			}
		}
	}
	if len(d.Rows) == 0 && len(d.Rejected) == 0 {
		return nil, fmt.Errorf("tcgplayer %s: %w", in.Location, source.Refusedf("no prices"))
	}
	d.Digest = source.Digest(bodies...)
	return d, nil
}

// ArchiveDays lists the days of an archive root: its YYYY-MM-DD
// directories, oldest first.
func ArchiveDays(root string) ([]string, error) {
	names, err := source.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if _, err := snapshots.ParseDay(n); err == nil && source.IsDir(source.Join(root, n)) {
			out = append(out, source.Join(root, n))
		}
	}
	return out, nil
}

// ParsePrices reads one prices answer (for tests and fuzzing): its rows
// (category 3, no group) and refused results; a bad answer is an error
// wrapping source.ErrRefused.
func ParsePrices(b []byte) ([]source.Row, []source.Entry, error) {
	d := &source.Day{}
	if err := addPrices(d, b, "prices", CategoryPokemon, nil, nil); err != nil {
		return nil, nil, err
	}
	return d.Rows, d.Rejected, nil
}

// ParseGroups reads one groups answer (for tests and fuzzing).
func ParseGroups(b []byte) ([]Group, error) { return parseGroups(b) }
