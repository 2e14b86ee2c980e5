package synth

// Chase is a set's most famous chase card: the card collectors open the set
// for, by public knowledge (price guides, auction records and hobby press
// agree on each of these). The realism report (cardbuild report) prints
// each one's price rank in its set; the synthetic model should put it at or
// near the top without naming it.
type Chase struct {
	Game   string
	SetID  string
	CardID string
	Why    string
}

// Chases are the chase cards the realism report checks, oldest set first.
var Chases = []Chase{
	{"pokemon", "en:base1", "en:base1-4", "Base Set Charizard: the hobby's best-known card"},
	{"pokemon", "en:base5", "en:base5-4", "Team Rocket Dark Charizard"},
	{"pokemon", "en:neo1", "en:neo1-9", "Neo Genesis Lugia"},
	{"pokemon", "en:neo4", "en:neo4-107", "Neo Destiny Shining Charizard"},
	{"pokemon", "en:ecard3", "en:ecard3-146", "Skyridge Crystal Charizard (secret rare)"},
	{"pokemon", "en:ex15", "en:ex15-100", "Dragon Frontiers Charizard Gold Star"},
	{"pokemon", "en:swsh7", "en:swsh7-215", "Evolving Skies Umbreon VMAX alternate art (\"Moonbreon\")"},
	{"pokemon", "en:swsh8", "en:swsh8-271", "Fusion Strike Gengar VMAX alternate art"},
	{"pokemon", "en:swsh9", "en:swsh9-154", "Brilliant Stars Charizard V alternate art"},
	{"pokemon", "en:swsh11", "en:swsh11-186", "Lost Origin Giratina V alternate art"},
	{"pokemon", "en:sv3", "en:sv3-223", "Obsidian Flames Charizard ex special illustration rare"},
	{"pokemon", "en:sv3pt5", "en:sv3pt5-199", "151 Charizard ex special illustration rare"},
	{"pokemon", "en:sv8", "en:sv8-238", "Surging Sparks Pikachu ex special illustration rare"},
	{"pokemon", "en:sv8pt5", "en:sv8pt5-161", "Prismatic Evolutions Umbreon ex special illustration rare"},
	{"pokemon", "ja:SV2a", "ja:SV2a-201", "Japanese 151 Charizard ex special art rare"},
	{"onepiece", "en:OP-05", "en:OP05-119_p2", "Awakening of the New Era Luffy (Gear 5) manga rare"},
	{"onepiece", "ja:OP-05", "ja:OP05-119_p2", "Japanese Awakening of the New Era Luffy (Gear 5) manga rare"},
}
