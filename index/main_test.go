package index_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
)

// The whole shipped catalog is loaded and indexed once per test binary, on
// first use (sync.Once), and shared read-only by every test and benchmark.
// Tests that do not need it (analysis, normalization) do not pay for it.
// Under the race detector a subset is used (see raceSubset).
var (
	catSets  []*snapshots.Set
	catCards []*snapshots.Card
	cardByID map[string]*snapshots.Card // "game/id"
	fullIx   *index.Index
	fullDir  string
	fullTook time.Duration
	fullErr  error
	fullOnce sync.Once
	catErr   error
	catOnce  sync.Once
	tmpRoot  string
)

const catalogDir = "../builder/catalog"

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "cardedge-index-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if fullIx != nil {
		fullIx.Close()
	}
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

// catalog loads the shipped catalog with its synthetic market, once.
func catalog(tb testing.TB) ([]*snapshots.Set, []*snapshots.Card) {
	tb.Helper()
	catOnce.Do(func() {
		catSets, catCards, catErr = loadCatalog(catalogDir)
		if catErr != nil {
			return
		}
		addSyntheticMarket(catSets, catCards)
		addSyntheticText(catCards)
		index := func() {
			cardByID = make(map[string]*snapshots.Card, len(catCards))
			for _, c := range catCards {
				cardByID[c.Game+"/"+c.ID] = c
			}
		}
		index()
		if raceEnabled {
			catSets, catCards = raceSubset(tb, catSets, catCards)
			index()
		}
	})
	if catErr != nil {
		tb.Fatalf("catalog: %v", catErr)
	}
	return catSets, catCards
}

// full returns the index of the whole shipped catalog, building it once.
func full(tb testing.TB) *index.Index {
	tb.Helper()
	sets, cards := catalog(tb)
	fullOnce.Do(func() {
		fullDir = filepath.Join(tmpRoot, "full")
		start := time.Now()
		if fullErr = index.Build(context.Background(), fullDir, sets, cards, index.BuildOptions{}); fullErr != nil {
			return
		}
		fullTook = time.Since(start)
		fullIx, fullErr = index.Open(fullDir)
	})
	if fullErr != nil {
		tb.Fatalf("full catalog index: %v", fullErr)
	}
	return fullIx
}

// raceSubset keeps the sets that the tests need: those of the cards each
// relevance case expects (all of them for cases naming ids, the first
// matching card's otherwise) and those the filter, sort and collapse tests
// name. Under the race detector the whole catalog takes minutes to index.
func raceSubset(tb testing.TB, sets []*snapshots.Set, cards []*snapshots.Card) ([]*snapshots.Set, []*snapshots.Card) {
	keep := map[string]bool{
		"pokemon/en:base1": true, "pokemon/ja:SV1S": true, "pokemon/zh-tw:SV1S": true,
		"onepiece/en:OP-01": true, "onepiece/ja:OP-01": true,
	}
	byID := map[string]*snapshots.Card{}
	for _, c := range cards {
		byID[c.Game+"/"+c.ID] = c
		if c.Game == "onepiece" && (strings.HasPrefix(c.ID, "en:OP01-001") || strings.HasPrefix(c.ID, "ja:OP01-001")) {
			keep[c.Game+"/"+c.SetID] = true
		}
	}
	for _, rc := range relevanceCases(tb) {
		game := rc.game
		if game == "" {
			game = "pokemon"
		}
		// cases naming ids: every such card; others: the first match,
		// preferring one linked to an English card (kept too)
		var first *snapshots.Card
		for _, c := range cards {
			if c.Game != game || rc.lang != "" && c.Language != rc.lang || !rc.ok(c) {
				continue
			}
			if len(rc.want) > 0 {
				keep[c.Game+"/"+c.SetID] = true
				continue
			}
			if first == nil {
				first = c
			}
			if en := byID[c.Game+"/"+c.ENCardID]; c.ENCardID != "" && en != nil {
				first = c
				keep[en.Game+"/"+en.SetID] = true
				break
			}
		}
		if first != nil {
			keep[first.Game+"/"+first.SetID] = true
		}
	}
	return keepSets(sets, cards, keep)
}

// loadCatalog decodes the shipped JSON Lines catalog straight into the
// domain types.
func loadCatalog(dir string) ([]*snapshots.Set, []*snapshots.Card, error) {
	var sets []*snapshots.Set
	if err := readJSONL(filepath.Join(dir, "sets.jsonl.gz"), func(dec func(any) error) error {
		s := new(snapshots.Set)
		if err := dec(s); err != nil {
			return err
		}
		sets = append(sets, s)
		return nil
	}); err != nil {
		return nil, nil, err
	}
	var cards []*snapshots.Card
	if err := readJSONL(filepath.Join(dir, "cards.jsonl.gz"), func(dec func(any) error) error {
		// One row (ja:PCG2-067, a Delta Species "star" card) has national_dex
		// [384.1], which []int refuses: shadow the field and truncate.
		// play is the game's part of snapshots.Play, in the same JSON.
		var row struct {
			snapshots.Card
			NationalDex []float64       `json:"national_dex"`
			Play        json.RawMessage `json:"play"`
		}
		if err := dec(&row); err != nil {
			return err
		}
		c := row.Card
		for _, n := range row.NationalDex {
			c.NationalDex = append(c.NationalDex, int(n))
		}
		var part any
		switch c.Game {
		case "pokemon":
			c.Play.Pokemon = new(snapshots.PokemonPlay)
			part = c.Play.Pokemon
		case "onepiece":
			c.Play.OnePiece = new(snapshots.OnePiecePlay)
			part = c.Play.OnePiece
		}
		if err := json.Unmarshal(row.Play, part); err != nil {
			return fmt.Errorf("play: %w", err)
		}
		cards = append(cards, &c)
		return nil
	}); err != nil {
		return nil, nil, err
	}
	return sets, cards, nil
}

func readJSONL(path string, each func(dec func(any) error) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if err := each(func(v any) error { return json.Unmarshal(b, v) }); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

// hash01 is a deterministic pseudo-random number in [0,1) for s.
func hash01(s string) float64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return float64(h.Sum64()%1_000_000) / 1_000_000
}

// addSyntheticText gives the cards of en:base1 and en:base2 made-up card
// text (the shipped catalog has none; a build from a pokemon-tcg-data clone
// would), so that the text fields of the syntax have something to find:
// attack and ability text, flavor text, rules for trainers, and evolvesTo
// from the set's evolvesFrom.
func addSyntheticText(cards []*snapshots.Card) {
	str := func(s string) *string { return &s }
	evolves := map[string][]string{} // set|name -> names evolving from it
	for _, c := range cards {
		if p := c.Play.Pokemon; p != nil && c.Game == "pokemon" && p.EvolvesFrom != "" {
			evolves[c.SetID+"|"+p.EvolvesFrom] = append(evolves[c.SetID+"|"+p.EvolvesFrom], c.Name)
		}
	}
	for _, c := range cards {
		p := c.Play.Pokemon
		if p == nil || c.Game != "pokemon" || (c.SetID != "en:base1" && c.SetID != "en:base2") {
			continue
		}
		for i := range p.Attacks {
			p.Attacks[i].Text = str("Test text of " + p.Attacks[i].Name + ". Flip a coin.")
		}
		for i := range p.Abilities {
			p.Abilities[i].Text = str("Test text of " + p.Abilities[i].Name + ".")
		}
		p.FlavorText = "Test flavor of " + c.Name + ", " + strings.Join(p.Types, " ") + "."
		if c.Supertype == "Trainer" {
			p.Rules = []string{"Test rule of " + c.Name + "."}
		}
		p.EvolvesTo = evolves[c.SetID+"|"+c.Name]
	}
}

// addSyntheticMarket gives every card a deterministic market summary:
// popular names (Charizard, Pikachu, Luffy ...) and rare cards sell more,
// ordinals are catalog positions per game, Pokémon cards get partner product
// ids, and sets sum their cards.
func addSyntheticMarket(sets []*snapshots.Set, cards []*snapshots.Card) {
	ordinal := map[string]uint32{}
	setTotals := map[string]*snapshots.Set{}
	for _, s := range sets {
		setTotals[s.Game+"/"+s.ID] = s
	}
	for _, c := range cards {
		c.Ordinal = ordinal[c.Game]
		ordinal[c.Game]++
		mult := 1.0
		name := strings.ToLower(c.Name)
		for word, m := range map[string]float64{
			"charizard": 40, "pikachu": 20, "umbreon": 15, "mewtwo": 8, "luffy": 12,
			"リザードン": 25, "ピカチュウ": 12, "噴火龍": 10, "皮卡丘": 8, "zoro": 6,
		} {
			if strings.Contains(name, word) {
				mult *= m
			}
		}
		switch c.Rarity {
		case "Rare Holo", "Rare Secret", "Rare Rainbow", "Special Illustration Rare", "Hyper Rare", "SEC", "SR", "SP CARD", "L":
			mult *= 4
		case "Rare", "Double Rare", "Ultra Rare", "Illustration Rare", "Rare Ultra", "Rare Holo V", "Rare Holo VMAX", "R":
			mult *= 2
		}
		if strings.HasSuffix(c.ID, "_p1") || strings.HasSuffix(c.ID, "_p2") {
			mult *= 3
		}
		if c.Language == "en" {
			mult *= 2
		}
		if c.ID == "en:base1-4" { // the card every collector knows
			mult *= 10
		}
		r := hash01(c.Game + c.ID)
		c.Volume30dCents = int64((200 + 5000*r) * mult)
		c.Sales30d = int(1 + float64(c.Volume30dCents)/5000)
		c.SalesAll = c.Sales30d * 12
		if r < 0.93 { // a few cards stay unpriced
			c.PriceCents = int64((50 + 3000*hash01("p"+c.ID)) * mult / 3)
		}
		if c.Game == "pokemon" {
			c.PartnerProductID = 100000 + int64(c.Ordinal)
		}
		if s := setTotals[c.Game+"/"+c.SetID]; s != nil {
			s.CardCount++
			s.Volume30dCents += c.Volume30dCents
			s.Sales30d += c.Sales30d
		}
	}
}

func card(tb testing.TB, game, id string) *snapshots.Card {
	tb.Helper()
	catalog(tb)
	c := cardByID[game+"/"+id]
	if c == nil {
		tb.Fatalf("no card %s/%s in the catalog", game, id)
	}
	return c
}

// mustSearch runs a search on the full index.
func mustSearch(tb testing.TB, r index.SearchRequest) index.SearchResult {
	tb.Helper()
	if r.MinPriceCents == 0 && r.MaxPriceCents == 0 {
		r.MinPriceCents, r.MaxPriceCents = -1, -1
	}
	res, err := full(tb).Search(context.Background(), r)
	if err != nil {
		tb.Fatalf("Search(%+v): %v", r, err)
	}
	return res
}

func hitIDs(res index.SearchResult) []string {
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.CardID
	}
	return out
}

// keepSets returns the sets whose "game/id" keep holds and their cards.
func keepSets(sets []*snapshots.Set, cards []*snapshots.Card, keep map[string]bool) ([]*snapshots.Set, []*snapshots.Card) {
	var ss []*snapshots.Set
	for _, s := range sets {
		if keep[s.Game+"/"+s.ID] {
			ss = append(ss, s)
		}
	}
	var cs []*snapshots.Card
	for _, c := range cards {
		if keep[c.Game+"/"+c.SetID] {
			cs = append(cs, c)
		}
	}
	return ss, cs
}
