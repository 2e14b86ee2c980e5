// Package agent is cardedge's market assistant: it answers questions about
// cards and the market by calling tools over one snapshot, and says its
// answer token by token. The edge streams a Run as the server-sent events of
// POST /api/v3/agent/chat.
//
//   - Tools (tools.go): search, quote, get_prices, get_sales and trending,
//     the data of the REST routes and MCP tools of the same names, within
//     the caller's history window.
//   - The embedded agent (embedded.go, no model): reads the question
//     (intent: quote, sales, history or movers; the card words; a grade as
//     snapshots.CutGrade finds it), calls the tools and writes the answer.
//   - A Model (an interface; agent/openai implements it for
//     OpenAI-compatible endpoints): the model is told the tools and answers,
//     running tool calls for at most MaxRounds turns.
//
// It imports the standard library, apperr, estimate, snapshots, index
// (name folding), live, resolve, pricing and access (the tiers' history windows:
// ClampSince, WindowStart); never a transport (no fasthttp, no net/http).
//
// # Caveats
//
// A Run holds no snapshot reference: the caller keeps the snapshot its Tools
// read open for the whole chat (the edge acquires its own, since the stream
// outlives the request's handler). A tool's failure is its result, shown to
// the model or the user, not a failure of the chat.
package agent
