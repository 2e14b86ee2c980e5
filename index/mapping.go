package index

import (
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Bleve field names. A Bleve document is one card; its id is the card's row
// (position in the cards given to Build) in base 36, which Search maps back
// to the card id through the row table of typeahead.bin.
const (
	fGame      = "game"       // keyword
	fLanguage  = "language"   // keyword
	fSet       = "set"        // keyword: set id and set source id (normKeyword)
	fRarity    = "rarity"     // keyword (normKeyword)
	fVariant   = "variant"    // keyword: each variant and each of its parts (normKeyword)
	fName      = "name"       // text, stored: the card name
	fNameAlt   = "name_alt"   // text, stored: romaji / pinyin forms, possessive-free name
	fNameEN    = "name_en"    // text, stored: English name of the linked English card
	fNameExact = "name_exact" // keyword: normalizeText of the name and of its alt forms
	fNameSort  = "name_sort"  // keyword with doc values: sort key
	fSetExact  = "set_exact"  // keyword: normalizeText of the set name (English sets also "<name> set")
	fSetName   = "set_name"   // text, stored: the set name
	fSetCode   = "set_code"   // keyword: set id, source id, abbreviation, compact forms
	fNumber    = "number"     // keyword, stored: every form of the collector number
	fIDs       = "ids"        // keyword: card id, source id, partner product id
	fTags      = "tags"       // text: rarity, supertype, subtypes, variants
	fPrice     = "price"      // keyword with doc values: hex PriceCents, absent when unpriced (sort only; the range filter reads typeahead.bin)
	fVolume    = "volume"     // keyword with doc values: hex Volume30dCents then hex Sales30d, sorts as numbers

	// Fields of the search syntax's terms (see structured.go): keywords
	// hold each word run of up to maxRun words of the normalizeText form
	// of every value ("mitsuhiro", "arita", "mitsuhiro arita"), so that a
	// term matches a whole value or whole words of one.
	fArtist    = "artist"    // keyword runs: Pokémon illustrator
	fType      = "ptype"     // keyword runs: Pokémon energy types, supertype, subtypes; One Piece types, category
	fColor     = "color"     // keyword runs: card colors
	fAttack    = "attack"    // keyword runs: Pokémon attack names
	fAbility   = "ability"   // keyword runs: Pokémon ability names
	fAttribute = "attribute" // keyword runs: One Piece attributes
	fLegal     = "legal"     // keyword: formats the card is legal in (standard, expanded, unlimited)
	fBanned    = "banned"    // keyword: formats the card is banned in
	fReg       = "reg"       // keyword: normalizeText of the regulation mark
	// Numbers are keywords of ten digits (numberTerm), compared as term
	// ranges: one term per value (a Bleve numeric field indexes sixteen).
	fHP      = "hp"      // number: Pokémon HP
	fRetreat = "retreat" // number: Pokémon retreat cost
	fCost    = "cost"    // number: One Piece cost
	fPower   = "power"   // number: One Piece power
	fCounter = "counter" // number: One Piece counter
	fLife    = "life"    // number: One Piece life
	// fFacts holds, for the other fields of the syntax, terms prefixed by
	// the field's key (see facts.go): presence, whole values, word runs,
	// numbers and dates.
	fFacts = "facts"
)

// highlightFields are the stored fields whose matches come back as
// highlights.
var highlightFields = []string{fName, fNameAlt, fNameEN, fSetName, fNumber}

// doc is the Bleve document of one card; Bleve maps it by its json tags.
type doc struct {
	Game      string   `json:"game"`
	Language  string   `json:"language"`
	Set       []string `json:"set"`
	Rarity    *string  `json:"rarity,omitempty"`
	Variant   []string `json:"variant,omitempty"`
	Name      string   `json:"name"`
	NameAlt   []string `json:"name_alt,omitempty"`
	NameEN    string   `json:"name_en,omitempty"`
	NameExact []string `json:"name_exact,omitempty"`
	NameSort  string   `json:"name_sort"`
	SetName   string   `json:"set_name,omitempty"`
	SetExact  []string `json:"set_exact,omitempty"`
	SetCode   []string `json:"set_code,omitempty"`
	Number    []string `json:"number,omitempty"`
	IDs       []string `json:"ids"`
	Tags      []string `json:"tags,omitempty"`
	Price     *string  `json:"price,omitempty"` // nil (not "") when unpriced: Bleve indexes "" as a term
	Volume    string   `json:"volume"`

	Artist    []string `json:"artist,omitempty"`
	Type      []string `json:"ptype,omitempty"`
	Color     []string `json:"color,omitempty"`
	Attack    []string `json:"attack,omitempty"`
	Ability   []string `json:"ability,omitempty"`
	Attribute []string `json:"attribute,omitempty"`
	Legal     []string `json:"legal,omitempty"`
	Banned    []string `json:"banned,omitempty"`
	Reg       *string  `json:"reg,omitempty"`
	// Numbers the card prints (numberTerm); nil when it prints none.
	HP      *string `json:"hp,omitempty"`
	Retreat *string `json:"retreat,omitempty"`
	Cost    *string `json:"cost,omitempty"`
	Power   *string `json:"power,omitempty"`
	Counter *string `json:"counter,omitempty"`
	Life    *string `json:"life,omitempty"`

	Facts []string `json:"facts,omitempty"`
}

func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	if err := addAnalyzers(im); err != nil {
		return nil, err
	}
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	im.DefaultAnalyzer = textAnalyzer

	kw := func(store bool, docValues bool) *mapping.FieldMapping {
		f := mapping.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeTermVectors = store
		f.IncludeInAll = false
		f.DocValues = docValues
		return f
	}
	text := func(store bool) *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = textAnalyzer
		f.Store = store
		f.IncludeTermVectors = store
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}

	dm := mapping.NewDocumentStaticMapping()
	for _, name := range []string{fGame, fLanguage, fSet, fRarity, fVariant, fNameExact, fSetExact, fSetCode, fIDs,
		fArtist, fType, fColor, fAttack, fAbility, fAttribute, fLegal, fBanned, fReg,
		fHP, fRetreat, fCost, fPower, fCounter, fLife, fFacts} {
		dm.AddFieldMappingsAt(name, kw(false, false))
	}
	dm.AddFieldMappingsAt(fNameSort, kw(false, true))
	dm.AddFieldMappingsAt(fVolume, kw(false, true))
	dm.AddFieldMappingsAt(fPrice, kw(false, true))
	dm.AddFieldMappingsAt(fNumber, kw(true, false))
	for _, name := range []string{fName, fNameAlt, fNameEN, fSetName} {
		dm.AddFieldMappingsAt(name, text(true))
	}
	dm.AddFieldMappingsAt(fTags, text(false))
	// no composite _all field: every query names its fields
	dm.AddSubDocumentMapping("_all", mapping.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	return im, nil
}
