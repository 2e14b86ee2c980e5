package jsontext

// Nullable fields of the payloads that encoding/json writes by reflection: a
// nil slice encodes as null where the contract wants [], and an empty string
// as "" where it wants null.

// NonNil returns s, or an empty slice when s is nil (encodes as []).
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// StrOrNil is nil for "" (encodes as null) and &s otherwise.
func StrOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
