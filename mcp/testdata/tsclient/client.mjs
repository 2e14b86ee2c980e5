// Drives the cardedge MCP server with the official TypeScript SDK.
//
//   node client.mjs <mcp-url> <api-key>
//
// Initializes a session over Streamable HTTP (Bearer key in
// requestInit.headers), lists the tools, calls every tool, lists the
// resources, resource templates and prompts, reads a card resource (1 unit,
// counted in the summary's cost) and gets a prompt (free), checks the
// results, ends the session, and prints one JSON summary line on stdout. Exits
// non-zero on the first failed check (the message says which).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, key] = process.argv.slice(2);
if (!url || !key) {
  console.error("usage: node client.mjs <mcp-url> <api-key>");
  process.exit(2);
}

function check(cond, msg) {
  if (!cond) {
    console.error("CHECK FAILED: " + msg);
    process.exit(1);
  }
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "cardedge-ts-e2e", version: "1.0.0" });
await client.connect(transport);

const server = client.getServerVersion();
check(server?.name === "cardedge" && server?.version === "1.1.0", "serverInfo " + JSON.stringify(server));
check(typeof server.title === "string" && server.title.length > 0 && server.icons?.some((i) => i.mimeType === "image/png" && i.src.startsWith("data:image/png;base64,")),
  "serverInfo title and icons " + JSON.stringify({ title: server.title, icons: server.icons?.map((i) => i.mimeType) }));
check(typeof transport.sessionId === "string" && transport.sessionId.length > 0, "no session id");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const want = ["batch_grade_ladder", "compare_set_finish", "get_cohort", "get_listings", "get_prices", "get_sales",
  "pin_cohort", "quote", "rank_set_sales", "search"];
check(JSON.stringify(names) === JSON.stringify(want), "tools " + names.join(","));
const writers = ["compare_set_finish", "pin_cohort"];
for (const t of tools) {
  for (const [arg, schema] of Object.entries(t.inputSchema.properties ?? {})) {
    check(typeof schema.description === "string" && schema.description.length > 0, `${t.name}.${arg} has no description`);
  }
  // Every tool declares an outputSchema (the SDK then validates each
  // result's structuredContent against it) and honest annotations.
  check(t.outputSchema?.type === "object" && t.outputSchema.properties?.data, `${t.name}: no outputSchema`);
  const a = t.annotations ?? {};
  check(typeof t.title === "string" && t.title.length > 0 && a.title === t.title, `${t.name}: title ${t.title} / ${a.title}`);
  check(a.readOnlyHint === !writers.includes(t.name) && a.destructiveHint === false && a.idempotentHint === true && a.openWorldHint === false,
    `${t.name}: annotations ${JSON.stringify(a)}`);
}

// call runs a tool and returns the parsed JSON of its first text block.
async function call(name, args, expectError = false) {
  const res = await client.callTool({ name, arguments: args });
  check(Array.isArray(res.content) && res.content[0]?.type === "text", `${name}: no text content`);
  check(Boolean(res.isError) === expectError, `${name}: isError ${res.isError}: ${res.content[0].text.slice(0, 300)}`);
  const body = JSON.parse(res.content[0].text);
  if (!expectError) {
    // The SDK has validated structuredContent against the tool's
    // outputSchema (callTool throws when it does not); it is the text's JSON.
    check(res.structuredContent && JSON.stringify(res.structuredContent) === JSON.stringify(body), `${name}: structuredContent differs from the text`);
    summary.structured = (summary.structured ?? 0) + 1;
    check(body.contract === `mcp.${name}.v1` && typeof body.as_of === "string" && typeof body.cost === "number", `${name}: envelope ${res.content[0].text.slice(0, 200)}`);
  }
  return body;
}

const summary = { session: transport.sessionId, tools: names, calls: {}, cost: 0 };
const note = (name, body) => {
  summary.calls[name] = (summary.calls[name] ?? 0) + 1;
  summary.cost += body.cost ?? 0;
  return body.data;
};

let d = note("search", await call("search", { q: "zzzzqqqq no such card" }));
check(d.status === "not_found" && d.items.length === 0, "search not found: " + JSON.stringify(d).slice(0, 300));
d = note("search", await call("search", { q: "charizard" }));
check(d.status === "resolved" && d.card_id === "en:base1-4", "search q charizard: " + JSON.stringify(d).slice(0, 300));
d = note("search", await call("search", { ids: ["en:base1-4", "42382", "zzzz-no-such-card"] }));
check(d.resolved === 2 && d.not_found === 1 && d.unique_cards === 1, "search ids: " + JSON.stringify(d).slice(0, 300));

d = note("quote", await call("quote", { ids: ["en:base1-4", "pikachu"] }));
const [q1, q2] = d.items;
check(q1.status === "resolved" && ["Midprice", "Last", "Ask"].includes(q1.label) && q1.price_usd > 0 && q1.price_basis.length > 0, "quote resolved: " + JSON.stringify(q1));
check(q2.status === "ambiguous" && q2.candidates.length > 1 && q2.candidates.length <= 5, "quote ambiguous: " + JSON.stringify(q2).slice(0, 300));
d = note("quote", await call("quote", { ids: ["en:base1-4"], grade: "raw:near_mint", finish: "holo/unlimited" }));
check(d.items[0].grade === "raw:near_mint" && d.items[0].finish === "holo/unlimited", "quote grade+finish: " + JSON.stringify(d.items[0]));

d = note("get_prices", await call("get_prices", { ids: ["en:base1-4"] }));
check(d.bounded_by_default === true && d.items[0].points.length <= 30, "get_prices default bound");
d = note("get_prices", await call("get_prices", { ids: ["en:base1-4"], limit: 5, pick: "all", interval: "week" }));
check(d.items[0].points.length <= 5 && !d.bounded_by_default, "get_prices limit");

d = note("get_sales", await call("get_sales", { ids: ["en:base1-4"], limit: 5 }));
check(d.items[0].rows.length > 0 && d.items[0].rows.length <= 5, "get_sales records");
d = note("get_sales", await call("get_sales", { ids: ["en:base1-4"], mode: "daily", limit: 7 }));
check(d.items[0].rows.length > 0 && d.items[0].rows[0].sales > 0, "get_sales daily");

d = note("get_listings", await call("get_listings", { ids: ["en:base1-4"] }));
check(Array.isArray(d.items[0].listings), "get_listings");
d = note("get_listings", await call("get_listings", { ids: ["en:base1-4"], mode: "book" }));
check(Array.isArray(d.items[0].book), "get_listings book");

let body = await call("batch_grade_ladder", { set_id: "en:base1", rarity: "Rare Holo", dry_run: true });
check(body.cost === 0 && body.data.dry_run === true && body.data.would_cost > 0, "ladder dry run: " + JSON.stringify(body).slice(0, 300));
note("batch_grade_ladder", body);
d = note("batch_grade_ladder", await call("batch_grade_ladder", { ids: ["en:base1-4", "en:base1-2"], grades: "slab:10,raw:near_mint" }));
check(d.columns.length > 0 && d.rows.length === 4 && d.result_handle, "ladder rows: " + JSON.stringify(d).slice(0, 300));
const resultHandle = d.result_handle;

d = note("batch_grade_ladder", await call("batch_grade_ladder", { ids: ["en:base1-4"], grades: "slab:10", compact: false }));
check(d.items.length === 1 && d.items[0].ladder.length === 1, "ladder items: " + JSON.stringify(d).slice(0, 300));

d = note("compare_set_finish", await call("compare_set_finish", { set_id: "en:base1", finish: "1st-edition", rarity: "Rare Holo", compact: false }));
check(Array.isArray(d.items) && d.items.length > 0, "compare_set_finish items");
d = note("compare_set_finish", await call("compare_set_finish", { set_id: "en:base1", finish: "1st-edition", rarity: "Rare Holo" }));
check(typeof d.cohort_handle === "string" && d.cohort_handle.startsWith("coh_") && d.cards > 0, "compare_set_finish");
const compareHandle = d.cohort_handle;

d = note("get_cohort", await call("get_cohort", {}));
check(d.cohort.cohort_handle === compareHandle && d.cohort.active === true, "get_cohort active");

d = note("pin_cohort", await call("pin_cohort", { name: "ts ladder", result_handle: resultHandle }));
check(d.cohort.size === 2 && d.cohort.cohort_handle.startsWith("coh_"), "pin_cohort from result");
const pinned = d.cohort.cohort_handle;
d = note("get_cohort", await call("get_cohort", { cohort_handle: pinned, include_cards: true }));
check(d.cohort.cards.length === 2, "get_cohort include_cards");

d = note("rank_set_sales", await call("rank_set_sales", { set_id: "en:base1", window: "365d", limit: 5 }));
check(d.items.length > 0 && d.items.length <= 5 && d.items[0].rank === 1, "rank_set_sales set");
d = note("rank_set_sales", await call("rank_set_sales", { cohort_handle: compareHandle, window: "ytd", grader: "slab" }));
check(d.items.every((r) => r.grade.startsWith("slab:")), "rank_set_sales cohort");

// Tool failures are results with isError, never protocol errors.
body = await call("quote", { ids: ["en:base1-4"], grade: "psa:11" }, true);
check(body.contract === "error.v1" && /grade/.test(body.error.message), "bad grade error: " + JSON.stringify(body));
body = await call("batch_grade_ladder", { set_id: "en:nope" }, true);
check(/unknown set_id/.test(body.error.message), "unknown set error");

// Resources and prompts, as a host lists and reads them.
const { resources } = await client.listResources();
check(resources.some((r) => r.uri === "cardedge://me/collection" && r.mimeType === "application/json" && r.title), "resources " + JSON.stringify(resources));
const { resourceTemplates } = await client.listResourceTemplates();
const templates = resourceTemplates.map((t) => t.uriTemplate).sort();
check(JSON.stringify(templates) === JSON.stringify(["cardedge://cards/{+id}", "cardedge://movers/{+game}", "cardedge://sets/{+id}"]), "resource templates " + templates);
const read = await client.readResource({ uri: "cardedge://cards/en:base1-4" });
check(read.contents.length === 1 && read.contents[0].mimeType === "application/json", "read card: " + JSON.stringify(read).slice(0, 300));
body = JSON.parse(read.contents[0].text);
check(body.contract === "mcp.resource.card.v1" && body.data.card_id === "en:base1-4" && body.data.printings.length > 0, "card resource: " + read.contents[0].text.slice(0, 300));
summary.resources = { read: 1 };
summary.cost += body.cost;
const { prompts } = await client.listPrompts();
summary.prompts = prompts.map((p) => p.name).sort();
check(JSON.stringify(summary.prompts) === JSON.stringify(["compare_printings", "what_moved_this_week"]), "prompts " + summary.prompts);
const prompt = await client.getPrompt({ name: "compare_printings", arguments: { card: "charizard base" } });
check(prompt.messages.length === 1 && /search/.test(prompt.messages[0].content.text), "compare_printings: " + JSON.stringify(prompt).slice(0, 300));

await transport.terminateSession();
await client.close();
console.log(JSON.stringify(summary));
