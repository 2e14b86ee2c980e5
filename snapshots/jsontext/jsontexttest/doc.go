// Package jsontexttest has the JSON helper tests share: a value as
// encoding/json's Marshal writes it, failing the test on an error, for
// tests that compare payloads and documents with what encoding/json writes.
//
// It imports the standard library only.
package jsontexttest
