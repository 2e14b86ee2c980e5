package builder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// Games are the games the builder knows, in API order: the first is the
// default game.
var Games = []string{"pokemon", "onepiece"}

// Catalog is the card catalog feed: sets and cards of every game, in file
// order.
type Catalog struct {
	Sets    []*snapshots.Set
	Cards   []*snapshots.Card
	Digests map[string]string // file name -> SHA-256
}

var catalogID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+@!?:-]{0,127}$`)

// ReadCatalog reads sets.jsonl(.gz) and cards.jsonl(.gz) from dir and checks
// every row: required fields, known games and languages, unique ids, cards
// pointing at existing sets. A bad row is a *FeedError naming file, line and
// field.
func ReadCatalog(dir string) (*Catalog, error) {
	cat := &Catalog{Digests: map[string]string{}}
	setsPath, ok := feedPath(dir, "sets.jsonl")
	if !ok {
		return nil, fmt.Errorf("read catalog: no sets.jsonl or sets.jsonl.gz in %s", dir)
	}
	cardsPath, ok := feedPath(dir, "cards.jsonl")
	if !ok {
		return nil, fmt.Errorf("read catalog: no cards.jsonl or cards.jsonl.gz in %s", dir)
	}
	sets := map[string]*snapshots.Set{} // game|lower(id)
	digest, err := readJSONLines(setsPath, func(line []byte) error {
		var row catalogSet
		if err := decodeRow(line, &row); err != nil {
			return err
		}
		s, err := row.set()
		if err != nil {
			return err
		}
		key := s.Game + "|" + strings.ToLower(s.ID)
		if sets[key] != nil {
			return &FeedError{Field: "id", Err: fmt.Errorf("duplicate set id %q in %s", s.ID, s.Game)}
		}
		sets[key] = s
		cat.Sets = append(cat.Sets, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	cat.Digests["sets"] = digest
	cards := map[string]bool{}
	digest, err = readJSONLines(cardsPath, func(line []byte) error {
		var c snapshots.Card
		if err := (*catalogCard)(&c).UnmarshalJSON(line); err != nil {
			return err
		}
		if err := checkCard(&c); err != nil {
			return err
		}
		key := c.Game + "|" + strings.ToLower(c.ID)
		if cards[key] {
			return &FeedError{Field: "id", Err: fmt.Errorf("duplicate card id %q in %s", c.ID, c.Game)}
		}
		cards[key] = true
		if sets[c.Game+"|"+strings.ToLower(c.SetID)] == nil {
			return &FeedError{Field: "set_id", Err: fmt.Errorf("no set %q in %s", c.SetID, c.Game)}
		}
		cat.Cards = append(cat.Cards, &c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	cat.Digests["cards"] = digest
	return cat, nil
}

// catalogSet is a row of sets.jsonl; nullable fields are pointers so that
// null and absent are accepted.
type catalogSet struct {
	Game             string  `json:"game"`
	ID               string  `json:"id"`
	Language         string  `json:"language"`
	SourceID         string  `json:"source_id"`
	Name             string  `json:"name"`
	Series           *string `json:"series"`
	ReleaseDate      *string `json:"release_date"`
	Abbreviation     *string `json:"abbreviation"`
	CardCountPrinted *int    `json:"card_count_printed"`
	CardCountTotal   *int    `json:"card_count_total"`
	CardsInDataset   int     `json:"cards_in_dataset"`
	Source           string  `json:"source"`
}

func (r *catalogSet) set() (*snapshots.Set, error) {
	if err := checkCommon(r.Game, r.ID, r.Language, r.Name); err != nil {
		return nil, err
	}
	s := &snapshots.Set{
		Game: r.Game, ID: r.ID, Language: r.Language, SourceID: r.SourceID, Name: r.Name,
		Series: deref(r.Series), ReleaseDate: deref(r.ReleaseDate), Abbreviation: deref(r.Abbreviation),
		Source: r.Source,
	}
	if s.ReleaseDate != "" {
		if _, err := snapshots.ParseDay(s.ReleaseDate); err != nil {
			return nil, &FeedError{Field: "release_date", Err: err}
		}
	}
	if r.CardCountPrinted != nil {
		if *r.CardCountPrinted < 0 {
			return nil, &FeedError{Field: "card_count_printed", Err: errors.New("must be >= 0")}
		}
		s.CardCountPrinted = *r.CardCountPrinted
	}
	if r.CardCountTotal != nil {
		if *r.CardCountTotal < 0 {
			return nil, &FeedError{Field: "card_count_total", Err: errors.New("must be >= 0")}
		}
		s.CardCountTotal = *r.CardCountTotal
	}
	return s, nil
}

// catalogCard decodes a cards.jsonl row into a Card; the market fields of Card
// are not part of the feed, so they are rejected as unknown by a shadow type.
type catalogCard snapshots.Card

func (c *catalogCard) UnmarshalJSON(b []byte) error {
	var row struct {
		Game         string            `json:"game"`
		ID           string            `json:"id"`
		Language     string            `json:"language"`
		SourceID     string            `json:"source_id"`
		SetID        string            `json:"set_id"`
		Name         string            `json:"name"`
		NameLanguage string            `json:"name_language"`
		Number       string            `json:"number"`
		Rarity       *string           `json:"rarity"`
		Supertype    *string           `json:"supertype"`
		Subtypes     []string          `json:"subtypes"`
		Colors       []string          `json:"colors"`
		NationalDex  []float64         `json:"national_dex"` // a few rows carry forms such as 384.1
		Variants     []string          `json:"variants"`
		ENCardID     *string           `json:"en_card_id"`
		ENMatch      *string           `json:"en_match"`
		Play         json.RawMessage   `json:"play"`
		MarketIDs    []catalogMarketID `json:"market_ids"`
		Source       string            `json:"source"`
	}
	if err := decodeRow(b, &row); err != nil {
		return err
	}
	play, err := decodePlay(row.Game, row.Play)
	if err != nil {
		return err
	}
	ids, err := marketIDs(row.MarketIDs, row.Variants)
	if err != nil {
		return err
	}
	*c = catalogCard{
		Game: row.Game, ID: row.ID, Language: row.Language, SourceID: row.SourceID, SetID: row.SetID,
		Name: row.Name, NameLanguage: row.NameLanguage, Number: row.Number, Rarity: deref(row.Rarity),
		Supertype: deref(row.Supertype), Subtypes: row.Subtypes, Colors: row.Colors, NationalDex: dexNumbers(row.NationalDex),
		Variants: row.Variants, ENCardID: deref(row.ENCardID), ENMatch: deref(row.ENMatch), Source: row.Source,
		Play: play, MarketIDs: ids,
	}
	return nil
}

// catalogMarketID is one entry of a card's market_ids: a variant (null: the
// card as a whole) and the marketplaces' product ids (null: none).
type catalogMarketID struct {
	Variant    *string `json:"variant"`
	Cardmarket *int64  `json:"cardmarket"`
	TCGplayer  *int64  `json:"tcgplayer"`
}

// marketIDs checks a card's market_ids against its variants (each entry
// names one of them, or none: the card as a whole) and their ids (positive)
// and folds the entries of one variant together: the catalog lists some
// variants twice, once without an id, or with two products of one
// marketplace (a promo stamped in several years). Each variant keeps its
// distinct ids of each marketplace, in catalog order, paired up in as few
// entries as they need. Entries without any id are dropped.
func marketIDs(rows []catalogMarketID, variants []string) ([]snapshots.MarketID, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	type ids struct{ cardmarket, tcgplayer []int64 }
	var order []string
	byVariant := map[string]*ids{}
	add := func(list []int64, v *int64, name string) ([]int64, error) {
		if v == nil {
			return list, nil
		}
		if *v <= 0 {
			return nil, &FeedError{Field: "market_ids", Err: fmt.Errorf("%s id %d is not a positive number", name, *v)}
		}
		if slices.Contains(list, *v) {
			return list, nil
		}
		return append(list, *v), nil
	}
	for _, r := range rows {
		variant := ""
		if r.Variant != nil {
			variant = *r.Variant
			if variant == "" || indexOf(variants, variant) < 0 {
				return nil, &FeedError{Field: "market_ids", Err: fmt.Errorf("variant %q is not one of the card's variants", variant)}
			}
		}
		x := byVariant[variant]
		if x == nil {
			x = &ids{}
			byVariant[variant] = x
			order = append(order, variant)
		}
		var err error
		if x.cardmarket, err = add(x.cardmarket, r.Cardmarket, "cardmarket"); err != nil {
			return nil, err
		}
		if x.tcgplayer, err = add(x.tcgplayer, r.TCGplayer, "tcgplayer"); err != nil {
			return nil, err
		}
	}
	var out []snapshots.MarketID
	for _, v := range order {
		x := byVariant[v]
		for i := range max(len(x.cardmarket), len(x.tcgplayer)) {
			m := snapshots.MarketID{Variant: v}
			if i < len(x.cardmarket) {
				m.Cardmarket = x.cardmarket[i]
			}
			if i < len(x.tcgplayer) {
				m.TCGplayer = x.tcgplayer[i]
			}
			out = append(out, m)
		}
	}
	return out, nil
}

func checkCard(c *snapshots.Card) error {
	if err := checkCommon(c.Game, c.ID, c.Language, c.Name); err != nil {
		return err
	}
	if c.SetID == "" {
		return &FeedError{Field: "set_id", Err: errors.New("required")}
	}
	if c.Number == "" {
		return &FeedError{Field: "number", Err: errors.New("required")}
	}
	if c.NameLanguage == "" {
		c.NameLanguage = c.Language
	}
	if len(c.Variants) > 255 {
		return &FeedError{Field: "variants", Err: errors.New("more than 255 variants")}
	}
	return nil
}

func checkCommon(game, id, language, name string) error {
	if !isGame(game) {
		return &FeedError{Field: "game", Err: fmt.Errorf("%q is not one of %s", game, strings.Join(Games, ", "))}
	}
	if !catalogID.MatchString(id) {
		return &FeedError{Field: "id", Err: fmt.Errorf("%q is not a valid id (letters, digits and . _ + @ ! ? : -, at most 128)", id)}
	}
	if !snapshots.IsLanguage(language) {
		return &FeedError{Field: "language", Err: fmt.Errorf("%q is not one of %s", language, strings.Join(snapshots.Languages, ", "))}
	}
	if strings.TrimSpace(name) == "" {
		return &FeedError{Field: "name", Err: errors.New("required")}
	}
	return nil
}

func isGame(g string) bool {
	for _, x := range Games {
		if x == g {
			return true
		}
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// dexNumbers keeps the species number of each entry: the catalog marks a few
// forms with a decimal (384.1 is a Rayquaza form), which the API reports as
// the species (384).
func dexNumbers(f []float64) []int {
	if f == nil {
		return nil
	}
	out := make([]int, len(f))
	for i, x := range f {
		out[i] = int(x)
	}
	return out
}

// MaxSetIDLen is the longest set id the API accepts as a parameter (the
// spec bounds set_id to 64 characters).
const MaxSetIDLen = 64

// ShortenSetIDs rewrites set ids longer than MaxSetIDLen (One Piece products
// without a code get long x-<slug> ids) to their first 55 characters, "~"
// and 8 hex digits of the SHA-256 of the whole id, in the sets and in their
// cards' set_id, so every set can be named in a query. The rewrite is
// deterministic; the original id stays in the set's source_id.
func ShortenSetIDs(sets []*snapshots.Set, cards []*snapshots.Card) {
	renamed := map[string]string{}
	for _, s := range sets {
		if len(s.ID) <= MaxSetIDLen {
			continue
		}
		sum := sha256.Sum256([]byte(s.ID))
		short := s.ID[:MaxSetIDLen-9] + "~" + hex.EncodeToString(sum[:4])
		renamed[s.Game+"|"+s.ID] = short
		s.ID = short
	}
	if len(renamed) == 0 {
		return
	}
	for _, c := range cards {
		if short, ok := renamed[c.Game+"|"+c.SetID]; ok {
			c.SetID = short
		}
	}
}
