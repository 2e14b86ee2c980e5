package tcgcsv

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// Map implements source.Source. A day of the archive layout (prices only)
// takes its products' names and numbers from latest.
func (Source) Map(d, latest *source.Day, cat *source.Catalog) ([]source.Observation, *source.Report) {
	known := map[string]source.Row{} // productId -> a row with the product's name, number and group
	if latest != nil && latest != d && needsNames(d) {
		for _, r := range latest.Rows {
			if r.Name != "" || r.Number != "" {
				known[r.Product] = r
			}
		}
	}
	var obs []source.Observation
	rep := source.NewReport(source.TCGplayer, d)
	m := mapper{day: d, cat: cat, rep: rep, known: known, taken: map[string]string{}}
	for i := range d.Rows {
		obs = m.row(obs, i)
	}
	return obs, rep
}

func needsNames(d *source.Day) bool {
	for _, r := range d.Rows {
		if r.Name == "" && r.Number == "" {
			return true
		}
	}
	return false
}

type mapper struct {
	day   *source.Day
	cat   *source.Catalog
	rep   *source.Report
	known map[string]source.Row
	// taken: card id|finish -> the product and subTypeName that took the
	// printing (two rows for one printing: the first keeps it).
	taken map[string]string
}

func (m *mapper) row(obs []source.Observation, i int) []source.Observation {
	row := m.day.Rows[i]
	n := i + 1
	if row.Name == "" && row.Number == "" {
		if k, ok := m.known[row.Product]; ok {
			row.Name, row.Number = k.Name, k.Number
			if row.Set == "" {
				row.Set, row.SetCode = k.Set, k.SetCode
			}
		}
	}
	catID, _ := strconv.Atoi(row.Category)
	info, ok := categories[catID]
	if !ok {
		m.rep.Add(source.Entry{Row: n, Status: source.StatusRejected, Product: row.Product, Printing: row.Printing,
			Reason: "unknown category", Detail: "category " + row.Category}, true)
		return obs
	}
	id, _ := strconv.ParseInt(row.Product, 10, 64)
	var cards []*snapshots.Card
	match, status, conf := source.MatchID, source.StatusByID, snapshots.ConfExact
	if byID := m.cat.ByProduct(snapshots.MarketIDTCGplayer, id); len(byID) > 0 {
		cards = preferLanguage(byID, info.language)
	} else {
		var reason, detail string
		cards, reason, detail = m.byNumberName(row, info.game, info.language)
		if len(cards) != 1 {
			st := source.StatusUnmatched
			if len(cards) > 1 {
				st = source.StatusAmbiguous
			}
			m.rep.Add(source.Entry{Row: n, Status: st, Product: row.Product, Printing: row.Printing, Reason: reason, Detail: detail}, true)
			return obs
		}
		match, status, conf = source.MatchNumberName, source.StatusByNumberName, snapshots.ConfAgreeHigh
	}
	counted := false
	for _, c := range cards {
		var printings []int
		if match == source.MatchID {
			printings = c.PrintingsOf(snapshots.MarketIDTCGplayer, id)
		} else {
			printings = allPrintings(c)
		}
		f, why := PrintingOf(c, printings, row.Printing)
		if f >= 0 {
			key := c.ID + "|" + strconv.Itoa(f)
			mine := row.Product + " " + row.Printing
			if other, dup := m.taken[key]; dup && other != mine {
				f, why = -1, "printing already priced by product "+other
			} else {
				m.taken[key] = mine
			}
		}
		if f < 0 {
			m.rep.Add(source.Entry{Row: n, Status: source.StatusDropped, Product: row.Product, Printing: row.Printing, CardID: c.ID,
				Reason: "no printing for subTypeName", Detail: why}, false)
			if !counted {
				// The row matched its card: it counts as matched, its
				// numbers dropped.
				m.rep.Add(source.Entry{Row: n, Status: status, Product: row.Product, Printing: row.Printing, CardID: c.ID}, true)
				counted = true
			}
			continue
		}
		for _, fld := range Fields {
			v, ok := row.Prices[fld.Name]
			if !ok {
				continue
			}
			obs = append(obs, source.Observation{Source: source.TCGplayer, Card: c, Finish: f, Grade: snapshots.RawNearMint,
				Day: m.day.Date, Field: fld.Name, Amount: v, Currency: row.Currency, Product: row.Product, Match: match, Confidence: conf})
			m.rep.Observations++
		}
		if !counted {
			m.rep.Add(source.Entry{Row: n, Status: status, Product: row.Product, Printing: row.Printing, CardID: c.ID,
				Finish: source.VariantOf(c, f)}, true)
			counted = true
		}
	}
	return obs
}

// preferLanguage keeps the cards of language when any, else those of the
// first card's language.
func preferLanguage(cards []*snapshots.Card, language string) []*snapshots.Card {
	var out []*snapshots.Card
	for _, c := range cards {
		if c.Language == language {
			out = append(out, c)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, c := range cards {
		if c.Language == cards[0].Language {
			out = append(out, c)
		}
	}
	return out
}

func allPrintings(c *snapshots.Card) []int {
	out := make([]int, c.Printings())
	for i := range out {
		out[i] = i
	}
	return out
}

// parenRE finds the parenthesized words of a product name: "Monkey.D.Luffy
// (Parallel)", "Charizard (Cosmos Holo)".
var parenRE = regexp.MustCompile(`\(([^)]*)\)`)

// dashNumberRE is the " - 4/102" older Pokémon product names end with.
var dashNumberRE = regexp.MustCompile(`\s+-\s+[A-Za-z]*[0-9][0-9A-Za-z]*(/[0-9A-Za-z]+)?\s*$`)

// altWords mark a One Piece product as an alternate art (a parallel).
var altWords = []string{"parallel", "alternate art", "alt art", "manga", "full art", "sp", "special", "treasure rare", "wanted poster"}

// baseName is a product name without its parenthesized words and its
// trailing number, folded; alt reports alternate-art words among them.
func baseName(name string) (base string, alt bool, notes []string) {
	for _, m := range parenRE.FindAllStringSubmatch(name, -1) {
		w := source.FoldName(m[1])
		notes = append(notes, w)
		for _, a := range altWords {
			if w == a || strings.HasPrefix(w, a+" ") || strings.HasSuffix(w, " "+a) {
				alt = true
			}
		}
	}
	name = parenRE.ReplaceAllString(name, " ")
	name = dashNumberRE.ReplaceAllString(name, "")
	return source.FoldName(name), alt, notes
}

// byNumberName finds a product's card by number and name: a Pokémon product
// in its group's set (by code, then by name), a One Piece product by its
// number in any set, an alternate art (parallel) among the card's
// alternate-art rows. It returns the candidates and, unless exactly one,
// why.
func (m *mapper) byNumberName(row source.Row, game, language string) ([]*snapshots.Card, string, string) {
	if row.Number == "" || row.Name == "" {
		return nil, "no id in the catalog, no number or name", "product " + row.Product + " (its products file names it not)"
	}
	base, alt, _ := baseName(row.Name)
	var pool []*snapshots.Card
	if game == "onepiece" {
		pool = m.cat.ByLanguageNumber(game, language, row.Number)
	} else {
		for _, s := range m.setsOf(row, game, language) {
			pool = append(pool, m.cat.ByNumber(game, s.ID, row.Number)...)
		}
	}
	if len(pool) == 0 {
		return nil, "no card with this number", fmt.Sprintf("%q number %q in %q", row.Name, row.Number, row.Set)
	}
	var named []*snapshots.Card
	for _, c := range pool {
		if source.FoldName(c.Name) == base {
			named = append(named, c)
		}
	}
	if len(named) == 0 {
		return nil, "number matches, name does not", fmt.Sprintf("%q number %q: %s", row.Name, row.Number, cardIDs(pool))
	}
	if game == "onepiece" {
		var keep []*snapshots.Card
		for _, c := range named {
			if isAlternate(c) == alt {
				keep = append(keep, c)
			}
		}
		named = keep
		if len(named) == 0 {
			return nil, "no card of this art", fmt.Sprintf("%q (alternate art %v) number %q", row.Name, alt, row.Number)
		}
	}
	if len(named) > 1 {
		return named, "several cards match number and name", fmt.Sprintf("%q number %q: %s", row.Name, row.Number, cardIDs(named))
	}
	return named, "", ""
}

// isAlternate reports whether a One Piece card is an alternate art (a
// parallel print: its id has a _p, _r ... suffix, its variant says so).
func isAlternate(c *snapshots.Card) bool {
	for _, v := range c.Variants {
		if v == "alternate-art" {
			return true
		}
	}
	return strings.Contains(c.SourceID, "_")
}

// setsOf finds the catalog sets of a TCGplayer group: by its abbreviation,
// then by its name ("SWSH07: Evolving Skies" is "Evolving Skies").
func (m *mapper) setsOf(row source.Row, game, language string) []*snapshots.Set {
	if row.SetCode != "" {
		if s := m.cat.SetsByCode(game, language, row.SetCode); len(s) > 0 {
			return s
		}
	}
	name := row.Set
	if _, after, ok := strings.Cut(name, ": "); ok {
		name = after
	}
	return m.cat.SetsByName(game, language, name)
}

func cardIDs(cards []*snapshots.Card) string {
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
	}
	return strings.Join(ids, " ")
}

// PrintingOf picks the printing of card c (an index into its Variants; -1
// for none, with why) that a TCGplayer subTypeName names among printings
// (the printings the product stands for).
//
// TCGplayer's printings (its subTypeName) are Normal, Holofoil, Reverse
// Holofoil, 1st Edition, 1st Edition Holofoil, Unlimited and Unlimited
// Holofoil, where Unlimited and Unlimited Holofoil are Normal and Holofoil
// named so on products that also have a 1st edition. So: "Reverse" names
// a reverse printing, "Holofoil" a holo one, else a normal one; "1st
// Edition" one with the 1st-edition part, any other one without it; the
// plainest such printing (source.BaseOf) takes the row. A product standing
// for one printing only that is not a reverse takes any non-reverse row
// (TCGplayer names some holo rares Normal). A card without known variants
// has one printing: its non-reverse rows go to it.
func PrintingOf(c *snapshots.Card, printings []int, subType string) (int, string) {
	s := strings.ToLower(strings.TrimSpace(subType))
	kind := source.PartNormal
	switch {
	case strings.Contains(s, "reverse"):
		kind = source.PartReverse
	case strings.Contains(s, "holo") || strings.Contains(s, "foil"):
		kind = source.PartHolo
	}
	firstEd := strings.Contains(s, "1st edition") || strings.Contains(s, "first edition")
	if len(c.Variants) == 0 {
		if kind == source.PartReverse {
			return -1, "the card's printings are unknown: no printing for a reverse row"
		}
		return 0, ""
	}
	if len(printings) == 0 {
		return -1, "no printing of the card has this product"
	}
	cands := source.Filter(c, printings, func(v string) bool {
		return source.VariantType(v) == kind && source.HasPart(v, source.PartFirstEd) == firstEd
	})
	if len(cands) > 0 {
		return source.BaseOf(c, cands), ""
	}
	if kind != source.PartReverse && !firstEd && len(printings) == 1 && source.VariantType(c.Variants[printings[0]]) != source.PartReverse {
		return printings[0], ""
	}
	return -1, fmt.Sprintf("%q names no printing among %s", subType, variantsOf(c, printings))
}

func variantsOf(c *snapshots.Card, printings []int) string {
	vs := make([]string, len(printings))
	for i, f := range printings {
		vs[i] = source.VariantOf(c, f)
	}
	return strings.Join(vs, ", ")
}
