package index

import (
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// AppendJSONMembers appends the members of s's JSON object, without the
// braces, exactly as encoding/json writes s with SetEscapeHTML(false):
// kind, id, label, detail and set_id unless empty, language, score, match,
// and exact when set. A caller that embeds Suggestion in a larger object
// writes '{', these members, its own and '}', without reflection.
//
// The display members (kind through set_id) of a suggestion answered by
// Lookup were encoded once when the index was opened: they are the
// entity's, whatever the caller did to the copy's fields since. A
// Suggestion made elsewhere is encoded from its fields.
func (s *Suggestion) AppendJSONMembers(dst []byte) []byte {
	if s.json != "" {
		dst = append(dst, s.json...)
	} else {
		dst = appendDisplayJSON(dst, s.Kind, s.ID, s.Label, s.Detail, s.Language, s.SetID)
	}
	dst = append(dst, `,"score":`...)
	dst = jsontext.AppendFloat(dst, s.Score)
	dst = append(dst, `,"match":`...)
	dst = jsontext.AppendString(dst, s.Match, false)
	if s.Exact {
		dst = append(dst, `,"exact":true`...)
	}
	return dst
}

// buildJSON encodes the display members of every entity once (at Open),
// so that a lookup answer is written by copying them, and gathers the
// display records (disp).
func (t *table) buildJSON() {
	n := len(t.kind)
	b := make([]byte, 0, len(t.strs)+n*64)
	off := make([]uint32, 0, n+1)
	for e := range n {
		off = append(off, uint32(len(b)))
		b = appendDisplayJSON(b, kindName(t.kind[e]), t.str(uint32(e), sID), t.str(uint32(e), sLabel), t.str(uint32(e), sDetail),
			scopeNames[t.lang[e]], t.str(uint32(e), sSetID))
	}
	t.jsonOff = append(off, uint32(len(b)))
	t.json = string(b)
	t.disp = make([]entDisp, n)
	for e := range t.disp {
		d := &t.disp[e]
		copy(d.str[:], t.strOff[e*nStrs:e*nStrs+nStrs+1])
		d.json = [2]uint32{t.jsonOff[e], t.jsonOff[e+1]}
		d.kind, d.lang = t.kind[e], t.lang[e]
		if e < t.nCards {
			d.price = t.price[e]
		}
	}
}

// entDisp is what a suggestion shows of one entity: its string offsets
// (id, label, detail, set id, end) in strs, its display members in json,
// its price, kind and language.
type entDisp struct {
	str        [nStrs + 1]uint32
	json       [2]uint32
	price      int64
	kind, lang uint8
}

// appendDisplayJSON appends the members kind through set_id of a
// Suggestion as encoding/json writes them.
func appendDisplayJSON(dst []byte, kind, id, label, detail, language, setID string) []byte {
	dst = append(dst, `"kind":`...)
	dst = jsontext.AppendString(dst, kind, false)
	dst = append(dst, `,"id":`...)
	dst = jsontext.AppendString(dst, id, false)
	dst = append(dst, `,"label":`...)
	dst = jsontext.AppendString(dst, label, false)
	if detail != "" {
		dst = append(dst, `,"detail":`...)
		dst = jsontext.AppendString(dst, detail, false)
	}
	dst = append(dst, `,"language":`...)
	dst = jsontext.AppendString(dst, language, false)
	if setID != "" {
		dst = append(dst, `,"set_id":`...)
		dst = jsontext.AppendString(dst, setID, false)
	}
	return dst
}
