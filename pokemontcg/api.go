package pokemontcg

import (
	"context"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// The /v2 API as an adapter serves it: Endpoints lists the routes with
// their parameters, Serve answers a request of one with a Body (its JSON,
// appended) or an apperr error, ErrorBody writes an error as pokemontcg.io
// does. The adapter (package edge) does the rest: keys, limits, the
// response cache.

// Param is one query parameter of an Endpoint: a string of at most MaxLen
// characters.
type Param struct {
	Name   string
	MaxLen int
	Doc    string
}

// Endpoint is one route of the /v2 API.
type Endpoint struct {
	Name    string // the adapter's route name: v2_cards
	Path    string // /v2/cards/{id}: the {id} is Request.ID
	Summary string
	Params  []Param
	kind    kind
}

type kind uint8

const (
	kindCards kind = iota
	kindCard
	kindSets
	kindSet
	kindTypes
	kindSubtypes
	kindSupertypes
	kindRarities
)

func listParams(resource string) []Param {
	fields, sorts, q := CardFields, CardSortFields(), "Search, as pokemontcg.io's q: field terms in pokemontcg.io's names (`name:charizard`, `set.id:sv1`, "+
		"`attacks.name:\"Fire Spin\"`, `legalities.standard:legal`), `\"phrases\"`, `*` wildcards (`name:char*`), `!` for a whole value "+
		"(`!name:charizard`), ranges (`hp:[150 TO *]`, `nationalPokedexNumbers:[1 TO 151]`, `{a TO b}` exclusive), `-` or NOT, OR, AND and "+
		"parentheses; values ignore case. A term that does not parse is a 400 naming it.\n\n"+syntax.LuceneDoc
	if resource == "sets" {
		fields, sorts, q = SetFields, SetSortFields(), "Search, as pokemontcg.io's q over its set fields: "+
			strings.Join(syntax.Sets.KnownFields(), ", ")+" (`legalities.standard:legal`, `series:\"sword & shield\"`, `releaseDate:[2020/01/01 TO 2020/12/31]`)."
	}
	return []Param{
		{"q", 1024, q},
		{"page", 16, "Page, from 1 (default 1)."},
		{"pageSize", 16, "Items per page, 1 to 250 (default 250); without a key at most the Playground's 50. The envelope's pageSize says what was used."},
		{"orderBy", 256, "Comma-separated fields, `-` before one for descending (`name,-number`, `-set.releaseDate`); case ignored. Fields: " +
			strings.Join(sorts, ", ") + "."},
		{"select", 512, "Comma-separated top-level fields to return (`id,name,images`); case ignored. Fields: " + strings.Join(fields, ", ") + "."},
	}
}

var selectParam = Param{"select", 512, "Comma-separated top-level fields to return (`id,name,images`); case ignored."}

// Endpoints are the routes of the /v2 API (pokemontcg.io's), in document
// order.
var Endpoints = []Endpoint{
	{"v2_cards", "/v2/cards", "Search English Pokémon cards (pokemontcg.io v2)", listParams("cards"), kindCards},
	{"v2_card", "/v2/cards/{id}", "One card by its pokemontcg.io id, base1-4 (pokemontcg.io v2)", []Param{selectParam}, kindCard},
	{"v2_sets", "/v2/sets", "Search English Pokémon sets (pokemontcg.io v2)", listParams("sets"), kindSets},
	{"v2_set", "/v2/sets/{id}", "One set by its pokemontcg.io id, base1 (pokemontcg.io v2)", []Param{selectParam}, kindSet},
	{"v2_types", "/v2/types", "The cards' energy types (pokemontcg.io v2)", nil, kindTypes},
	{"v2_subtypes", "/v2/subtypes", "The cards' subtypes (pokemontcg.io v2)", nil, kindSubtypes},
	{"v2_supertypes", "/v2/supertypes", "The cards' supertypes (pokemontcg.io v2)", nil, kindSupertypes},
	{"v2_rarities", "/v2/rarities", "The cards' rarities (pokemontcg.io v2)", nil, kindRarities},
}

// Request is one request of an Endpoint, as the adapter read it.
type Request struct {
	ID string // the path's {id}
	// Param returns a query parameter as sent, "" when absent (nil: none).
	Param func(name string) string
	// RowCap lowers page sizes above it (the Playground's 50); 0: none.
	RowCap int
}

func (r Request) param(name string) string {
	if r.Param == nil {
		return ""
	}
	return r.Param(name)
}

// Body is a response body.
type Body interface {
	AppendJSON(b []byte) []byte
}

// Serve answers a request of e (one of Endpoints) from a snapshot's
// catalog (Of) and index. Errors: EINVALID for a q, orderBy, select, page
// or pageSize that does not parse, naming what is wrong (400: ErrorBody);
// ENOTFOUND for an unknown id; EINTERNAL for a nil catalog (a server that
// did not register Derivation); the context's and the index's errors.
func Serve(ctx context.Context, cat *Catalog, ix *index.Index, e *Endpoint, r Request) (Body, error) {
	if cat == nil {
		return nil, apperr.Errorf(apperr.EINTERNAL, "pokemontcg: no /v2 catalog: register pokemontcg.Derivation in live.Options.Derive")
	}
	switch e.kind {
	case kindCards, kindSets:
		p, err := ParsePaging(r.param("page"), r.param("pageSize"))
		if err != nil {
			return nil, apperr.Errorf(apperr.EINVALID, "%s", err.Error())
		}
		if r.RowCap > 0 {
			p.PageSize = min(p.PageSize, r.RowCap)
		}
		if e.kind == kindSets {
			return cat.ListSets(r.param("q"), r.param("orderBy"), r.param("select"), p)
		}
		return cat.ListCards(ctx, ix, r.param("q"), r.param("orderBy"), r.param("select"), p)
	case kindCard:
		return cat.GetCard(r.ID, r.param("select"))
	case kindSet:
		return cat.GetSet(r.ID, r.param("select"))
	case kindTypes:
		return stringList(cat.Types()), nil
	case kindSubtypes:
		return stringList(cat.Subtypes()), nil
	case kindSupertypes:
		return stringList(cat.Supertypes()), nil
	}
	return stringList(cat.Rarities()), nil
}

// invalid is the EINVALID error of a parameter's parse error.
func invalid(err error) error { return apperr.Errorf(apperr.EINVALID, "%s", err.Error()) }

// ListCards is GET /v2/cards: the cards q matches (every card for a blank
// q), sorted by orderBy (catalog order without one), page p, with the
// fields of sel.
func (cat *Catalog) ListCards(ctx context.Context, ix *index.Index, q, orderBy, sel string, p Paging) (Body, error) {
	fields, err := ParseSelect("cards", sel)
	if err != nil {
		return nil, invalid(err)
	}
	keys, err := ParseOrderBy("cards", orderBy)
	if err != nil {
		return nil, invalid(err)
	}
	cards, shared := cat.cards, true
	if strings.TrimSpace(q) != "" {
		shared = false
		parsed, err := syntax.Parse(q)
		if err != nil {
			return nil, apperr.Errorf(apperr.EINVALID, "q: %s", err.Error())
		}
		if cards, err = cat.match(ctx, ix, parsed); err != nil {
			return nil, err
		}
	}
	if len(keys) > 0 {
		if shared {
			cards = append([]*snapshots.Card(nil), cards...)
		}
		cat.SortCards(cards, keys)
	}
	from, to := p.Window(len(cards))
	return &cardList{cat: cat, cards: cards[from:to], sel: fields, page: p, total: len(cards)}, nil
}

// match returns the catalog's cards the query matches, in catalog order.
func (cat *Catalog) match(ctx context.Context, ix *index.Index, q *syntax.Query) ([]*snapshots.Card, error) {
	if len(cat.cards) == 0 {
		return nil, nil
	}
	set, err := ix.Match(ctx, Game, CardQuery(q))
	if err != nil {
		return nil, err
	}
	out := make([]*snapshots.Card, 0, set.Len())
	for _, o := range set.Ordinals() {
		if int(o) < len(cat.byOrd) && cat.byOrd[o] != nil {
			out = append(out, cat.byOrd[o])
		}
	}
	return out, nil
}

// GetCard is GET /v2/cards/{id}: {"data": card}.
func (cat *Catalog) GetCard(id, sel string) (Body, error) {
	fields, err := ParseSelect("cards", sel)
	if err != nil {
		return nil, invalid(err)
	}
	c, ok := cat.CardByID(id)
	if !ok {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "no card with id %q (ids are pokemontcg.io's: base1-4)", id)
	}
	return &cardItem{cat: cat, card: c, sel: fields}, nil
}

// ListSets is GET /v2/sets: the sets q (syntax.Sets) matches, sorted by
// orderBy (catalog order without one), page p, with the fields of sel.
func (cat *Catalog) ListSets(q, orderBy, sel string, p Paging) (Body, error) {
	fields, err := ParseSelect("sets", sel)
	if err != nil {
		return nil, invalid(err)
	}
	keys, err := ParseOrderBy("sets", orderBy)
	if err != nil {
		return nil, invalid(err)
	}
	parsed, err := syntax.Sets.Parse(q)
	if err != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "q: %s", err.Error())
	}
	sets := cat.MatchSets(parsed)
	cat.SortSets(sets, keys)
	from, to := p.Window(len(sets))
	return &setList{sets: sets[from:to], sel: fields, page: p, total: len(sets)}, nil
}

// GetSet is GET /v2/sets/{id}: {"data": set}.
func (cat *Catalog) GetSet(id, sel string) (Body, error) {
	fields, err := ParseSelect("sets", sel)
	if err != nil {
		return nil, invalid(err)
	}
	s, ok := cat.SetByID(id)
	if !ok {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "no set with id %q (ids are pokemontcg.io's: base1)", id)
	}
	return &setItem{set: s, sel: fields}, nil
}

// appendCard writes c with the fields of sel: its object encoded by Load
// when every field is selected, else built.
func (cat *Catalog) appendCard(b []byte, c *snapshots.Card, sel Selection) []byte {
	if sel == All && int(c.Ordinal) < len(cat.encoded) && cat.encoded[c.Ordinal] != nil {
		return append(b, cat.encoded[c.Ordinal]...)
	}
	return cat.Card(c).AppendJSON(b, sel)
}

type cardList struct {
	cat   *Catalog
	cards []*snapshots.Card // the page
	sel   Selection
	page  Paging
	total int
}

func (l *cardList) AppendJSON(b []byte) []byte {
	b = AppendListStart(b)
	for i, c := range l.cards {
		if i > 0 {
			b = append(b, ',')
		}
		b = l.cat.appendCard(b, c, l.sel)
	}
	return AppendListEnd(b, l.page, len(l.cards), l.total)
}

type cardItem struct {
	cat  *Catalog
	card *snapshots.Card
	sel  Selection
}

func (x *cardItem) AppendJSON(b []byte) []byte {
	b = append(b, `{"data":`...)
	return append(x.cat.appendCard(b, x.card, x.sel), '}')
}

type setList struct {
	sets  []*Set // the page
	sel   Selection
	page  Paging
	total int
}

func (l *setList) AppendJSON(b []byte) []byte {
	b = AppendListStart(b)
	for i, s := range l.sets {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.AppendJSON(b, l.sel)
	}
	return AppendListEnd(b, l.page, len(l.sets), l.total)
}

type setItem struct {
	set *Set
	sel Selection
}

func (x *setItem) AppendJSON(b []byte) []byte {
	b = append(b, `{"data":`...)
	return append(x.set.AppendJSON(b, x.sel), '}')
}

type stringList []string

func (l stringList) AppendJSON(b []byte) []byte { return AppendStrings(b, l) }

// ErrorBody is pokemontcg.io's error answer of an apperr code and message:
// the status (EINVALID is 400, as pokemontcg.io answers a bad request;
// other codes apperr.HTTPStatus) and {"error":{"message","code"}}.
func ErrorBody(code, msg string) (status int, body []byte) {
	status = apperr.HTTPStatus(code)
	if code == apperr.EINVALID {
		status = 400
	}
	return status, AppendError(nil, status, msg)
}
