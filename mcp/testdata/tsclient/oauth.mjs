// Connects to the cardedge MCP server as an MCP host does, with the official
// TypeScript SDK's OAuth support (an OAuthClientProvider given to the
// Streamable HTTP transport; finishAuth with the code): used by
// e2e/oauth_browser_test.go, which plays the person in headless Chromium.
//
//   node oauth.mjs '{"url": <mcp-url>, "port": <callback port>, "expect": "apps"|"public",
//                    "cimd": <client metadata document URL, or absent: dynamic registration>,
//                    "full": true (refresh, then wait for a revocation)}'
//
// It talks to the test in JSON lines: on stdout {"step": "authorize", "url"}
// (open this in the browser), {"step": "connected", ...} after the code
// exchange, tools/list and a get_prices call, then with "full"
// {"step": "refreshed"} and {"step": "revoke"}, after which it waits for a
// line "revoked" on stdin; last {"step": "done", ...}. It exits non-zero on
// the first failed check (the message says which).
//
// The flow: the first request gets a 401 whose WWW-Authenticate names the
// resource metadata; the SDK reads it and the authorization server's
// metadata, registers (or uses the document's URL as its client id: the
// server fetches it), and asks the provider to send the person to the
// authorization URL. The browser comes back to this script's loopback
// callback (http://127.0.0.1:<port>/callback) with the code, the state and
// the issuer (RFC 9207), which are checked; finishAuth exchanges the code
// (PKCE) and a new transport connects with the token. The refresh: the
// access token is refused (it is altered, as when it has expired), the SDK
// refreshes on the 401 and retries. After the revocation, the old access
// token is a 401 (within 2 s), and the SDK's next call fails: its refresh is
// refused (invalid_grant), so it asks for a new sign-in.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const cfg = JSON.parse(process.argv[2] ?? "{}");
if (!cfg.url || !cfg.port || !["apps", "public"].includes(cfg.expect)) {
  console.error(`usage: node oauth.mjs '{"url": ..., "port": ..., "expect": "apps"|"public", "cimd": ..., "full": true}'`);
  process.exit(2);
}

function check(cond, msg) {
  if (!cond) {
    console.error("CHECK FAILED: " + msg);
    process.exit(1);
  }
}
const emit = (o) => console.log(JSON.stringify(o));

const publicTools = ["batch_grade_ladder", "compare_set_finish", "get_cohort", "get_listings", "get_prices", "get_sales",
  "pin_cohort", "quote", "rank_set_sales", "search"];
const chatTools = ["add_to_collection", "list_collection", "price_card", "remove_from_collection", "show_cards",
  "list_alerts", "create_alert", "add_to_want_list", "delete_alert", "recent_alerts", "collection_history", "set_completion"];

// Every HTTP exchange the SDK makes, in order (no bodies: they hold secrets).
const exchanges = [];
async function loggedFetch(url, init) {
  const res = await fetch(url, init);
  const u = new URL(url);
  exchanges.push({ method: init?.method ?? "GET", path: u.pathname, status: res.status,
    www: res.headers.get("www-authenticate") ?? undefined });
  return res;
}

// The host's storage of what the SDK hands it, kept unchanged (the SDK
// stamps it with the issuer it came from).
class Provider {
  constructor(redirect, cimd) {
    this.redirect = redirect;
    if (cimd) this.clientMetadataUrl = cimd;
    this.expectedState = randomUUID();
    this.redirects = [];
    this.saved = [];
    this.onRedirect = undefined;
  }
  get redirectUrl() { return this.redirect; }
  get clientMetadata() {
    return { client_name: "cardedge e2e (MCP SDK)", redirect_uris: [this.redirect], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() { return this.expectedState; }
  clientInformation() { return this.client; }
  saveClientInformation(c) { this.client = c; }
  tokens() { return this.current; }
  saveTokens(t) { this.current = t; this.saved.push(t); }
  redirectToAuthorization(u) { this.redirects.push(u.href); this.onRedirect?.(u); }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  invalidateCredentials(scope) {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.current = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
  }
}

// The loopback callback: the browser lands here with the answer.
const redirect = `http://127.0.0.1:${cfg.port}/callback`;
let answered;
const answer = new Promise((resolve) => { answered = resolve; });
const server = http.createServer((req, res) => {
  const u = new URL(req.url, redirect);
  if (u.pathname !== "/callback") {
    res.writeHead(u.pathname === "/favicon.ico" ? 204 : 404).end();
    return;
  }
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connected</title></head>` +
    `<body><main><h1>cardedge e2e: back in the app</h1><p>You can close this tab.</p></main></body></html>`);
  answered(Object.fromEntries(u.searchParams));
});
await new Promise((resolve, reject) => server.listen(cfg.port, "127.0.0.1", resolve).on("error", reject));

const mcpURL = new URL(cfg.url);
const issuer = mcpURL.origin;
const provider = new Provider(redirect, cfg.cimd);
const newTransport = () => new StreamableHTTPClientTransport(mcpURL, { authProvider: provider, fetch: loggedFetch });
const newClient = () => new Client({ name: "cardedge-e2e-oauth", version: "1.0.0" });

// 1. Connect: a 401, discovery, registration, the authorization request.
let transport = newTransport();
let client = newClient();
provider.onRedirect = (u) => emit({ step: "authorize", url: u.href });
let refused;
try {
  await client.connect(transport);
} catch (err) {
  refused = err;
}
provider.onRedirect = undefined;
check(refused instanceof UnauthorizedError, "the first connection was not refused for authorization: " + refused);
check(provider.redirects.length === 1, "redirects: " + provider.redirects.length);
const authURL = new URL(provider.redirects[0]);
const q = authURL.searchParams;
check(authURL.origin + authURL.pathname === issuer + "/oauth/authorize", "authorization endpoint " + authURL.pathname);
check(q.get("response_type") === "code" && q.get("code_challenge_method") === "S256" && q.get("code_challenge")?.length === 43,
  "authorization request: " + q);
check(q.get("resource") === issuer + "/api/v3/mcp/", "resource " + q.get("resource"));
check(q.get("redirect_uri") === redirect && q.get("state") === provider.expectedState, "redirect_uri or state: " + q);
check(q.get("scope") === "market:read collection:write", "scope " + q.get("scope"));
if (cfg.cimd) {
  check(q.get("client_id") === cfg.cimd && !exchanges.some((x) => x.path === "/oauth/register"), "the document client registered: " + q.get("client_id"));
} else {
  check(q.get("client_id")?.startsWith("oc_") && provider.client?.client_secret === undefined, "registered client " + JSON.stringify(provider.client));
}
// Discovery from the 401: the challenge named the resource metadata.
const first = exchanges[0];
check(first.method === "POST" && first.path === "/api/v3/mcp/" && first.status === 401, "first exchange " + JSON.stringify(first));
check(first.www?.includes(`resource_metadata="${issuer}/.well-known/oauth-protected-resource/api/v3/mcp/"`), "WWW-Authenticate: " + first.www);
const paths = exchanges.map((x) => `${x.method} ${x.path} ${x.status}`);
for (const want of ["GET /.well-known/oauth-protected-resource/api/v3/mcp/ 200", "GET /.well-known/oauth-authorization-server 200"]) {
  check(paths.includes(want), `no ${want} in ${paths.join(", ")}`);
}
if (!cfg.cimd) check(paths.includes("POST /oauth/register 201"), "no registration: " + paths.join(", "));

// 2. The person signs in and allows (the test, in Chromium); the browser
// comes back with the code.
const back = await answer;
check(back.code?.startsWith("ceoc_") && back.state === provider.expectedState && back.iss === issuer && !back.error,
  "the redirect back: " + JSON.stringify({ ...back, code: back.code ? "(a code)" : undefined }));
await transport.finishAuth(back.code);
check(provider.current?.access_token && provider.current.refresh_token?.startsWith("ceor_") && provider.current.token_type.toLowerCase() === "bearer",
  "tokens: " + Object.keys(provider.current ?? {}));
const granted = provider.current.scope;
transport = newTransport();
client = newClient();
await client.connect(transport);

// 3. The tools follow the token's scopes and the account's tier.
const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const want = (cfg.expect === "apps" ? [...publicTools, ...chatTools] : publicTools).sort();
check(JSON.stringify(names) === JSON.stringify(want), `tools ${names.join(",")}, want ${want.join(",")} (scope ${granted})`);
// The collection resource reads likewise.
let collection;
try {
  collection = await client.readResource({ uri: "cardedge://me/collection" });
} catch (err) {
  collection = err;
}
if (cfg.expect === "apps") {
  check(collection.contents?.[0]?.mimeType === "application/json", "cardedge://me/collection: " + String(collection).slice(0, 300));
} else {
  check(collection instanceof Error && /collection scope|without Apps access/.test(collection.message), "cardedge://me/collection read: " +
    JSON.stringify(collection).slice(0, 300));
}

async function getPrices() {
  const res = await client.callTool({ name: "get_prices", arguments: { ids: ["en:base1-4"], limit: 3 } });
  check(!res.isError && res.structuredContent?.contract === "mcp.get_prices.v1", "get_prices: " + JSON.stringify(res).slice(0, 300));
  return res.structuredContent;
}
const prices = await getPrices();
// The token is bound to the MCP endpoint (RFC 8707): the REST API refuses it.
const rest = await fetch(new URL("/api/v3/sets?limit=1", issuer), { headers: { Authorization: `Bearer ${provider.current.access_token}` } });
await rest.body?.cancel();
check(rest.status === 401, "REST answered the app's access token with " + rest.status);
emit({ step: "connected", client_id: provider.client.client_id, scope: granted, tools: names, collection: String(collection.message ?? "read"),
  get_prices_cost: prices.cost, exchanges: exchanges.map((x) => `${x.method} ${x.path} ${x.status}`) });

if (cfg.full) {
  // 4. A refresh: the access token is refused (altered, as when it has
  // expired); the SDK refreshes on the 401 and retries the call.
  const before = provider.current;
  const sig = before.access_token.slice(-8);
  provider.current = { ...before, access_token: before.access_token.slice(0, -8) + (sig === "AAAAAAAA" ? "BBBBBBBB" : "AAAAAAAA") };
  const n = exchanges.length;
  await getPrices();
  const since = exchanges.slice(n).map((x) => `${x.method} ${x.path} ${x.status}`);
  check(since[0] === "POST /api/v3/mcp/ 401" && since.includes("POST /oauth/token 200") && since.at(-1) === "POST /api/v3/mcp/ 200",
    "the refresh: " + since.join(", "));
  const after = provider.current;
  check(after.access_token !== before.access_token && after.refresh_token !== before.refresh_token && after.refresh_token.startsWith("ceor_"),
    "the refresh did not rotate the tokens");
  emit({ step: "refreshed", exchanges: since });

  // 5. The person revokes the app in the dashboard (the test, in Chromium).
  emit({ step: "revoke" });
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === "revoked") break;
  }
  lines.close();
  // The access token is refused within 2 s (the same request the SDK sends).
  const started = Date.now();
  let status, www;
  for (;;) {
    const res = await fetch(mcpURL, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${after.access_token}`, "Mcp-Session-Id": transport.sessionId, "MCP-Protocol-Version": transport.protocolVersion ?? "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/list" }) });
    await res.body?.cancel();
    status = res.status;
    www = res.headers.get("www-authenticate");
    if (status === 401 || Date.now() - started > 2000) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const refusedAfter = Date.now() - started;
  check(status === 401, `the revoked app's token answered ${status} after ${refusedAfter} ms`);
  check(www?.includes("resource_metadata=") && www.includes('error="invalid_token"') && /revoked/.test(www), "WWW-Authenticate after revocation: " + www);
  // The SDK's next call: a 401, its refresh refused, a new sign-in asked for.
  const m = exchanges.length;
  let err;
  try {
    await client.callTool({ name: "get_prices", arguments: { ids: ["en:base1-4"] } });
  } catch (e) {
    err = e;
  }
  const last = exchanges.slice(m).map((x) => `${x.method} ${x.path} ${x.status}`);
  check(err instanceof UnauthorizedError, "the call after revocation: " + err);
  check(last[0] === "POST /api/v3/mcp/ 401" && last.includes("POST /oauth/token 400"), "after revocation: " + last.join(", "));
  check(provider.redirects.length === 2, "no new sign-in asked for after revocation");
  emit({ step: "done", refused_after_ms: refusedAfter, exchanges: last, www });
} else {
  emit({ step: "done" });
}
await client.close().catch(() => {});
server.close();
process.exit(0);
