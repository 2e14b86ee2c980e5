// Package jsontext writes JSON strings and numbers byte for byte as
// encoding/json does, for the payloads that encode themselves (card detail,
// lookup suggestions, the gold tables' JSON columns) instead of going
// through reflection.
//
// It also holds the nullness helpers of reflected payloads (NonNil, StrOrNil:
// null.go), so that the JSON shapes of every payload come from one place.
// Marshal is encoding/json itself as the payloads use it (no HTML
// escaping, no trailing newline): the appenders' tests' reference.
//
// It imports only the standard library.
//
// # Caveats
//
// The appenders must stay byte for byte what encoding/json writes: their
// fuzz tests compare them with it.
package jsontext
