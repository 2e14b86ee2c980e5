// Package webtest is a browser-like client of the dashboard (package web)
// for tests: a cookie jar, no automatic redirects, an Origin header on
// POSTs like a browser's, and the forms a person fills in (sign up, sign
// in, create a key, upload a file, obtain a chat-user token), each reading
// the page's CSRF token first. web's own tests serve the handler in-process
// (Handler: no listener, each client its own client address); the
// end-to-end tests (package e2e, cmd/cardedge) reach the real program over
// loopback TCP (DialFrom: a source address of its own per client, so the
// dashboard's per-address limits of one test do not touch another's).
//
// It is named like httptest: a helper of tests, imported by no program. It
// imports the standard library and testing only.
package webtest
