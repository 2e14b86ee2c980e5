package index

import (
	"math"
	"strconv"
	"unicode/utf8"
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
	dst = appendJSONFloat(dst, s.Score)
	dst = append(dst, `,"match":`...)
	dst = appendJSONString(dst, s.Match)
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
	dst = appendJSONString(dst, kind)
	dst = append(dst, `,"id":`...)
	dst = appendJSONString(dst, id)
	dst = append(dst, `,"label":`...)
	dst = appendJSONString(dst, label)
	if detail != "" {
		dst = append(dst, `,"detail":`...)
		dst = appendJSONString(dst, detail)
	}
	dst = append(dst, `,"language":`...)
	dst = appendJSONString(dst, language)
	if setID != "" {
		dst = append(dst, `,"set_id":`...)
		dst = appendJSONString(dst, setID)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does with SetEscapeHTML(false):
// the quote, the backslash and control characters escaped, invalid UTF-8
// replaced by U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendJSONFloat writes a finite float64 as encoding/json does.
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9, as encoding/json
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
