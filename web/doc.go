// Package web is the dashboard: server-rendered pages under /dashboard where
// people sign up, sign in, manage their API keys (create, roll, revoke),
// read their usage, talk with the market assistant (the web chat, chat.go:
// the page's script calls the agent chat with a chat-user token it gets
// from POST /dashboard/chat/token) and look after their account; and the
// market pages of a signed-in account: card search with suggestions, card
// pages (printings, market summary, price history, grade ladder, sales,
// listings), set pages, movers, and the account's collection with file
// imports, its recorded value and set completion (history.go); its alerts
// and want list (alerts.go), webhooks (webhooks.go), and its data export
// and deletion (accountdata.go). It is an
// http.Handler (net/http, html/template, assets embedded with embed) that
// package edge mounts into its fasthttp server, as it mounts MCP.
//
// It imports the standard library, apperr, account (the domain: accounts,
// sessions, keys), oauth (consent and connected apps), access (keys, tiers, history windows and their activity),
// chattoken (the type of a minted token), snapshots (domain types, error
// codes), index and index/syntax (search and lookup), pricing, catalog,
// estimate and resolve (what REST's market routes compute: the card page,
// movers and set pages call the functions the routes call), collection (the
// accounts' collections, their recorded history and set completion), alert
// and webhook (the Alerts and Webhooks pages, alerts.go and webhooks.go). It knows nothing of fasthttp or of the state file;
// the live snapshot and the collections come from the edge
// (Options.Snapshots, Options.Collections).
//
// # Security
//
//   - Every response carries a strict Content-Security-Policy
//     (default-src 'self'; frame-ancestors 'none'; no inline script or
//     style), nosniff, DENY framing and no-store caching of pages.
//   - Sessions are server-side (package account); the cookie is HttpOnly,
//     SameSite=Lax, and Secure (a __Host- cookie) when the server is reached
//     over TLS or Options.PublicURL is https. Sign-in always issues a new
//     session id.
//   - Every state-changing form carries a CSRF token (the session's, or
//     before sign-in a random one in a SameSite=Strict cookie) and is
//     refused (403) when its Origin is another site's or Sec-Fetch-Site says
//     cross-site or same-site.
//   - Key operations take the account from the session: a key id of another
//     account is a 404, like one that does not exist.
//   - Each client address gets a token bucket of requests (Options.RatePerSec,
//     Burst); sign-ins are throttled by package account. The client address
//     is the connection's: behind a reverse proxy every user shares the
//     proxy's.
//   - A new key's secret travels in the session's sealed flash to the page
//     after the redirect, which shows it once: never in a URL.
//
// Page conventions are in page.go; bar charts in chart.go, line charts in
// linechart.go; how market pages read the snapshot in market.go.
package web
