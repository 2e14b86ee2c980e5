package pokemontcg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// The JSON of /v2, written by hand: the bytes encoding/json writes for the
// types above (without HTML escaping; tests compare them), with select's
// fields only, and no reflection on the way.

// Selection is the top-level fields of select: bit i is field i of
// CardFields (or SetFields). All selects every field.
type Selection uint64

// All selects every field.
const All = ^Selection(0)

// CardFields and SetFields are the top-level fields of the card and set
// objects, in their order: the names select takes.
var (
	CardFields = []string{"id", "name", "supertype", "subtypes", "level", "hp", "types", "evolvesFrom", "evolvesTo",
		"rules", "ancientTrait", "abilities", "attacks", "weaknesses", "resistances", "retreatCost", "convertedRetreatCost",
		"set", "number", "artist", "rarity", "flavorText", "nationalPokedexNumbers", "legalities", "regulationMark", "images",
		"tcgplayer", "cardmarket", "cardedge"}
	SetFields = []string{"id", "name", "series", "printedTotal", "total", "legalities", "ptcgoCode", "releaseDate", "updatedAt", "images"}
)

// ParseSelect parses select for cards ("sets": for sets): top-level field
// names separated by commas, case ignored; "" selects every field. An
// unknown field is an error naming it.
func ParseSelect(resource, s string) (Selection, error) {
	fields := CardFields
	if resource == "sets" {
		fields = SetFields
	}
	if strings.TrimSpace(s) == "" {
		return All, nil
	}
	var sel Selection
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		i := -1
		for j, f := range fields {
			if strings.EqualFold(f, part) {
				i = j
			}
		}
		if i < 0 {
			return 0, fmt.Errorf("select: unknown field %q (fields: %s)", part, strings.Join(fields, ", "))
		}
		sel |= 1 << i
	}
	if sel == 0 {
		return All, nil
	}
	return sel, nil
}

// object writes the members of a JSON object, a comma before each but the
// first.
type object struct {
	b     []byte
	first bool
}

func openObject(b []byte) object { return object{b: append(b, '{'), first: true} }

func (o *object) key(k string) {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *object) str(k, v string) {
	o.key(k)
	o.b = appendStr(o.b, v)
}

func (o *object) strOmit(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *object) strs(k string, v []string) {
	if len(v) > 0 {
		o.key(k)
		o.b = appendStrs(o.b, v)
	}
}

func (o *object) int(k string, v int) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
}

func (o *object) close() []byte { return append(o.b, '}') }

func appendStr(b []byte, s string) []byte { return jsontext.AppendString(b, s, false) }

func appendStrs(b []byte, v []string) []byte {
	b = append(b, '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

// appendMarshal writes v as encoding/json does, without HTML escaping (the
// price objects, until they are on a hot path).
func appendMarshal(b []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // unreachable: plain structs of numbers and strings
		return append(b, "null"...)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// AppendJSON appends the card object with the selected fields.
func (c *Card) AppendJSON(b []byte, sel Selection) []byte {
	o := openObject(b)
	has := func(i int) bool { return sel&(1<<i) != 0 }
	for i, name := range CardFields {
		if !has(i) {
			continue
		}
		switch name {
		case "id":
			o.str(name, c.ID)
		case "name":
			o.str(name, c.Name)
		case "supertype":
			o.str(name, c.Supertype)
		case "subtypes":
			o.strs(name, c.Subtypes)
		case "level":
			o.strOmit(name, c.Level)
		case "hp":
			o.strOmit(name, c.HP)
		case "types":
			o.strs(name, c.Types)
		case "evolvesFrom":
			o.strOmit(name, c.EvolvesFrom)
		case "evolvesTo":
			o.strs(name, c.EvolvesTo)
		case "rules":
			o.strs(name, c.Rules)
		case "ancientTrait":
			if t := c.AncientTrait; t != nil {
				o.key(name)
				t := openObject(o.b)
				t.str("name", c.AncientTrait.Name)
				t.str("text", c.AncientTrait.Text)
				o.b = t.close()
			}
		case "abilities":
			if len(c.Abilities) > 0 {
				o.key(name)
				o.b = append(o.b, '[')
				for j, a := range c.Abilities {
					if j > 0 {
						o.b = append(o.b, ',')
					}
					x := openObject(o.b)
					x.str("name", a.Name)
					x.str("text", a.Text)
					x.str("type", a.Type)
					o.b = x.close()
				}
				o.b = append(o.b, ']')
			}
		case "attacks":
			if len(c.Attacks) > 0 {
				o.key(name)
				o.b = append(o.b, '[')
				for j, a := range c.Attacks {
					if j > 0 {
						o.b = append(o.b, ',')
					}
					x := openObject(o.b)
					x.str("name", a.Name)
					x.key("cost")
					x.b = appendStrs(x.b, a.Cost)
					x.int("convertedEnergyCost", a.ConvertedEnergyCost)
					x.str("damage", a.Damage)
					if a.Text != nil {
						x.str("text", *a.Text)
					}
					o.b = x.close()
				}
				o.b = append(o.b, ']')
			}
		case "weaknesses", "resistances":
			mods := c.Weaknesses
			if name == "resistances" {
				mods = c.Resistances
			}
			if len(mods) > 0 {
				o.key(name)
				o.b = append(o.b, '[')
				for j, m := range mods {
					if j > 0 {
						o.b = append(o.b, ',')
					}
					x := openObject(o.b)
					x.str("type", m.Type)
					x.str("value", m.Value)
					o.b = x.close()
				}
				o.b = append(o.b, ']')
			}
		case "retreatCost":
			o.strs(name, c.RetreatCost)
		case "convertedRetreatCost":
			if c.ConvertedRetreatCost != nil {
				o.int(name, *c.ConvertedRetreatCost)
			}
		case "set":
			o.key(name)
			if c.Set == nil {
				o.b = append(o.b, "null"...)
			} else {
				o.b = c.Set.AppendJSON(o.b, All)
			}
		case "number":
			o.str(name, c.Number)
		case "artist":
			o.strOmit(name, c.Artist)
		case "rarity":
			o.strOmit(name, c.Rarity)
		case "flavorText":
			o.strOmit(name, c.FlavorText)
		case "nationalPokedexNumbers":
			if len(c.NationalPokedexNumbers) > 0 {
				o.key(name)
				o.b = append(o.b, '[')
				for j, n := range c.NationalPokedexNumbers {
					if j > 0 {
						o.b = append(o.b, ',')
					}
					o.b = strconv.AppendInt(o.b, int64(n), 10)
				}
				o.b = append(o.b, ']')
			}
		case "legalities":
			o.key(name)
			o.b = c.Legalities.appendJSON(o.b)
		case "regulationMark":
			o.strOmit(name, c.RegulationMark)
		case "images":
			o.key(name)
			x := openObject(o.b)
			x.str("small", c.Images.Small)
			x.str("large", c.Images.Large)
			o.b = x.close()
		case "tcgplayer":
			if c.TCGPlayer != nil {
				o.key(name)
				o.b = appendMarshal(o.b, c.TCGPlayer)
			}
		case "cardmarket":
			if c.Cardmarket != nil {
				o.key(name)
				o.b = appendMarshal(o.b, c.Cardmarket)
			}
		case "cardedge":
			if c.Cardedge != nil {
				o.key(name)
				x := openObject(o.b)
				x.str("id", c.Cardedge.ID)
				x.str("detail", c.Cardedge.Detail)
				x.strOmit("priceSource", c.Cardedge.PriceSource)
				o.b = x.close()
			}
		}
	}
	return o.close()
}

func (l Legalities) appendJSON(b []byte) []byte {
	o := openObject(b)
	o.strOmit("unlimited", l.Unlimited)
	o.strOmit("standard", l.Standard)
	o.strOmit("expanded", l.Expanded)
	return o.close()
}

// AppendJSON appends the set object with the selected fields.
func (s *Set) AppendJSON(b []byte, sel Selection) []byte {
	o := openObject(b)
	for i, name := range SetFields {
		if sel&(1<<i) == 0 {
			continue
		}
		switch name {
		case "id":
			o.str(name, s.ID)
		case "name":
			o.str(name, s.Name)
		case "series":
			o.str(name, s.Series)
		case "printedTotal":
			o.int(name, s.PrintedTotal)
		case "total":
			o.int(name, s.Total)
		case "legalities":
			o.key(name)
			o.b = s.Legalities.appendJSON(o.b)
		case "ptcgoCode":
			o.strOmit(name, s.PTCGOCode)
		case "releaseDate":
			o.str(name, s.ReleaseDate)
		case "updatedAt":
			o.str(name, s.UpdatedAt)
		case "images":
			o.key(name)
			x := openObject(o.b)
			x.str("symbol", s.Images.Symbol)
			x.str("logo", s.Images.Logo)
			o.b = x.close()
		}
	}
	return o.close()
}

// Paging is a list request's page (from 1) and page size.
type Paging struct{ Page, PageSize int }

// Page size limits of lists.
const (
	DefaultPageSize = 250
	MaxPageSize     = 250
)

// ParsePaging parses page and pageSize ("" for their defaults, 1 and
// DefaultPageSize). A pageSize above MaxPageSize is lowered to it, as
// pokemontcg.io does; the envelope's pageSize says so. A value that is not
// a whole number from 1 is an error naming the parameter.
func ParsePaging(page, pageSize string) (Paging, error) {
	p := Paging{Page: 1, PageSize: DefaultPageSize}
	for _, x := range []struct {
		name, v string
		dst     *int
	}{{"page", page, &p.Page}, {"pageSize", pageSize, &p.PageSize}} {
		if x.v == "" {
			continue
		}
		n, err := strconv.Atoi(x.v)
		if err != nil || n < 1 {
			return Paging{}, fmt.Errorf("%s must be a whole number from 1, not %q", x.name, x.v)
		}
		*x.dst = n
	}
	p.PageSize = min(p.PageSize, MaxPageSize)
	return p, nil
}

// Window returns the first index and the end of page p among n items.
func (p Paging) Window(n int) (from, to int) {
	from = min(n, (p.Page-1)*p.PageSize)
	if p.Page-1 > n/max(p.PageSize, 1) { // beyond the last page (and no overflow)
		from = n
	}
	return from, min(n, from+p.PageSize)
}

// AppendListStart starts a list envelope: {"data":[ . Write the items
// separated by commas, then AppendListEnd.
func AppendListStart(b []byte) []byte { return append(b, `{"data":[`...) }

// AppendListEnd ends a list envelope: the page, page size, the items of
// the page (count) and the items of every page (totalCount).
func AppendListEnd(b []byte, p Paging, count, totalCount int) []byte {
	b = append(b, `],"page":`...)
	b = strconv.AppendInt(b, int64(p.Page), 10)
	b = append(b, `,"pageSize":`...)
	b = strconv.AppendInt(b, int64(p.PageSize), 10)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(count), 10)
	b = append(b, `,"totalCount":`...)
	b = strconv.AppendInt(b, int64(totalCount), 10)
	return append(b, '}')
}

// AppendStrings writes a list of strings as /v2/types and the others
// answer: {"data":[...]}.
func AppendStrings(b []byte, v []string) []byte {
	b = append(b, `{"data":`...)
	b = appendStrs(b, v)
	return append(b, '}')
}

// AppendError writes pokemontcg.io's error body: {"error":{"message","code"}}
// with the HTTP status as the code.
func AppendError(b []byte, status int, message string) []byte {
	b = append(b, `{"error":{"message":`...)
	b = appendStr(b, message)
	b = append(b, `,"code":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	return append(b, "}}"...)
}
