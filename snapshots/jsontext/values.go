package jsontext

import (
	"math"
	"strconv"
)

// The values of hand-encoded payloads, as encoding/json (with
// SetEscapeHTML(false)) writes the Go values they stand for.

// AppendNumber appends f as encoding/json writes a float64. Dollars and
// rounded percentages (at most two decimals, under 1e13) take a fast path;
// NaN and infinities are null (encoding/json refuses them).
func AppendNumber(b []byte, f float64) []byte {
	// A value that is exactly the float nearest to c/100 for an integer c
	// of at most 15 digits prints as c/100 with trailing zeros dropped (the
	// shortest decimal that reads back as f: 15 digits always round-trip).
	if c := math.Round(f * 100); c/100 == f && math.Abs(c) < 1e15 && f != 0 {
		return AppendCents(b, int64(c))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return AppendFloat(b, f)
}

// AppendNumberPtr appends *f (AppendNumber), or null for nil.
func AppendNumberPtr(b []byte, f *float64) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	return AppendNumber(b, *f)
}

// AppendCents appends c/100 as a decimal without trailing zeros.
func AppendCents(b []byte, c int64) []byte {
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	if frac := c % 100; frac != 0 {
		b = append(b, '.', byte('0'+frac/10))
		if frac%10 != 0 {
			b = append(b, byte('0'+frac%10))
		}
	}
	return b
}

// AppendStr appends s quoted without HTML escaping (AppendString).
func AppendStr(b []byte, s string) []byte { return AppendString(b, s, false) }

// AppendStrPtr appends *s quoted, or null for nil.
func AppendStrPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendStr(b, *s)
}

// AppendStrOrNull appends s quoted, or null for "" (StrOrNil).
func AppendStrOrNull(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return AppendStr(b, s)
}

// AppendStrs appends a list of strings; nil is null.
func AppendStrs(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendStr(b, s)
	}
	return append(b, ']')
}

// AppendIntPtr appends *n, or null for nil.
func AppendIntPtr(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

// AppendArray appends items as encoding/json writes a slice: null when
// items is nil, else each item written by appendItem between brackets.
func AppendArray[T any](b []byte, items []T, appendItem func([]byte, *T) []byte) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, &items[i])
	}
	return append(b, ']')
}
