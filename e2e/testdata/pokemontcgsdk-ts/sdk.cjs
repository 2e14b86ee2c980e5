// Drives cardedge's /v2 with pokemontcg.io's TypeScript SDK
// (pokemon-tcg-sdk-typescript 1.3.4): its base URL is fixed, so an axios
// interceptor on the SDK's axios rewrites https://api.pokemontcg.io/v2 to
// $BASE/v2; its key ($KEY) is read from POKEMONTCG_API_KEY and sent as
// X-Api-Key. $PLAN (JSON) lists the calls; the answers are printed as one
// JSON object for e2e/v2_test.go to compare with the catalog.
process.env.POKEMONTCG_API_KEY = process.env.KEY;
const axios = require('axios'); // the SDK's own (this tool set has no other)
axios.interceptors.request.use((config) => {
  config.url = config.url.replace('https://api.pokemontcg.io/v2', process.env.BASE + '/v2');
  return config;
});
const { PokemonTCG } = require('pokemon-tcg-sdk-typescript');
const plan = JSON.parse(process.env.PLAN);

async function main() {
  const out = { where: [] };
  out.find = await PokemonTCG.findCardByID(plan.find);
  for (const args of plan.where) out.where.push((await PokemonTCG.findCardsByQueries(args)).map((c) => c.id));
  // getAllCards pages with pageSize=250 until a page is empty (it drops its
  // parameters after the first page: called without any).
  out.all = (await PokemonTCG.getAllCards()).map((c) => c.id);
  out.setFind = await PokemonTCG.findSetByID(plan.setFind);
  out.sets = (await PokemonTCG.getAllSets()).map((s) => s.id);
  out.setsWhere = (await PokemonTCG.findSetsByQueries({ q: plan.setsQ })).map((s) => s.id);
  out.types = await PokemonTCG.getTypes();
  out.subtypes = await PokemonTCG.getSubtypes();
  out.supertypes = await PokemonTCG.getSupertypes();
  out.rarities = await PokemonTCG.getRarities();
  try {
    await PokemonTCG.findCardsByQueries(plan.errors[0]);
    out.error = { status: 200 };
  } catch (e) {
    out.error = { status: e.response ? e.response.status : 0, body: e.response ? e.response.data : String(e) };
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e && e.response ? JSON.stringify({ status: e.response.status, body: e.response.data }) : e);
  process.exit(1);
});
