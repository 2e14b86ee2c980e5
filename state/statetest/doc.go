// Package statetest helps tests that use the state store: MustOpen opens a
// state file that is checked when the test ends, as bbolt's own test wrapper
// does, and TestStore is the conformance suite every state.Store passes.
//
// It imports the standard library, state and state/bolt.
package statetest
