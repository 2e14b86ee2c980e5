// Drives the cardedge MCP server with the official TypeScript SDK and a
// chat-user token (the web chat's Bearer credential) instead of an API key.
//
//   node chat.mjs <mcp-url> <token> apps|public|refused
//
// apps: the token of an account with Apps access (Pro, Elite): the ten public
// tools and the chat tools are listed; show_cards, price_card and the
// collection tools are called (add_to_collection adds two copies of
// en:base1-4 in slab:9 at $150 each, then remove_from_collection removes
// one). public: a Free account's token (or an API key): only the ten public
// tools. refused: the token is refused (401) when the client connects.
// Prints one JSON summary line on stdout; exits non-zero on the first failed
// check (the message says which). Every tool listed has an outputSchema and
// annotations, and every result's structuredContent (which the SDK validates
// against the outputSchema) is its text block's JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, mode] = process.argv.slice(2);
if (!url || !token || !["apps", "public", "refused"].includes(mode)) {
  console.error("usage: node chat.mjs <mcp-url> <token> apps|public|refused");
  process.exit(2);
}

function check(cond, msg) {
  if (!cond) {
    console.error("CHECK FAILED: " + msg);
    process.exit(1);
  }
}

const publicTools = ["batch_grade_ladder", "compare_set_finish", "get_cohort", "get_listings", "get_prices", "get_sales",
  "pin_cohort", "quote", "rank_set_sales", "search"];
const chatTools = ["add_to_collection", "list_collection", "price_card", "remove_from_collection", "show_cards",
  "list_alerts", "create_alert", "add_to_want_list", "delete_alert", "recent_alerts", "collection_history", "set_completion"];

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "cardedge-ts-chat", version: "1.0.0" });
try {
  await client.connect(transport);
} catch (err) {
  if (mode === "refused") {
    const status = err.code ?? (String(err.message).match(/\b(40\d)\b/) || [])[1];
    check(Number(status) === 401, "refused with " + err);
    console.log(JSON.stringify({ refused: true, status: Number(status), message: String(err.message).slice(0, 300) }));
    process.exit(0);
  }
  throw err;
}
check(mode !== "refused", "the token was accepted");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const want = (mode === "apps" ? [...publicTools, ...chatTools] : publicTools).sort();
const sql = names.filter((n) => /sql|schema/.test(n));
check(sql.length === 0, "SQL tools listed: " + sql.join(","));

// Every tool listed declares an outputSchema (the SDK then validates each
// result's structuredContent against it) and annotations with a title; the
// chat tools' say what they do: the collection's add and remove change it
// (not idempotent), remove destroys copies.
const annotations = {
  show_cards: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  price_card: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  list_collection: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  add_to_collection: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  remove_from_collection: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  list_alerts: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  create_alert: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  add_to_want_list: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  delete_alert: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  recent_alerts: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
};
for (const t of tools) {
  check(t.outputSchema?.type === "object" && t.outputSchema.properties?.data, `${t.name}: no outputSchema`);
  const a = t.annotations ?? {};
  check(typeof t.title === "string" && t.title.length > 0 && a.title === t.title && a.openWorldHint === false, `${t.name}: annotations ${JSON.stringify(a)}`);
  const want = annotations[t.name];
  if (want) {
    for (const [k, v] of Object.entries(want)) {
      check(a[k] === v, `${t.name}: ${k} ${a[k]}, want ${v}`);
    }
  }
}

const summary = { session: transport.sessionId, tools: names, calls: {}, cost: 0, structured: 0 };
async function call(name, args, expectError = false) {
  const res = await client.callTool({ name, arguments: args });
  check(Array.isArray(res.content) && res.content[0]?.type === "text", `${name}: no text content`);
  check(Boolean(res.isError) === expectError, `${name}: isError ${res.isError}: ${res.content[0].text.slice(0, 300)}`);
  const body = JSON.parse(res.content[0].text);
  summary.calls[name] = (summary.calls[name] ?? 0) + 1;
  if (!expectError) {
    // The SDK has validated structuredContent against the tool's
    // outputSchema (callTool throws when it does not); it is the text's JSON.
    check(res.structuredContent && JSON.stringify(res.structuredContent) === JSON.stringify(body), `${name}: structuredContent differs from the text`);
    summary.structured++;
    check(body.contract === `mcp.${name}.v1` && typeof body.cost === "number", `${name}: envelope ${res.content[0].text.slice(0, 200)}`);
    summary.cost += body.cost;
  }
  return expectError ? body.error : body.data;
}

if (mode === "public") {
  check(JSON.stringify(names) === JSON.stringify(want), "tools " + names.join(","));
  // A chat tool is not there for this token.
  let refused = false;
  try {
    const res = await client.callTool({ name: "show_cards", arguments: { ids: ["en:base1-4"] } });
    refused = Boolean(res.isError);
  } catch (err) {
    refused = true;
  }
  check(refused, "show_cards answered a token without Apps access");
  const q = await call("quote", { ids: ["en:base1-4"] });
  check(q.items[0].status === "resolved", "quote with a token");
} else {
  // The chat tools of this build: every one listed must be a chat tool, and
  // show_cards and price_card are always there.
  const extra = names.filter((n) => !publicTools.includes(n));
  check(publicTools.every((n) => names.includes(n)), "public tools missing: " + names.join(","));
  check(extra.every((n) => chatTools.includes(n)) && extra.includes("show_cards") && extra.includes("price_card"), "chat tools " + extra.join(","));
  summary.chat_tools = extra;

  let d = await call("show_cards", { ids: ["en:base1-4"] });
  check(d.cards.length === 1 && d.cards[0].url === "/dashboard/cards/en:base1-4" && d.cards[0].printings.length > 0, "show_cards: " + JSON.stringify(d).slice(0, 300));
  d = await call("show_cards", { q: "charizard", limit: 3 });
  check(d.cards.length > 0 && d.cards.length <= 3 && d.q === "charizard", "show_cards q: " + JSON.stringify(d).slice(0, 300));
  d = await call("price_card", { card: "en:base1-4", grade: "raw:near_mint" });
  check(d.card_id === "en:base1-4" && ["none", "low", "medium", "high"].includes(d.confidence) && Array.isArray(d.flags) && d.quote, "price_card: " + JSON.stringify(d).slice(0, 300));
  const e = await call("price_card", { card: "en:base1-4", printing: "gold-star" }, true);
  check(/not a printing/.test(e.message), "price_card bad printing: " + JSON.stringify(e));

  if (extra.includes("add_to_collection")) {
    const before = await call("list_collection", {});
    const held = (c) => c.holdings.filter((h) => h.card_id === "en:base1-4" && h.grade === "slab:9").reduce((n, h) => n + h.quantity, 0);
    const n0 = held(before);
    d = await call("add_to_collection", { card: "en:base1-4", grade: "slab:9", quantity: 2, price_paid_usd: 150 });
    check(d.holding.quantity === n0 + 2 && d.holding.card_id === "en:base1-4", "add_to_collection: " + JSON.stringify(d).slice(0, 300));
    d = await call("remove_from_collection", { card: "en:base1-4", grade: "slab:9", quantity: 1 });
    check(d.holding.quantity === n0 + 1, "remove_from_collection: " + JSON.stringify(d).slice(0, 300));
    const after = await call("list_collection", {});
    check(held(after) === n0 + 1, "list_collection after: " + JSON.stringify(after).slice(0, 300));
    summary.held = held(after);
    const e2 = await call("remove_from_collection", { card: "en:base1-5", grade: "bgs:10" }, true);
    check(/holds no/.test(e2.message), "remove_from_collection of nothing: " + JSON.stringify(e2));
  }
}

await transport.terminateSession();
await client.close();
console.log(JSON.stringify(summary));
