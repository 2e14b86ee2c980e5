// Package mcptest is a client of cardedge's MCP endpoint for tests: JSON-RPC
// 2.0 over HTTP as a client sends it (Post), and an initialized session of
// one key or chat-user token (Open) whose tool calls are decoded and checked
// (Session.Call: a success carries structuredContent, the same JSON as its
// first text block, valid against the tool's outputSchema as tools/list
// declares it; an error carries none). mcp's own tests drive an in-process
// server with it, the end-to-end tests (package e2e, cmd/cardedge) the real
// program.
//
// It is named like httptest: a helper of tests, imported by no program. It
// imports the standard library and santhosh-tekuri/jsonschema (the
// outputSchemas compiled under JSON Schema 2020-12), no package of the
// module.
//
// # Caveats
//
// The compiled outputSchemas are kept per tool name for the life of the test
// binary (the first session that calls a tool lists the tools): every server
// a test binary talks to must declare the same schemas, which is true of one
// build of cardedge.
package mcptest
