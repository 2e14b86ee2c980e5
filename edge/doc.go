// Package edge is cardedge's front door: a fasthttp server that answers the
// REST interface under /api/v3 (and /keys/usage, /health, /metrics) from the
// live snapshot, and mounts the MCP server under /api/v3/mcp/.
//
// Every request goes through one pipeline (server.go): route -> validate
// (every parameter of the route, all errors at once, 422) -> authenticate
// (edge/access) -> tier, quota and rate (429 with Retry-After) -> clamp (row
// cap, history window) -> response cache (edge/cache, keyed by snapshot
// generation, route, normalized parameters, window and row cap) -> the data
// plane (the handlers, reading snapshots.Reader and index). A keyed GET seen
// before, byte for byte, takes a shortcut (memo.go): the front-door memo
// hands back its route, caller and cached response, valid for the snapshot
// and key table it was made under, and the request is only charged and
// answered.
//
// The live snapshot is swapped when CURRENT changes (live.go): the new one is
// verified and opened first; a snapshot that fails is refused and the old one
// keeps serving; the old one is closed when its last request is done. Before
// a snapshot serves, the edge builds its views of it: the card list's orders
// and every card's object encoded once (cardjson.go), which card detail and
// the card list copy.
//
// It imports snapshots, snapshots/bolt, snapshots/gold, index, edge/access,
// edge/cache, fasthttp and the standard library; only edge/cmd imports it.
//
// # Caveats
//
// fasthttp's RequestCtx bytes die with the handler: parameters are parsed
// into plain values (params.go) and bodies copied before use. Cached entries
// are shared between requests and never modified. The request struct of a
// routed request is pooled (serveRoute): a payload may live in it (card
// detail's does) because it is encoded before serveRoute returns; a raw
// handler, which may write after that (the chat streams), keeps its own.
package edge
