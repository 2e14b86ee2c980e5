// Drives cardedge's /v2 with pokemontcg.io's JavaScript SDK (pokemontcgsdk
// 2.0.0): its configuration's host points at $BASE/v2 and its key ($KEY) is
// sent as pokemontcg.io's X-Api-Key. $PLAN (JSON) lists the calls; the
// answers are printed as one JSON object for e2e/v2_test.go to compare
// with the catalog.
const pokemon = require('pokemontcgsdk');
const configure = require('pokemontcgsdk/lib/configure');

configure.host = process.env.BASE + '/v2';
pokemon.configure({ apiKey: process.env.KEY });
const plan = JSON.parse(process.env.PLAN);

// failure is an SDK call's rejection as the test compares it.
const failure = (e) => ({ status: e.response ? e.response.status : 0, body: e.response ? e.response.data : String(e) });

async function main() {
  const out = { where: [], all: [], errors: [] };
  out.find = await pokemon.card.find(plan.find);
  for (const args of plan.where) out.where.push(await pokemon.card.where(args));
  for (const args of plan.all) {
    const cards = await pokemon.card.all(args); // the SDK logs a failure and answers undefined
    if (!Array.isArray(cards)) throw new Error('card.all(' + JSON.stringify(args) + ') answered ' + cards);
    out.all.push(cards.map((c) => c.id));
  }
  out.setFind = await pokemon.set.find(plan.setFind);
  out.sets = await pokemon.set.all({ orderBy: 'releaseDate' });
  out.setsWhere = await pokemon.set.where({ q: plan.setsQ, pageSize: 1 });
  out.types = await pokemon.type.all();
  out.subtypes = await pokemon.subtype.all();
  out.supertypes = await pokemon.supertype.all();
  out.rarities = await pokemon.rarity.all();
  for (const args of plan.errors) {
    try {
      await pokemon.card.where(args);
      out.errors.push({ status: 200 });
    } catch (e) {
      out.errors.push(failure(e));
    }
  }
  try {
    await pokemon.card.find(plan.missing);
    out.missing = { status: 200 };
  } catch (e) {
    out.missing = failure(e);
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e && e.response ? JSON.stringify(failure(e)) : e);
  process.exit(1);
});
