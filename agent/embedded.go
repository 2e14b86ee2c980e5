package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// The embedded agent: no model. It reads the question (parseIntent), calls
// the tools as a model would (with tool_call and tool_result events) and
// writes its answer from their results.

// chatIntent is what the embedded agent understood of a question.
type chatIntent struct {
	kind      string // quote, movers, sales, history
	query     string // the card words
	grade     *snapshots.Grade
	gradeSaid string // the words the grade was read from ("psa 10")
	language  string
	window    string
	direction string
	metric    string
}

var (
	wordRE = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'&.:/-]*`)
)

var chatStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`what whats what's is are a an the worth price prices priced value valued of how much
		for does do i my me tell show give get please current currently today now at in on it its it's this that
		card cards sell sells selling sold go going cost costs about any pricing quote estimate market could would
		you can your be graded grade copy copies with recent sales sale last history chart over time trend
		english japanese chinese version language lately been has have was were from`) {
		chatStopwords[w] = true
	}
}

func parseIntent(text string) chatIntent {
	lower := strings.ToLower(text)
	it := chatIntent{kind: "quote"}
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("mover", "trending", "gainer", "loser", "hottest", "rising", "falling", "biggest", "top cards", "going up", "going down"):
		it.kind = "movers"
	case has("recent sale", "last sold", "sold for", "sales of", "recent sales", "last sale"):
		it.kind = "sales"
	case has("history", "chart", "over time", "trend of", "past month", "last month", "price change"):
		it.kind = "history"
	}
	// Movers: the shared default ranking (pricing.MoversMetric, the page's
	// and REST's), by price change or volume when the question says so.
	it.window, it.direction, it.metric = "7d", "desc", pricing.MoversMetric
	switch {
	case has("today", "24h", "24 hours", "yesterday"):
		it.window = "1d"
	case has("month", "30 days", "30d"):
		it.window = "30d"
	case has("quarter", "90 days", "90d", "3 months"):
		it.window = "90d"
	case has("six months", "6 months", "180"):
		it.window = "180d"
	}
	if has("loser", "falling", "drop", "down", "worst", "declin") {
		it.direction = "asc"
	}
	switch {
	case has("volume"):
		it.metric = "volume_pct"
	case has("by price", "price change", "percent", "% "):
		it.metric = "price_pct"
	}
	switch {
	case has("japanese", " jp ", "japan"):
		it.language = "ja"
	case has("simplified chinese"):
		it.language = "zh-cn"
	case has("traditional chinese"):
		it.language = "zh-tw"
	case has("english"):
		it.language = "en"
	}
	g, rest, ok := snapshots.CutGrade(lower)
	if ok {
		it.grade = &g
		it.gradeSaid = strings.TrimSpace(snapshots.ReadWords(lower).GradeSaid)
	}
	var words []string
	for _, w := range wordRE.FindAllString(rest, -1) {
		w = strings.TrimRight(w, ".:/-'")
		if w != "" && !chatStopwords[w] {
			words = append(words, w)
		}
	}
	it.query = strings.Join(words, " ")
	return it
}

// money formats dollars as $1,234.50.
func money(v *float64) string {
	if v == nil {
		return "n/a"
	}
	s := strconv.FormatFloat(math.Abs(*v), 'f', 2, 64)
	whole, cents, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	sign := ""
	if *v < 0 {
		sign = "-"
	}
	return sign + "$" + b.String() + "." + cents
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// windowText says a trending window in words ("7d" -> "7 days").
func windowText(w string) string {
	if w == "1d" {
		return "day"
	}
	return strings.TrimSuffix(w, "d") + " days"
}

func signed(f float64) string {
	s := strconv.FormatFloat(f, 'f', 1, 64)
	if f > 0 {
		s = "+" + s
	}
	return s + "%"
}

// embedded answers one question with the tools.
func (c *Run) embedded(question string) error {
	it := parseIntent(question)
	if it.kind == "movers" {
		return c.answerMovers(it)
	}
	if it.query == "" {
		return c.say("Ask me about a card (\"what is a PSA 10 Charizard from Base worth?\", \"recent sales of Pikachu Neo Genesis\", \"price history of en:base1-4\") or the market (\"top movers this week\", \"biggest losers this month\").")
	}
	sq := map[string]any{"q": it.query, "limit": 3}
	if it.language != "" {
		sq["language"] = it.language
	}
	args, _ := json.Marshal(sq)
	res, terr, err := c.call("", "search", args)
	if err != nil {
		return err
	}
	var cards []resolve.Candidate
	var understood *resolve.Understood
	if terr == nil {
		cards, _ = res.(map[string]any)["cards"].([]resolve.Candidate)
		understood, _ = res.(map[string]any)["understood"].(*resolve.Understood)
	}
	if len(cards) == 0 {
		return c.say(fmt.Sprintf("I could not find a card matching %q. Try the card's name with its set (\"Charizard Base\") or its id (en:base1-4).", it.query))
	}
	card := cards[0]
	var others []string
	same := 0
	for _, o := range cards[1:] {
		others = append(others, fmt.Sprintf("%s (%s #%s, %s)", o.Name, o.SetName, o.Number, o.CardID))
		if index.FoldKey(o.Name) == index.FoldKey(card.Name) {
			same++
		}
	}
	// Say what the question was read as: the grade, printing, art and set
	// words (snapshots.ReadWords through the search tool).
	var said []string
	if it.grade != nil && it.gradeSaid != "" {
		said = append(said, fmt.Sprintf("%q as grade %s", it.gradeSaid, it.grade.Name()))
	}
	finish := ""
	if understood != nil {
		for _, x := range understood.Said {
			if k, v, ok := strings.Cut(x, ": "); ok {
				said = append(said, fmt.Sprintf("%q as %s", k, v))
			}
		}
		finish = understood.Finish
	}
	if len(said) > 0 {
		if err := c.say("I read " + joinAnd(said) + ". "); err != nil {
			return err
		}
	}
	if same > 0 && understood == nil {
		if err := c.say(fmt.Sprintf("Several cards are named %s; I took the best match, %s #%s. ", card.Name, card.SetName, card.Number)); err != nil {
			return err
		}
	}
	switch it.kind {
	case "sales":
		return c.answerSales(it, card, others)
	case "history":
		return c.answerHistory(it, card, others)
	}
	return c.answerQuote(it, card, finish, others)
}

// cardInGrade says a card in a grade: "A PSA 10 Charizard (Base #4,
// en:base1-4)", "Charizard (Base #4, en:base1-4) in Raw, near mint".
func cardInGrade(label string, g snapshots.Grade) string {
	if g.Raw() {
		return label + " in " + g.Name()
	}
	return "A " + g.Name() + " " + label
}

// joinAnd joins phrases as "a, b and c".
func joinAnd(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

func (c *Run) alsoMatched(others []string) error {
	if len(others) == 0 {
		return nil
	}
	return c.say("\nOther matches: " + strings.Join(others, "; ") + ".")
}

func (c *Run) answerQuote(it chatIntent, card resolve.Candidate, finish string, others []string) error {
	q := map[string]any{"ids": []string{card.CardID}}
	grade := snapshots.RawNearMint
	if it.grade != nil {
		grade = *it.grade
	}
	q["grade"] = grade.String()
	if finish != "" {
		if _, err := pricing.PrintingOf(&snapshots.Card{ID: card.CardID, Variants: card.Variants}, finish); err == nil {
			q["finish"] = finish
		}
	}
	args, _ := json.Marshal(q)
	res, terr, err := c.call("", "quote", args)
	if err != nil {
		return err
	}
	if terr != nil {
		return c.say("I could not quote " + card.Name + ": " + terr.Error())
	}
	quotes, _ := res.(map[string]any)["quotes"].([]pricing.QuoteResult)
	label := fmt.Sprintf("%s (%s #%s, %s)", card.Name, card.SetName, card.Number, card.CardID)
	if len(quotes) > 0 && quotes[0].Card != nil && len(quotes[0].Card.Variants) > 1 && quotes[0].Finish >= 0 {
		label += ", " + pricing.PrintingName(quotes[0].Card, quotes[0].Finish) + " printing,"
	}
	if len(quotes) == 0 || quotes[0].Price == nil {
		if err := c.say(fmt.Sprintf("I found %s, but it has no verified sale, price or listing in %s yet.", label, grade.Name())); err != nil {
			return err
		}
		return c.alsoMatched(others)
	}
	p := quotes[0].Price
	price := snapshots.USD(p.Cents)
	var text string
	switch {
	case p.Label == pricing.LabelMidprice && p.Origin.Field != "":
		text = fmt.Sprintf("%s is worth about %s: %s's %s price from its file of %s (a marketplace's market price, not a sale).",
			cardInGrade(label, grade), money(&price), pricing.SourceLabel(p.Origin.Source), p.Origin.Field, p.Day)
	case p.Label == pricing.LabelMidprice:
		sales, days := 0, estimate.Default.SampleDays
		if m := quotes[0].Mid; m != nil {
			sales, days = m.Sales, m.Window
		}
		text = fmt.Sprintf("%s is worth about %s: the midprice, our fmv as of %s, backed by %s in the last %d days.",
			cardInGrade(label, grade), money(&price), c.tools.src.AsOf, plural(sales, "verified "+grade.Name()+" sale", "verified "+grade.Name()+" sales"), days)
	case p.Label == pricing.LabelLast:
		text = fmt.Sprintf("%s last sold for %s on %s; there are too few recent sales for a midprice, so take it as a last trade, not a live price.",
			cardInGrade(label, grade), money(&price), p.Day)
	default:
		text = fmt.Sprintf("%s has no verified sales; the cheapest ask is %s (listed %s), an asking price, not a sale.",
			cardInGrade(label, grade), money(&price), p.Day)
	}
	if p.Origin.Synthetic {
		text += " (This snapshot's market data is synthetic: not a real price.)"
	}
	if err := c.say(text); err != nil {
		return err
	}
	// The 30-day move of that grade.
	hargs := map[string]any{"ids": []string{card.CardID}, "grade": grade.String(), "limit": 90}
	if f, ok := q["finish"]; ok {
		hargs["finish"] = f
	}
	args, _ = json.Marshal(hargs)
	hres, herr, err := c.call("", "get_prices", args)
	if err != nil {
		return err
	}
	if herr == nil {
		if rows, _ := hres.(map[string]any)["prices"].([]map[string]any); len(rows) > 0 {
			if ch, ok := rows[0]["change_pct"].(float64); ok {
				if err := c.say(fmt.Sprintf(" Its fmv moved %s from %s to %s.", signed(ch), rows[0]["from"], rows[0]["to"])); err != nil {
					return err
				}
			}
		}
	}
	if _, other := q["finish"]; grade != snapshots.RawNearMint && card.PriceUSD != nil && !other {
		if err := c.say(fmt.Sprintf(" For comparison, raw near-mint is %s.", money(card.PriceUSD))); err != nil {
			return err
		}
	}
	return c.alsoMatched(others)
}

func (c *Run) answerSales(it chatIntent, card resolve.Candidate, others []string) error {
	q := map[string]any{"ids": []string{card.CardID}, "limit": 5}
	if it.grade != nil {
		q["grade"] = it.grade.String()
	}
	args, _ := json.Marshal(q)
	res, terr, err := c.call("", "get_sales", args)
	if err != nil {
		return err
	}
	if terr != nil {
		return c.say("I could not read the sales of " + card.Name + ": " + terr.Error())
	}
	rows, _ := res.(map[string]any)["cards"].([]map[string]any)
	var sales []pricing.SaleRow
	if len(rows) > 0 {
		sales, _ = rows[0]["sales"].([]pricing.SaleRow)
	}
	if len(sales) == 0 {
		msg := fmt.Sprintf("No verified sales of %s (%s) in your history window.", card.Name, card.CardID)
		if ws, ok := res.(map[string]any)["window_start"].(string); ok {
			msg = fmt.Sprintf("No verified sales of %s (%s) since %s, the start of your tier's history window.", card.Name, card.CardID, ws)
		}
		return c.say(msg)
	}
	if err := c.say(fmt.Sprintf("Recent verified sales of %s (%s #%s, %s):", card.Name, card.SetName, card.Number, card.CardID)); err != nil {
		return err
	}
	for _, s := range sales {
		if err := c.say(fmt.Sprintf("\n- %s: %s, %s, %s (%s)", s.SaleDate, money(&s.PriceUSD), s.GradeName, s.Marketplace, strings.ReplaceAll(s.TradeType, "_", " "))); err != nil {
			return err
		}
	}
	return c.alsoMatched(others)
}

func (c *Run) answerHistory(it chatIntent, card resolve.Candidate, others []string) error {
	grade := snapshots.RawNearMint
	if it.grade != nil {
		grade = *it.grade
	}
	args, _ := json.Marshal(map[string]any{"ids": []string{card.CardID}, "grade": grade.String(), "limit": 30})
	res, terr, err := c.call("", "get_prices", args)
	if err != nil {
		return err
	}
	if terr != nil {
		return c.say("I could not read the prices of " + card.Name + ": " + terr.Error())
	}
	rows, _ := res.(map[string]any)["prices"].([]map[string]any)
	var pts []pricing.PointRow
	if len(rows) > 0 {
		pts, _ = rows[0]["points"].([]pricing.PointRow)
	}
	if len(pts) == 0 {
		return c.say(fmt.Sprintf("%s (%s) has no %s price points in your history window.", card.Name, card.CardID, grade.Name()))
	}
	first, last := pts[0], pts[len(pts)-1]
	var text string
	if len(pts) == 1 {
		text = fmt.Sprintf("%s (%s), %s: fmv %s, unchanged since %s.", card.Name, card.CardID, grade.Name(), money(&last.PriceUSD), last.Date)
	} else {
		text = fmt.Sprintf("%s (%s), %s: fmv %s on %s, %s on %s", card.Name, card.CardID, grade.Name(), money(&first.PriceUSD), first.Date, money(&last.PriceUSD), last.Date)
		if ch, ok := rows[0]["change_pct"].(float64); ok {
			text += " (" + signed(ch) + ")"
		}
		text += fmt.Sprintf(", over %s.", plural(len(pts), "price change", "price changes"))
	}
	if ws, ok := res.(map[string]any)["window_start"].(string); ok {
		text += fmt.Sprintf(" (Your tier's history window starts %s.)", ws)
	}
	if err := c.say(text); err != nil {
		return err
	}
	return c.alsoMatched(others)
}

func (c *Run) answerMovers(it chatIntent) error {
	lang := it.language
	if lang == "" {
		lang = "all"
	}
	args, _ := json.Marshal(map[string]any{"metric": it.metric, "window": it.window, "language": lang, "direction": it.direction, "limit": 5})
	res, terr, err := c.call("", "trending", args)
	if err != nil {
		return err
	}
	if terr != nil {
		return c.say("I could not read the movers: " + terr.Error())
	}
	m := res.(map[string]any)
	items, _ := m["items"].([]pricing.TrendingItem)
	what := map[string]string{"price_pct": "fmv change", "volume_pct": "sales volume change",
		"composite": "composite score (the fmv change weighted with the volume change and by the sales behind it, as the Movers page ranks)"}[it.metric]
	dir := "Top movers"
	if it.direction == "asc" {
		dir = "Biggest decliners"
	}
	floor := ""
	if usd, _ := m["min_price_usd"].(float64); usd > 0 {
		floor = fmt.Sprintf(", priced %s and up", money(&usd))
	}
	if len(items) == 0 {
		return c.say(fmt.Sprintf("No card%s has enough sales over the last %s to rank by %s.", floor, windowText(it.window), what))
	}
	if err := c.say(fmt.Sprintf("%s over the last %s by %s%s (as of %s):", dir, windowText(it.window), what, floor, m["as_of"])); err != nil {
		return err
	}
	for _, x := range items {
		value := signed(x.Value)
		if it.metric == "composite" {
			value = "score " + strings.TrimSuffix(value, "%")
		}
		line := fmt.Sprintf("\n%d. %s (%s, %s): %s", x.Rank, x.Name, x.Set.Name, x.CardID, value)
		if x.PriceUSD != nil {
			line += ", now " + money(x.PriceUSD)
		}
		if err := c.say(line); err != nil {
			return err
		}
	}
	return nil
}
