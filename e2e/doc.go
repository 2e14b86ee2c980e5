// Package e2e holds cardedge's end-to-end tests (package e2e_test; this
// package itself has no code): the suites that run the whole program as an
// operator runs it, the cardedge binary (go build ./cmd/cardedge, once per
// run) serving a tiny snapshot built by the real builder, and talk to it as
// its users do:
//
//   - the feature suites of the REST API and the agent chat (rest, search,
//     sql, prices, printings, imports, bulk, collection, chat, chat-user
//     tokens, alerts: rules evaluated at each swap and delivered to a
//     receiver on the official Standard Webhooks library, an account's
//     export and deletion, the example queries of the pages and docs),
//     every JSON answer checked against the OpenAPI document the server
//     serves (e2etest.API), and the checks that REST and MCP agree;
//   - the browser suites (dashboard, market pages, every page for a Free
//     and a Pro account at two sizes, web chat, API reference),
//     headless Chromium driven through chromedp by one helper
//     (browser_test.go), screenshots into var/screenshots/<suite>/;
//   - the npm suites: the official MCP TypeScript SDK, the MCP Inspector,
//     the TypeScript and Go clients generated from the document, and
//     pokemontcg.io's JavaScript and TypeScript SDKs against /v2 (v2_test.go,
//     their tool sets under testdata/);
//   - connected apps (oauth_browser_test.go): the SDK's OAuth client
//     against the binary, the person's sign-in, consent and Revoke clicked
//     in Chromium (the server runs with the test-only flags that let it
//     fetch a Client ID Metadata Document from the test's https server on
//     loopback);
//   - fleet pieces: snapshots pulled from an S3-compatible server
//     (versitygw), quotas shared through a real redis-server, Redis killed
//     and the binary killed under load;
//   - the tests of the default snapshot (*_default_test.go), run by make
//     test-default only.
//
// What each package does is tested beside it (edge, mcp, web, access, ...);
// cmd/cardedge keeps the command's wiring (flags, Serve, swap, faults, one
// smoke test per front door); deploy holds the fleet test (make
// fleet-test). The helpers these suites share with cmd/cardedge's are in
// e2e/e2etest, mcp/mcptest and web/webtest.
//
// # Running
//
//	go test ./e2e                          # all but the default snapshot's (make test runs it)
//	go test ./e2e -run 'Browser' -v        # the browser suites; screenshots in var/screenshots/
//	make test-default                      # the tests of the default snapshot (builds it once)
//
// Chromium (Debian: chromium), Node.js 20.19+ with npm and redis-server are
// found on PATH (.ci/run installs them; tools/npm/install installs the npm
// tools into ~/.cache/cardedge/npm once), versitygw in ~/.cache/cardedge/bin
// (make fleet-test installs it) or on PATH; a suite whose program is
// missing skips and says why. The suites take about two to four
// minutes on 2 cores; -short skips the binary-killing fault test.
//
// # Caveats
//
// The binary is built without the race detector and runs in a child
// process: its coverage and data races are not this package's to see (the
// packages' own tests run under -race in make test). Each test binary
// shares one server (TestMain), so a suite that changes what it serves, or
// needs other flags, starts a process of its own; tests dial from
// loopback addresses of their own (127.0.x.y) so that per-address limits
// do not couple them.
package e2e
