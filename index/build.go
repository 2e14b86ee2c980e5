package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
)

// Files that Build writes under its dir.
const (
	BleveDir     = "index.bleve"   // the Bleve (scorch) index, one segment
	TypeaheadBin = "typeahead.bin" // typeahead structure and per-card search data
	// SetFactsFile (setfacts.json): each set's values of the syntax's set fields
)

// BuildOptions tunes Build. The zero value is ready to use.
type BuildOptions struct {
	// Progress, when not nil, is called after each indexed batch with the
	// number of cards indexed so far and the total, and once more with
	// done == total when the index is merged and written.
	Progress func(done, total int)
	// BatchSize is the number of cards per Bleve batch; 0 means 50000. A
	// batch becomes one segment (held in memory while it is built: about
	// 1 GB per 50k cards); fewer, larger segments leave less to merge.
	BatchSize int
}

// ErrExists means Build's dir already holds an index.
var ErrExists = errors.New("index: directory already holds an index")

// Build writes the index of every game into dir: dir/index.bleve/ and
// dir/typeahead.bin (see the package doc). dir is created if needed and must
// not already hold an index. It force-merges the Bleve index to one segment.
//
// sets and cards cover all games; cards are in catalog order and their row
// (position in cards) is their document number. Build reads the builder's
// market summary of each card (PriceCents, Volume30dCents, Sales30d,
// PartnerProductID, Variants) and of each set (Volume30dCents, Sales30d).
// Invalid input (a nil card, a card without game or id, a duplicate
// (game, id)) is an EINVALID *apperr.Error. On any error dir may hold
// partial files: build into the snapshot's temporary directory and discard
// it. Peak memory is about 1 GB per BatchSize (50k) cards plus the input.
func Build(ctx context.Context, dir string, sets []*snapshots.Set, cards []*snapshots.Card, opts BuildOptions) error {
	in, err := prepare(sets, cards)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("index: build %s: %w", dir, err)
	}
	blevePath := filepath.Join(dir, BleveDir)
	if _, err := os.Stat(blevePath); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, blevePath)
	}
	if err := buildBleve(ctx, blevePath, in, opts); err != nil {
		return fmt.Errorf("index: build %s: %w", blevePath, err)
	}
	t := buildTable(in.entities(), len(in.cards), in.games)
	if err := writeFileSync(filepath.Join(dir, TypeaheadBin), t.encode()); err != nil {
		return fmt.Errorf("index: build: %w", err)
	}
	if err := writeSetFacts(dir, in); err != nil {
		return fmt.Errorf("index: build: %w", err)
	}
	if opts.Progress != nil {
		opts.Progress(len(cards), len(cards))
	}
	return nil
}

// input is Build's input, checked and cross-referenced.
type input struct {
	sets    []*snapshots.Set
	cards   []*snapshots.Card
	games   []string
	setOf   []*snapshots.Set // per card; nil when its set is unknown
	enName  []string         // per card: name of the linked English card
	pop     []float64        // per card
	boost   []float32        // per card: pop / max pop of its game
	group   []uint32         // per card: collapse group
	setPops []float64
	// per set: its legalities (snapshots.SetLegalities) and total
	// (Set.Total), for the facts field
	setLegal map[*snapshots.Set]snapshots.Legalities
	setTotal map[*snapshots.Set]int
}

func prepare(sets []*snapshots.Set, cards []*snapshots.Card) (*input, error) {
	in := &input{sets: sets, cards: cards}
	seenGame := map[string]bool{}
	addGame := func(g string) {
		if !seenGame[g] {
			seenGame[g] = true
			in.games = append(in.games, g)
		}
	}
	setByID := map[string]*snapshots.Set{}
	for i, s := range sets {
		if s == nil || s.Game == "" || s.ID == "" {
			return nil, apperr.Errorf(apperr.EINVALID, "set %d: missing game or id", i)
		}
		k := s.Game + "\x00" + strings.ToLower(s.ID)
		if setByID[k] != nil {
			return nil, apperr.Errorf(apperr.EINVALID, "set %d: duplicate id %s/%s", i, s.Game, s.ID)
		}
		setByID[k] = s
		addGame(s.Game)
	}
	cardByID := make(map[string]*snapshots.Card, len(cards))
	for i, c := range cards {
		if c == nil || c.Game == "" || c.ID == "" {
			return nil, apperr.Errorf(apperr.EINVALID, "card %d: missing game or id", i)
		}
		k := c.Game + "\x00" + strings.ToLower(c.ID)
		if cardByID[k] != nil {
			return nil, apperr.Errorf(apperr.EINVALID, "card %d: duplicate id %s/%s", i, c.Game, c.ID)
		}
		cardByID[k] = c
		addGame(c.Game)
	}
	n := len(cards)
	in.setOf = make([]*snapshots.Set, n)
	in.enName = make([]string, n)
	in.pop = make([]float64, n)
	in.boost = make([]float32, n)
	in.group = make([]uint32, n)
	maxPop := map[string]float64{}
	groups := map[string]uint32{}
	setCards := map[*snapshots.Set][]*snapshots.Card{}
	for i, c := range cards {
		in.setOf[i] = setByID[c.Game+"\x00"+strings.ToLower(c.SetID)]
		if s := in.setOf[i]; s != nil {
			setCards[s] = append(setCards[s], c)
		}
		if c.ENCardID != "" && c.Language != "en" {
			// One Piece ja rows already carry the English name.
			if en := cardByID[c.Game+"\x00"+strings.ToLower(c.ENCardID)]; en != nil && normalizeText(en.Name) != normalizeText(c.Name) {
				in.enName[i] = en.Name
			}
		}
		in.pop[i] = popularity(c.Volume30dCents, c.Sales30d)
		maxPop[c.Game] = math.Max(maxPop[c.Game], in.pop[i])
		gk := c.Game + "\x00" + strings.ToLower(baseID(c.ID))
		g, ok := groups[gk]
		if !ok {
			g = uint32(len(groups))
			groups[gk] = g
		}
		in.group[i] = g
	}
	in.setLegal = make(map[*snapshots.Set]snapshots.Legalities, len(setCards))
	in.setTotal = make(map[*snapshots.Set]int, len(setCards))
	for s, cs := range setCards {
		in.setLegal[s] = snapshots.SetLegalities(cs)
		in.setTotal[s] = s.Total(len(cs))
	}
	for i, c := range cards {
		if m := maxPop[c.Game]; m > 0 {
			in.boost[i] = float32(in.pop[i] / m)
		}
	}
	in.setPops = make([]float64, len(sets))
	for i, s := range sets {
		in.setPops[i] = popularity(s.Volume30dCents, s.Sales30d)
	}
	return in, nil
}

// baseID is the id of the printed card a variant row belongs to: the id
// without its variant suffix, which starts at the first '_' or '@'
// ("en:OP01-001_p1", "en:OP09-078_r1@PRB-02" and "en:cel25c-15_A1" are
// variants of "en:OP01-001", "en:OP09-078" and "en:cel25c-15").
func baseID(id string) string {
	if i := strings.IndexAny(id, "_@"); i > 0 {
		return id[:i]
	}
	return id
}

// popularity is the build-time popularity of a card or set:
// ln(1 + volume in dollars) + 0.5 ln(1 + sales), over the last 30 days.
func popularity(volumeCents int64, sales int) float64 {
	if volumeCents < 0 {
		volumeCents = 0
	}
	if sales < 0 {
		sales = 0
	}
	return math.Log1p(float64(volumeCents)/100) + 0.5*math.Log1p(float64(sales))
}

func buildBleve(ctx context.Context, path string, in *input, opts BuildOptions) error {
	m, err := newMapping()
	if err != nil {
		return err
	}
	idx, err := bleve.NewUsing(path, m, scorch.Name, scorch.Name, map[string]interface{}{"unsafe_batch": true,
		"asyncErrorCallbackName": persistErrorCallback})
	if err != nil {
		return err
	}
	defer persistErrs.Delete(filepath.Join(path, "store"))
	closed := false
	defer func() {
		if !closed {
			_ = idx.Close()
		}
	}()
	size := opts.BatchSize
	if size <= 0 {
		size = 50000
	}
	total := len(in.cards)
	b := idx.NewBatch()
	for i := range in.cards {
		if err := b.Index(docID(i), in.doc(i)); err != nil {
			return fmt.Errorf("card %s: %w", in.cards[i].ID, err)
		}
		if b.Size() >= size || i == total-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := idx.Batch(b); err != nil {
				return err
			}
			b.Reset()
			if opts.Progress != nil {
				opts.Progress(i+1, total)
			}
		}
	}
	if err := forceMerge(ctx, idx, filepath.Join(path, "store")); err != nil {
		return err
	}
	if n, err := idx.DocCount(); err != nil || n != uint64(total) {
		return fmt.Errorf("indexed %d documents of %d (%v)", n, total, err)
	}
	closed = true
	if err := idx.Close(); err != nil {
		return err
	}
	return pruneSegments(path)
}

// pruneSegments removes the segment files that the merges left behind (scorch
// deletes obsolete files asynchronously and may not have done so before
// Close): it opens the index read-only, keeps the files of its root
// snapshot and deletes the other *.zap files of the store.
func pruneSegments(path string) error {
	idx, err := bleve.OpenUsing(path, map[string]interface{}{"read_only": true})
	if err != nil {
		return err
	}
	live := map[string]bool{}
	err = func() error {
		adv, err := idx.Advanced()
		if err != nil {
			return err
		}
		r, err := adv.Reader()
		if err != nil {
			return err
		}
		defer r.Close()
		snap, ok := r.(*scorch.IndexSnapshot)
		if !ok {
			return fmt.Errorf("prune: reader is %T", r)
		}
		for _, seg := range snap.Segments() {
			p, ok := seg.Segment().(interface{ Path() string })
			if !ok {
				return fmt.Errorf("prune: in-memory segment in a closed index")
			}
			live[filepath.Base(p.Path())] = true
		}
		return nil
	}()
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	zaps, err := filepath.Glob(filepath.Join(path, "store", "*.zap"))
	if err != nil {
		return err
	}
	for _, z := range zaps {
		if !live[filepath.Base(z)] {
			if err := os.Remove(z); err != nil {
				return err
			}
		}
	}
	return nil
}

// forceMerge merges the index down to one file segment. One ForceMerge pass
// merges at most SegmentsPerMergeTask (10) segments, so it repeats, waiting
// for the persister to write in-memory segments first, and at the end for it
// to persist the merged root. It counts segments
// on the current root snapshot: scorch's segment statistics are computed
// on the root *before* each introduction, so they lag one batch behind.
//
// A segment scorch cannot persist (the disk is full) is retried forever
// and only reported to the index's async error callback: forceMerge returns
// the first such error of the store at path instead of waiting.
func forceMerge(ctx context.Context, idx bleve.Index, path string) error {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("force merge: index is %T, not scorch", adv)
	}
	opts := mergeplan.SingleSegmentMergePlanOptions
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err, ok := persistErrs.Load(path); ok {
			return err.(error)
		}
		mem, files, err := countSegments(s)
		if err != nil {
			return err
		}
		if mem == 0 && files <= 1 {
			// Wait for the persister to write the root (Close does not), so
			// that the index opens as this one segment.
			st := s.StatsMap()
			root, _ := st["CurRootEpoch"].(uint64)
			persisted, _ := st["LastPersistedEpoch"].(uint64)
			if persisted >= root {
				return nil
			}
			time.Sleep(2 * time.Millisecond)
			continue
		}
		if attempt > 100000 {
			return fmt.Errorf("force merge: still %d memory and %d file segments", mem, files)
		}
		if mem > 0 {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		if err := s.ForceMerge(ctx, &opts); err != nil {
			return err
		}
	}
}

// persistErrs holds the first error scorch's persister reported for each
// store being built (by the store's path), through persistErrorCallback.
var persistErrs sync.Map

const persistErrorCallback = "cardedge-index-build"

func init() {
	scorch.RegistryAsyncErrorCallbacks[persistErrorCallback] = func(err error, path string) {
		persistErrs.LoadOrStore(filepath.Clean(path), err)
	}
}

// countSegments counts the in-memory and persisted segments of the root.
func countSegments(s *scorch.Scorch) (mem, files int, err error) {
	r, err := s.Reader()
	if err != nil {
		return 0, 0, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0, 0, fmt.Errorf("force merge: reader is %T", r)
	}
	for _, seg := range snap.Segments() {
		if _, persisted := seg.Segment().(interface{ Path() string }); persisted {
			files++
		} else {
			mem++
		}
	}
	return mem, files, nil
}

func docID(row int) string { return strconv.FormatUint(uint64(row), 36) }

func rowOf(id string) (int, bool) {
	v, err := strconv.ParseUint(id, 36, 32)
	return int(v), err == nil
}

// doc returns the Bleve document of card i.
func (in *input) doc(i int) *doc {
	c := in.cards[i]
	set := in.setOf[i]
	d := &doc{
		Game:     c.Game,
		Language: c.Language,
		Name:     c.Name,
		NameEN:   in.enName[i],
		Volume:   fmt.Sprintf("%016x%08x", uint64(max(c.Volume30dCents, 0)), uint32(max(c.Sales30d, 0))),
	}
	norm := normalizeText(c.Name)
	d.NameSort = norm
	if r := normKeyword(c.Rarity); r != "" {
		d.Rarity = &r
	}
	names := nameForms(c.Name, c.NameLanguage)
	d.NameAlt = names.alt
	d.NameExact = names.exact
	if c.PriceCents > 0 {
		p := fmt.Sprintf("%016x", uint64(c.PriceCents))
		d.Price = &p
	}

	d.Set = uniq(normKeyword(c.SetID), normKeyword(sourceOf(c.SetID)))
	printed := 0
	if set != nil {
		d.SetName = set.Name
		// English collectors say "Base Set", "Jungle set": the phrase
		// "<name> set" also names the set exactly.
		d.SetExact = []string{normalizeText(set.Name)}
		if set.Language == "en" && !strings.HasSuffix(d.SetExact[0], " set") {
			d.SetExact = append(d.SetExact, d.SetExact[0]+" set")
		}
		printed = set.CardCountPrinted
		d.Set = uniq(append(d.Set, normKeyword(set.SourceID))...)
		d.SetCode = setCodes(set)
	} else {
		d.SetCode = uniq(normalizeID(c.SetID), normalizeID(sourceOf(c.SetID)), compactID(sourceOf(c.SetID)))
	}
	d.Number = numberForms(c.Number, printed)
	d.IDs = uniq(normalizeID(c.ID), normalizeID(c.SourceID))
	if c.PartnerProductID > 0 {
		d.IDs = append(d.IDs, strconv.FormatInt(c.PartnerProductID, 10))
	}
	tags := []string{c.Rarity}
	if c.Supertype != "Pokémon" { // nearly every card of the game: no signal
		tags = append(tags, c.Supertype)
	}
	for _, st := range c.Subtypes {
		if !strings.ContainsAny(st, "0123456789") { // "Stage 2" would match any "2"
			tags = append(tags, st)
		}
	}
	for _, v := range c.Variants {
		tags = append(tags, strings.NewReplacer("/", " ", "-", " ").Replace(v))
		d.Variant = append(d.Variant, normKeyword(v))
		for _, part := range strings.Split(v, "/") {
			d.Variant = append(d.Variant, normKeyword(part))
		}
	}
	d.Variant = uniq(d.Variant...)
	d.Tags = uniq(tags...)
	addPlay(d, c)
	v := cardValues{c: c, set: set}
	if set != nil {
		v.setLegal, v.setTotal = in.setLegal[set], in.setTotal[set]
	}
	d.Facts = v.facts()
	return d
}

// forms of a name for search and typeahead.
type nameFormSet struct {
	norm      string   // normalizeText(name)
	alt       []string // Bleve name_alt values
	exact     []string // Bleve name_exact values
	romaji    []string // short, long (typeahead keys; only without kanji)
	pinyin    string   // joined form ("penhuolong ex")
	hasTransl bool
}

func nameForms(name, nameLanguage string) nameFormSet {
	f := nameFormSet{norm: normalizeText(name)}
	if f.norm == "" {
		return f
	}
	f.exact = append(f.exact, f.norm)
	if c := compact(f.norm); c != f.norm {
		f.alt = append(f.alt, c)
		f.exact = append(f.exact, c)
	}
	if short, long, han, ok := romaji(f.norm); ok {
		f.alt = append(f.alt, short)
		f.exact = append(f.exact, short, compact(short))
		if long != "" {
			f.alt = append(f.alt, long)
			f.exact = append(f.exact, long, compact(long))
		}
		if !han {
			f.romaji = uniq(short, long)
		}
		f.hasTransl = true
	}
	if strings.HasPrefix(nameLanguage, "zh") {
		if spaced, joined, ok := pinyinOf(f.norm); ok {
			f.alt = append(f.alt, spaced, joined)
			f.exact = append(f.exact, spaced, joined, compact(joined))
			f.pinyin = joined
			f.hasTransl = true
		}
	}
	f.alt = uniq(f.alt...)
	f.exact = uniq(f.exact...)
	return f
}

// sourceOf returns the part of an id after "<language>:".
func sourceOf(id string) string {
	if i := strings.IndexByte(id, ':'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// compactID keeps only the letters and digits of a normalized id:
// "OP-01" -> "op01".
func compactID(s string) string {
	s = normalizeID(s)
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= 0x80 {
			b = append(b, c)
		}
	}
	return string(b)
}

func setCodes(s *snapshots.Set) []string {
	return uniq(normalizeID(s.ID), normalizeID(s.SourceID), compactID(s.SourceID),
		normalizeID(s.Abbreviation), compactID(s.Abbreviation))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func stripZeros(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" && s != "" {
		return "0"
	}
	return t
}

// splitAlnum splits "tg01" into "tg" and "01"; ok is false unless s is
// letters followed by digits.
func splitAlnum(s string) (letters, digits string, ok bool) {
	i := 0
	for i < len(s) && 'a' <= s[i] && s[i] <= 'z' {
		i++
	}
	if i == 0 || !isDigits(s[i:]) {
		return "", "", false
	}
	return s[:i], s[i:], true
}

// numberForms returns every form of a collector number that collectors type:
// "4" with 102 printed gives 4, 4/102; "004" gives 004, 4, 4/<printed>;
// "OP01-001" gives op01-001, 001, 1; "TG01" gives tg01, tg1.
func numberForms(number string, printed int) []string {
	raw := normalizeID(number)
	if raw == "" {
		return nil
	}
	forms := []string{raw}
	switch {
	case isDigits(raw):
		s := stripZeros(raw)
		forms = append(forms, s)
		if printed > 0 {
			forms = append(forms, s+"/"+strconv.Itoa(printed))
		}
	default:
		if i := strings.LastIndexByte(raw, '-'); i >= 0 && isDigits(raw[i+1:]) {
			forms = append(forms, raw[i+1:], stripZeros(raw[i+1:]))
		}
		if l, d, ok := splitAlnum(raw); ok {
			forms = append(forms, l+stripZeros(d))
		}
	}
	return uniq(forms...)
}

// numberQueryForms returns the number forms a query token may mean, in the
// normal forms numberForms indexes: "#004" -> 004, 4; "004/102" -> 4/102.
func numberQueryForms(tok string) []string {
	tok = strings.TrimLeft(tok, "#№")
	if tok == "" {
		return nil
	}
	forms := []string{tok}
	if isDigits(tok) {
		forms = append(forms, stripZeros(tok))
	} else if a, b, ok := strings.Cut(tok, "/"); ok && isDigits(a) && isDigits(b) {
		forms = append(forms, stripZeros(a)+"/"+stripZeros(b))
	} else if l, d, ok := splitAlnum(tok); ok {
		forms = append(forms, l+stripZeros(d))
	}
	return uniq(forms...)
}

// uniq returns the non-empty values of v without duplicates, in order.
func uniq(v ...string) []string {
	out := v[:0:0]
	for _, s := range v {
		if s == "" {
			continue
		}
		dup := false
		for _, o := range out {
			if o == s {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// entities returns the typeahead entities: cards in row order, then sets.
func (in *input) entities() []taEntity {
	ents := make([]taEntity, 0, len(in.cards)+len(in.sets))
	for i, c := range in.cards {
		e := taEntity{
			kind: kindCard, lang: langScope(c.Language), game: c.Game,
			id: c.ID, label: c.Name, setID: c.SetID,
			score: float32(1 + in.pop[i]), boost: in.boost[i], group: in.group[i], price: c.PriceCents,
		}
		number := c.Number
		set := in.setOf[i]
		setName := c.SetID
		if set != nil {
			setName = set.Name
			if set.CardCountPrinted > 0 && isDigits(c.Number) {
				number += "/" + strconv.Itoa(set.CardCountPrinted)
			}
		}
		e.detail = setName + " · " + number
		e.keys = nameKeys(c.Name, c.NameLanguage)
		if in.enName[i] != "" {
			e.keys = append(e.keys, taKey{normalizeText(in.enName[i]), wLinkedEN})
		}
		e.keys = append(e.keys, taKey{normalizeID(c.ID), wID}, taKey{normalizeID(c.SourceID), wID})
		e.exact = uniq(normalizeID(c.ID), normalizeID(c.SourceID))
		if c.PartnerProductID > 0 {
			e.exact = append(e.exact, strconv.FormatInt(c.PartnerProductID, 10))
		}
		ents = append(ents, e)
	}
	for i, s := range in.sets {
		e := taEntity{
			kind: kindSet, lang: langScope(s.Language), game: s.Game,
			id: s.ID, label: s.Name, score: float32(1 + in.setPops[i]),
		}
		code := s.Abbreviation
		if code == "" {
			code = s.SourceID
		}
		var parts []string
		parts = append(parts, code, s.ReleaseDate)
		if s.CardCount > 0 {
			parts = append(parts, strconv.Itoa(s.CardCount)+" cards")
		}
		e.detail = strings.Join(uniq(parts...), " · ")
		e.keys = nameKeys(s.Name, s.Language)
		for _, code := range setCodes(s) {
			e.keys = append(e.keys, taKey{code, wSetCode})
		}
		e.exact = uniq(normalizeID(s.ID), normalizeID(s.SourceID))
		ents = append(ents, e)
	}
	return ents
}

// nameKeys returns the typeahead keys of a card or set name.
func nameKeys(name, nameLanguage string) []taKey {
	f := nameForms(name, nameLanguage)
	if f.norm == "" {
		return nil
	}
	keys := []taKey{{f.norm, wName}}
	if c := compact(f.norm); c != f.norm {
		keys = append(keys, taKey{c, wCompact})
	}
	// later words: "umbreon vmax" is also found from "vmax"
	rest, n := f.norm, 0
	for n < 4 {
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		keys = append(keys, taKey{rest, wSuffix})
		n++
	}
	for _, r := range f.romaji {
		keys = append(keys, taKey{r, wTranslit})
		if c := compact(r); c != r {
			keys = append(keys, taKey{c, wTranslit * 0.95})
		}
	}
	if f.pinyin != "" {
		keys = append(keys, taKey{f.pinyin, wTranslit})
		if c := compact(f.pinyin); c != f.pinyin {
			keys = append(keys, taKey{c, wTranslit * 0.95})
		}
	}
	return keys
}

// writeFileSync writes data to path through a temporary file, fsynced and
// renamed.
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
