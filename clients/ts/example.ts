// A typed TypeScript client of the cardedge API: the types (schema.d.ts)
// are generated from the server's OpenAPI document by openapi-typescript,
// the calls go through openapi-fetch, and tsc checks both.
//
//   npx openapi-typescript http://127.0.0.1:8080/api/v3/openapi.json -o schema.d.ts
//   npx tsc && node out/example.js http://127.0.0.1:8080 <api-key>
//
// It calls three routes (card list, card detail with includes, price
// history), checks what they return, and prints one JSON summary line.
// edge/cmd/cardedge/clients_test.go runs it against a real edge.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

// Node's process, without @types/node.
declare const process: { argv: string[]; exitCode?: number };

type Card = components["schemas"]["Card"];
type PricePoint = components["schemas"]["PointRow"];

function check(cond: boolean, msg: string): asserts cond {
  if (!cond) {
    throw new Error("CHECK FAILED: " + msg);
  }
}

const [baseUrl, key] = process.argv.slice(2);
check(baseUrl !== undefined && key !== undefined, "usage: node out/example.js <base-url> <api-key>");

const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

// 1. The card list: query parameters are typed (sort is an enum, limit a
// number).
const list = await client.GET("/api/v3/cards", { params: { query: { q: "charizard", sort: "price", order: "desc", limit: 3 } } });
check(list.response.status === 200 && list.data !== undefined, `card list: ${list.response.status} ${JSON.stringify(list.error)}`);
const cards: Card[] = list.data.data.items;
check(cards.length > 0 && cards.length <= 3, `card list: ${cards.length} items`);
const first = cards[0];
check(first !== undefined, "no first card");
// A value that may be null is typed so: price_usd is number | null.
const price: number | null = first.market.price_usd;

// 2. Card detail with includes: the includes object is optional, and each
// include in it too.
const detail = await client.GET("/api/v3/cards/{card_id}", {
  params: { path: { card_id: first.card_id }, query: { include: "market_summary,recent_sales" } },
});
check(detail.response.status === 200 && detail.data !== undefined, `card detail: ${detail.response.status}`);
const card = detail.data.data;
check(card.card_id === first.card_id, `card detail of ${first.card_id}: ${card.card_id}`);
const summary = card.includes?.market_summary;
const recent = card.includes?.recent_sales;
check(summary !== undefined && recent !== undefined, "card detail: includes market_summary and recent_sales");
check(summary.card_id === card.card_id && Array.isArray(recent.items), "card detail includes");

// 3. Price history of a grade, a week per point.
const history = await client.GET("/api/v3/cards/{card_id}/price-history", {
  params: { path: { card_id: card.card_id }, query: { grade: "raw:near_mint", interval: "week", limit: 10 } },
});
check(history.response.status === 200 && history.data !== undefined, `price history: ${history.response.status} ${JSON.stringify(history.error)}`);
const points: PricePoint[] = history.data.data.items;
check(points.every((p) => typeof p.date === "string" && typeof p.price_usd === "number"), "price history points");

// Errors are typed too: error.v1, or a 422's HTTPValidationError (no
// contract). An unknown card is a 404 with error.v1.
const missing = await client.GET("/api/v3/cards/{card_id}", { params: { path: { card_id: "en:no-such-card" } } });
const failure = missing.error;
check(missing.response.status === 404 && failure !== undefined && "contract" in failure && failure.contract === "error.v1",
  `unknown card: ${missing.response.status}`);

console.log(JSON.stringify({
  cards: cards.map((c) => c.card_id),
  price_usd: price,
  includes: Object.keys(card.includes ?? {}).sort(),
  points: points.length,
  grade: history.data.data.grade,
  not_found: failure.error.code,
}));
