// Package mcp is cardedge's MCP (Model Context Protocol) server: tools,
// resources and prompts behind an http.Handler, built on
// github.com/mark3labs/mcp-go (v1.2.1), that the edge mounts at /api/v3/mcp/
// behind its authenticating HTTP layer. Callers alias it cardmcp. Its tools
// and resources read the same snapshot as REST and charge the same access
// layer; card resolution is package resolve's, quotes, sale rows, trending
// and the history reader are package pricing's, which REST shares.
//
// It imports the standard library, mcp-go, apperr, live (the snapshot a
// call reads: Options.Snapshots pins a *live.View per call), snapshots,
// index/syntax, state, access, resolve, collection, alert (the alert tools,
// tool_alerts.go, through the interface Alerts), estimate,
// jsonschema, snapshots/jsontext and pricing; never edge (cmd/cardedge's
// openServer wires it). Errors it answers over HTTP use apperr's codes and
// apperr.HTTPStatus, the table REST answers with.
//
// # Transport
//
// Streamable HTTP, JSON-RPC 2.0 over POST, following the MCP 2025-11-25
// revision: initialize returns serverInfo {name "cardedge", version
// "1.1.0", title, description, icons (icon.go: PNG and SVG data URIs),
// websiteUrl (Options.WebsiteURL)}, the capabilities tools, resources and
// prompts (no subscriptions, no list_changed), and an Mcp-Session-Id header.
// initialize negotiates the client's version when mcp-go knows it
// (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25), else 2025-11-25.
// Notifications are answered 202; every later request carries Mcp-Session-Id (400 without it) and
// MCP-Protocol-Version (400 for an unsupported one). Sessions are stateful
// and bound to the key that initialized them: an unknown, ended or other
// key's session id is 404; DELETE ends a session (404 when it is not live).
// Sessions idle for Options.SessionIdleTTL (12 h) end; a key keeps at most
// Options.MaxSessionsPerKey (64) live sessions, initializing one more ends its
// least recently used. GET is 405: the server sends no server-to-client
// stream, and every POST is answered with one application/json body. Clients
// of the sessionless 2026-07-28 revision are served too (mcp-go), without the
// per-session features (active cohort, result handles).
//
// The edge in front checks Host and Origin (DNS rebinding: 403) and the
// Bearer key (401; there is no anonymous access) and passes the caller in the
// request context (access.WithCaller); this handler refuses a request
// without one (401).
//
// # Costs
//
// Every tools/call costs at least 1 unit of the key's daily quota:
//
//   - The HTTP layer charges 1 unit and one rate token per tools/call
//     before it runs. When the key's quota or rate is spent the answer is
//     HTTP 429 with Retry-After (and the RateLimit headers), error.v1 body.
//     A batch_grade_ladder call with dry_run true is not charged at all.
//   - A batch tool then charges the rest of its cost: the number of unique
//     resolved card ids (search with ids, quote, get_prices, get_sales,
//     get_listings, batch_grade_ladder, compare_set_finish), so the call costs
//     max(1, unique resolved ids). References that are ambiguous or not found
//     are reported and not charged. When the remaining units do not fit the
//     quota the call is not run and answers a tool error (HTTP 200, isError)
//     saying what it needed; its first unit stays spent. That second charge
//     takes a second rate token.
//   - search with q, pin_cohort, get_cohort and rank_set_sales cost 1.
//   - resources/read costs 1 unit, charged by the HTTP layer like a
//     tools/call (429 over quota), also when the id names nothing; a read of
//     cardedge://me/collection by a caller without the chat tools, a URI
//     without an id and a URI of no resource are free (refused). prompts/get
//     of what_moved_this_week costs 1 (it embeds the movers resource).
//   - Protocol messages (initialize, notifications, tools/list, ping, DELETE,
//     resources/list, resources/templates/list, prompts/list, the other
//     prompts/get) are free.
//
// A tool failure (bad argument, unknown id, over the cap, quota) is HTTP 200
// with result.isError true and an error.v1 JSON text whose message says what
// to change; it has already cost its HTTP unit. At most 1,000 ids
// (access.MaxJSONIDs) per call. Every successful result is one text content
// block with JSON {contract "mcp.<tool>.v1", as_of, snapshot_id, cost, data}
// and the same JSON as structuredContent, which the tool's outputSchema
// describes: read off the Go types of its data by jsonschema (output.go).
// Each tool carries annotations (title, read-only or not, idempotent, not
// destructive, closed world).
//
// History rows (get_sales, get_prices, rank_set_sales) are clamped to the
// key's tier history window with access.ClampSince, counted back from the
// snapshot's as_of, as REST clamps since; the result says when. Quotes,
// ladders and listings are the current market and are not clamped (as REST's
// card market summary).
//
// # Tools
//
// search, quote, get_prices, get_sales, get_listings, batch_grade_ladder,
// compare_set_finish, pin_cohort, get_cohort, rank_set_sales: see tools.go
// for every argument (each is described in the tool's input schema, which is
// closed: unknown arguments are refused, and every argument is checked against
// it with a message that names the argument). There is no SQL tool
// (execute_sql, describe_schema and query_gold_sql do not exist).
//
// The chat tools (tool_chat.go, tool_collection.go): show_cards, price_card,
// list_collection, add_to_collection and remove_from_collection are listed
// and callable only when the caller is a chat-user token (access.Caller.Chat:
// the dashboard's web chat) of an account with Apps access (Pro, Elite:
// access.AppsAccess); mcp-go's tool filter (chatToolFilter) hides them from
// everyone else in tools/list and refuses them in tools/call, and the HTTP
// layer does not charge such a refused call. The collection tools act on the
// token's account's collection (package collection, Options.Collections).
// A token's calls are charged to the account's chat quota (its KeyID is the
// account id), and its sessions and cohorts belong to the account.
//
// # Resources and prompts
//
// resources.go: the templates cardedge://cards/{+id} (show_cards' card: each
// printing's raw near-mint price), cardedge://sets/{+id} (REST's set fields,
// market, rarities, top cards) and cardedge://movers/{+game} (the 7-day
// movers' ranking's (pricing.MoversMetric) gainers and losers: pricing.Trending and Ranked, as
// GET /api/v3/trending), and the resource cardedge://me/collection
// (list_collection's view; callers with the chat tools only, with
// Options.Collections). Each read is one application/json text: the
// envelope of a tool result with contract "mcp.resource.<name>.v1". The
// templates use reserved expansion ({+id}) so that ids with ':' match
// written as they are (and percent-encoded).
//
// prompts.go: compare_printings (argument card), what_moved_this_week
// (argument game; its second message embeds the movers resource) and
// value_my_collection (chat tools' callers only: mcp-go's prompt filter);
// each a user message naming the tools to call.
//
// A resource that does not exist is the JSON-RPC error -32002 (resource not
// found; -32602 for 2026-07-28 clients, SEP-2164) and a prompt's bad
// argument -32602, each with apperr's code in data. mcp-go answers every
// handler error with -32603: the handler records the error it means
// (call.fault) and the HTTP layer, which buffers resources/read and
// prompts/get answers, puts it in (answerFault).
//
// # Cohorts and result handles
//
// A cohort is a named set of at most 1,000 card ids pinned by pin_cohort or
// compare_set_finish. It belongs to the key that pinned it, is stored in the
// state store's bucket state.Cohorts (Options.State, so it survives a
// restart and is shared by the processes using that store), and expires after
// Options.CohortTTL (7 days); a key keeps at most Options.MaxCohortsPerKey
// (256). Its handle is derived from the key, game, name and ids, so pinning
// the same cohort again renews it. The last cohort pinned in a session is
// the session's active cohort (get_cohort without a handle). Tools that
// return a list of cards (search, quote, batch_grade_ladder, rank_set_sales)
// also return a result_handle that pin_cohort accepts; result handles live
// in memory in their session (the newest 32).
//
// # Caveats
//
// Each tool call holds one snapshot reference for its duration. Writing a
// cohort is one state store transaction (with state/bolt, the state file
// opened for it), so pin_cohort and compare_set_finish take a few
// milliseconds more.
package mcp
