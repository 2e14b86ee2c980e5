package soldlistings

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// Source is a collector's sold-listing export.
type Source struct{}

var _ source.Source = Source{}

// Name implements source.Source.
func (Source) Name() string { return source.SoldListings }

// Options implements source.Source.
func (Source) Options() []string { return []string{"day", "marketplace", "trade_type", "game"} }

// Read implements source.Source: in.Location is the CSV file or URL.
func (Source) Read(ctx context.Context, f *source.Fetcher, in source.Input) (*source.Day, error) {
	if err := in.CheckOptions(Source{}.Options()...); err != nil {
		return nil, err
	}
	d, ok, err := in.DayOption()
	if err != nil {
		return nil, err
	}
	def := Defaults{Marketplace: in.Options["marketplace"], TradeType: in.Options["trade_type"], Game: in.Options["game"]}
	if err := def.check(); err != nil {
		return nil, fmt.Errorf("source soldlistings: %w", err)
	}
	file, err := f.Get(ctx, in.Location)
	if err != nil {
		return nil, fmt.Errorf("soldlistings: %w", err)
	}
	if !ok {
		if file.ModTime.IsZero() {
			return nil, fmt.Errorf("soldlistings %s: %w", in.Location, source.Refusedf("the file's day is unknown: give day=YYYY-MM-DD"))
		}
		d = snapshots.DayOf(file.ModTime)
	}
	day, err := Parse(file.Body, d, def)
	if err != nil {
		return nil, fmt.Errorf("soldlistings %s: %w", in.Location, err)
	}
	day.Input = in.Location
	return day, nil
}

// Defaults are a file's options: the marketplace and trade type of rows
// that say none, the game of their titles ("" : read from the title).
type Defaults struct {
	Marketplace, TradeType, Game string
}

func (d Defaults) check() error {
	if d.Marketplace != "" {
		if m, ok := snapshots.ParseMarketplace(d.Marketplace); !ok || m.OnChain() {
			return fmt.Errorf("marketplace %q is not an off-chain marketplace", d.Marketplace)
		}
	}
	if d.TradeType != "" {
		if _, ok := snapshots.ParseTradeType(d.TradeType); !ok {
			return fmt.Errorf("trade_type %q is not one of %s", d.TradeType, strings.Join(snapshots.TradeTypeNames(), ", "))
		}
	}
	if d.Game != "" && d.Game != "pokemon" && d.Game != "onepiece" {
		return fmt.Errorf("game %q is not pokemon or onepiece", d.Game)
	}
	return nil
}

// hosts maps marketplace hosts to the API's marketplaces.
var hosts = []struct{ suffix, marketplace string }{
	{"ebay.com", "ebay"}, {"ebay.co.uk", "ebay"}, {"ebay.de", "ebay"}, {"ebay.fr", "ebay"}, {"ebay.it", "ebay"}, {"ebay.es", "ebay"}, {"ebay.ca", "ebay"}, {"ebay.com.au", "ebay"},
	{"cardmarket.com", "cardmarket"}, {"tcgplayer.com", "partner"}, {"mercari.com", "mercari"}, {"jp.mercari.com", "mercari"},
	{"auctions.yahoo.co.jp", "yahoo_auctions"}, {"page.auctions.yahoo.co.jp", "yahoo_auctions"},
}

func marketplaceOfURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	h := strings.ToLower(p.Hostname())
	for _, x := range hosts {
		if h == x.suffix || strings.HasSuffix(h, "."+x.suffix) {
			return x.marketplace
		}
	}
	return ""
}

// Parse reads an export of day d. A file without the required columns is
// refused; a bad line is a refused row.
func Parse(body []byte, d snapshots.Day, def Defaults) (*source.Day, error) {
	day := &source.Day{Source: source.SoldListings, Date: d, Digest: source.Digest(body)}
	r := csv.NewReader(bytes.NewReader(source.TrimBOM(body)))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, source.Refusedf("no header: %v", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, need := range []string{"date", "title", "price", "currency"} {
		if _, ok := col[need]; !ok {
			return nil, source.Refusedf("no %s column (want date,title,price,currency[,url][,grade][,marketplace][,trade_type]; header %q)", need, strings.Join(head, ","))
		}
	}
	line := 1
	for {
		rec, err := r.Read()
		line++
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && pe.Err == csv.ErrFieldCount {
			err = nil
		}
		if err != nil {
			return nil, source.Refusedf("line %d: %v", line, err)
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		row := source.Row{Name: get("title"), URL: get("url"), Grade: get("grade"), Marketplace: get("marketplace"),
			Currency: strings.ToUpper(get("currency")), Prices: map[string]int64{}}
		reject := func(reason, detail string) {
			day.Rejected = append(day.Rejected, source.Entry{Status: source.StatusRejected, Product: row.Name, Reason: reason,
				Detail: fmt.Sprintf("line %d: %s", line, detail)})
		}
		if len(rec) != len(head) {
			reject("wrong number of columns", fmt.Sprintf("%d columns, the header has %d", len(rec), len(head)))
			continue
		}
		date, err := saleDate(get("date"))
		if err != nil {
			reject("bad date", err.Error())
			continue
		}
		if date > d {
			reject("sold after the file's day", fmt.Sprintf("%s is after %s", date, d))
			continue
		}
		row.Date = date.String()
		if row.Name == "" {
			reject("no title", "")
			continue
		}
		if len(row.Currency) != 3 {
			reject("bad currency", fmt.Sprintf("%q is not an ISO 4217 code", row.Currency))
			continue
		}
		cents, err := source.ParseAmount(strings.ReplaceAll(strings.TrimLeft(get("price"), "$€£¥ "), ",", ""))
		if err != nil || cents == 0 {
			reject("bad price", fmt.Sprintf("%q", get("price")))
			continue
		}
		row.Prices[source.FieldSale] = cents
		if row.Marketplace == "" {
			row.Marketplace = marketplaceOfURL(row.URL)
		}
		if row.Marketplace == "" {
			row.Marketplace = def.Marketplace
		}
		if m, ok := snapshots.ParseMarketplace(row.Marketplace); !ok || m.OnChain() {
			reject("no marketplace", fmt.Sprintf("%q: give a marketplace column, a listing URL or marketplace= on --source", row.Marketplace))
			continue
		}
		tt := get("trade_type")
		if tt == "" {
			tt = def.TradeType
		}
		if tt == "" {
			tt = snapshots.TradeFixedPrice.String()
		}
		if _, ok := snapshots.ParseTradeType(tt); !ok {
			reject("bad trade_type", fmt.Sprintf("%q", tt))
			continue
		}
		row.Printing = tt // the row's trade type travels in Printing
		if row.Grade != "" {
			if _, err := snapshots.ReadGrade(row.Grade); err != nil {
				reject("bad grade", err.Error())
				continue
			}
		}
		if def.Game != "" {
			row.Category = def.Game
		}
		day.Rows = append(day.Rows, row)
	}
	if len(day.Rows) == 0 && len(day.Rejected) == 0 {
		return nil, source.Refusedf("no listings")
	}
	return day, nil
}

func saleDate(s string) (snapshots.Day, error) {
	if d, err := snapshots.ParseDay(s); err == nil {
		return d, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return snapshots.DayOf(t), nil
	}
	return 0, fmt.Errorf("%q is not YYYY-MM-DD", s)
}

// Map implements source.Source.
func (Source) Map(d, _ *source.Day, cat *source.Catalog) ([]source.Observation, *source.Report) {
	var obs []source.Observation
	rep := source.NewReport(source.SoldListings, d)
	sets := SetsByGame(cat)
	for i := range d.Rows {
		row := &d.Rows[i]
		n := i + 1
		m, err := MatchTitle(cat, sets, row.Name, row.Category)
		if err != nil {
			st := source.StatusUnmatched
			var amb *AmbiguousError
			if errors.As(err, &amb) {
				st = source.StatusAmbiguous
			}
			rep.Add(source.Entry{Row: n, Status: st, Product: row.Name, Reason: reasonOf(err), Detail: err.Error()}, true)
			continue
		}
		grade := m.Grade
		if row.Grade != "" {
			grade, _ = snapshots.ReadGrade(row.Grade)
		}
		mk, _ := snapshots.ParseMarketplace(row.Marketplace)
		tt, _ := snapshots.ParseTradeType(row.Printing)
		date, _ := snapshots.ParseDay(row.Date)
		obs = append(obs, source.Observation{Source: source.SoldListings, Card: m.Card, Finish: m.Finish, Grade: grade, Day: date,
			Field: source.FieldSale, Amount: row.Prices[source.FieldSale], Currency: row.Currency, Match: source.MatchTitle,
			Confidence: m.Confidence, Marketplace: mk, TradeType: tt, URL: row.URL, Title: row.Name})
		rep.Observations++
		rep.Add(source.Entry{Row: n, Status: source.StatusByTitle, Product: row.Name, Printing: grade.String(), CardID: m.Card.ID,
			Finish: source.VariantOf(m.Card, m.Finish), Detail: m.Said}, true)
	}
	return obs, rep
}

// TitleMatch is a title read as a card, printing and grade.
type TitleMatch struct {
	Card       *snapshots.Card
	Finish     int
	Grade      snapshots.Grade
	Confidence snapshots.Confidence
	// Said says what was understood ("psa 10: grade slab:10; set Base;
	// number 4/102").
	Said string
}

// AmbiguousError is a title that names several cards or printings.
type AmbiguousError struct {
	Reason     string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return e.Reason + ": " + strings.Join(e.Candidates, " ")
}

type unmatchedError struct{ reason, detail string }

func (e *unmatchedError) Error() string { return e.reason + ": " + e.detail }

func reasonOf(err error) string {
	var amb *AmbiguousError
	if errors.As(err, &amb) {
		return amb.Reason
	}
	var um *unmatchedError
	if errors.As(err, &um) {
		return um.reason
	}
	return err.Error()
}

// Number forms in a title: "4/102", "TG01/TG30", "#4", "No. 4", One Piece's
// "OP01-001".
var (
	slashNumberRE = regexp.MustCompile(`(?:^|[^\p{L}\p{N}])([a-z]{0,4}[0-9]{1,3}[a-z]?)\s*/\s*([a-z]{0,4}[0-9]{1,3})(?:$|[^\p{L}\p{N}])`)
	hashNumberRE  = regexp.MustCompile(`(?:#|\bno\.?\s*)\s*([a-z]{0,4}[0-9]{1,3}[a-z]?)\b`)
	opNumberRE    = regexp.MustCompile(`\b((?:op|st|eb|prb)[0-9]{2}-[0-9]{3})\b`)
	japaneseRE    = regexp.MustCompile(`\b(japanese|japan|jpn|jp)\b`)
	onePieceRE    = regexp.MustCompile(`\bone\s*piece\b`)
	noiseRE       = regexp.MustCompile(`\b(pokemon|pokémon|tcg|card|cards|holo|rare|english|eng|japanese|japan|jpn|jp|one piece|mint|nm)\b`)
)

// SetsByGame folds the names of the catalog's sets once per game, for
// MatchTitle.
func SetsByGame(cat *source.Catalog) map[string]*snapshots.SetNames {
	byGame := map[string][]*snapshots.Set{}
	for _, s := range cat.Sets {
		byGame[s.Game] = append(byGame[s.Game], s)
	}
	out := make(map[string]*snapshots.SetNames, len(byGame))
	for g, sets := range byGame {
		out[g] = snapshots.NewSetNames(sets)
	}
	return out
}

// MatchTitle reads a listing's title: the collectors' words (grade,
// printing, art, set name), a number, a name. game "" reads it from the
// title (One Piece when it says so, else Pokémon).
func MatchTitle(cat *source.Catalog, sets map[string]*snapshots.SetNames, title, game string) (TitleMatch, error) {
	lower := strings.ToLower(title)
	if game == "" {
		game = "pokemon"
		if onePieceRE.MatchString(lower) || opNumberRE.MatchString(lower) {
			game = "onepiece"
		}
	}
	language := "en"
	if japaneseRE.MatchString(lower) {
		language = "ja"
	}
	w := snapshots.ReadWords(title)
	if names := sets[game]; names != nil {
		w.CutSet(names)
	}
	said := []string{}
	if w.HasGrade {
		said = append(said, w.GradeSaid+": grade "+w.Grade.String())
	}
	if w.Printing != "" {
		said = append(said, w.PrintingSaid+": printing "+w.Printing)
	}
	text := w.Text
	number, total := "", ""
	if m := opNumberRE.FindStringSubmatch(text); m != nil {
		number = m[1]
		text = strings.Replace(text, m[1], " ", 1)
	} else if m := slashNumberRE.FindStringSubmatchIndex(text); m != nil {
		number, total = text[m[2]:m[3]], text[m[4]:m[5]]
		text = text[:m[2]] + " " + text[m[5]:]
	} else if m := hashNumberRE.FindStringSubmatchIndex(text); m != nil {
		number = text[m[2]:m[3]]
		text = text[:m[0]] + " " + text[m[1]:]
	}
	if number != "" {
		said = append(said, "number "+number)
	}
	// Set: the sets said, in the title's language (their editions).
	var inSets []*snapshots.Set
	for _, s := range w.Sets {
		if s.Language == language {
			inSets = append(inSets, s)
		}
	}
	if len(w.Sets) > 0 {
		said = append(said, "set "+w.Sets[0].Name)
	}
	// Candidates: by number (in the sets said, else in the language),
	// then by name among them; without a number, by name in the sets said.
	var pool []*snapshots.Card
	switch {
	case number != "" && len(inSets) > 0:
		for _, s := range inSets {
			pool = append(pool, cat.ByNumber(game, s.ID, number)...)
		}
	case number != "":
		pool = cat.ByLanguageNumber(game, language, number)
	case len(inSets) > 0:
		for _, c := range cat.Cards {
			for _, s := range inSets {
				if c.Game == game && strings.EqualFold(c.SetID, s.ID) {
					pool = append(pool, c)
				}
			}
		}
	default:
		return TitleMatch{}, &unmatchedError{"no number or set in the title", title}
	}
	if total != "" && len(pool) > 0 {
		var keep []*snapshots.Card
		for _, c := range pool {
			if s := cat.Set(c.Game, c.SetID); s == nil || s.CardCountPrinted == 0 || source.NormalizeNumber(total) == fmt.Sprint(s.CardCountPrinted) ||
				!isDigits(source.NormalizeNumber(total)) {
				keep = append(keep, c)
			}
		}
		pool = keep
	}
	if len(pool) == 0 {
		return TitleMatch{}, &unmatchedError{"no card with this number", title}
	}
	words := " " + source.FoldName(noiseRE.ReplaceAllString(text, " ")) + " "
	best, bestLen := []*snapshots.Card(nil), 0
	for _, c := range pool {
		name := source.FoldName(c.Name)
		if name == "" || !strings.Contains(words, " "+name+" ") {
			continue
		}
		switch {
		case len(name) > bestLen:
			best, bestLen = []*snapshots.Card{c}, len(name)
		case len(name) == bestLen:
			best = append(best, c)
		}
	}
	if len(best) == 0 {
		return TitleMatch{}, &AmbiguousError{Reason: "no card of the number or set has a name in the title", Candidates: cardIDs(pool, 8)}
	}
	if game == "onepiece" {
		alt := w.Art == snapshots.ArtAlternate || strings.Contains(lower, "parallel")
		var keep []*snapshots.Card
		for _, c := range best {
			if isAlternate(c) == alt {
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 {
			best = keep
		}
	}
	if len(best) > 1 {
		return TitleMatch{}, &AmbiguousError{Reason: "several cards match the title", Candidates: cardIDs(best, 8)}
	}
	c := best[0]
	finish, err := printingOf(c, w.Printing)
	if err != nil {
		return TitleMatch{}, err
	}
	conf := snapshots.ConfAgreeHigh
	if number == "" {
		conf = snapshots.ConfAgreeMedium
	}
	grade := snapshots.RawNearMint
	if w.HasGrade {
		grade = w.Grade
	}
	return TitleMatch{Card: c, Finish: finish, Grade: grade, Confidence: conf, Said: strings.Join(said, "; ")}, nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func isAlternate(c *snapshots.Card) bool {
	for _, v := range c.Variants {
		if v == "alternate-art" {
			return true
		}
	}
	return strings.Contains(c.SourceID, "_")
}

// printingOf is source.PrintingOfWords with its failure as an
// ambiguity of the row.
func printingOf(c *snapshots.Card, printing string) (int, error) {
	f, why := source.PrintingOfWords(c, printing)
	if f < 0 {
		reason, detail, _ := strings.Cut(why, ": ")
		return -1, &AmbiguousError{Reason: reason, Candidates: []string{detail}}
	}
	return f, nil
}

func cardIDs(cards []*snapshots.Card, most int) []string {
	var out []string
	for i, c := range cards {
		if i == most {
			out = append(out, fmt.Sprintf("(%d more)", len(cards)-most))
			break
		}
		out = append(out, c.ID)
	}
	return out
}
