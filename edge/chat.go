package edge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cardedge/cardedge/edge/resolve"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// POST /api/v3/agent/chat streams an agent's answer as server-sent events
// for the web chat UI. The embedded agent (no model) reads the question,
// calls the chat tools (chattools.go) and writes its answer; with
// Options.LLMURL an OpenAI-compatible model answers instead, with the same
// tools (llm.go). Either way the stream is:
//
//	event: start        {chat_id, agent, model, game, snapshot_id, as_of}
//	event: tool_call    {call_id, name, arguments}
//	event: tool_result  {call_id, name, ok, result | error}
//	event: token        {text}               the answer, token by token
//	event: error        {code, message}      then end
//	event: end          {finish_reason, text, tokens, tool_calls, elapsed_ms}
//
// Every event has an id (1, 2, ...) and one JSON data line; end is always
// the last event. Each event is flushed as it is written.

// chat limits.
const (
	chatMaxMessages = 50
	chatMaxChars    = 4000
	chatMaxRounds   = 6 // model turns (tool rounds) per chat
)

func (s *Server) registerChatRoutes() {
	s.router.add(&route{method: "POST", pattern: "/api/v3/agent/chat", name: "agent_chat", contract: "agent-chat.v1", hasGame: true, internal: true,
		summary: "Agent chat for the web chat UI: server-sent events (start, tool_call, tool_result, token, error, end)",
		params:  []paramSpec{gameParam()},
		cost:    chatCost, raw: s.handleChat})
}

// chatMessage is one turn of the conversation (OpenAI's shape).
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatBody struct {
	Message  string        `json:"message"`
	Messages []chatMessage `json:"messages"`
}

// parseChat reads {"message": "..."} or {"messages": [{role, content}, ...]}
// (user and assistant turns; the last must be the user's).
func parseChat(body []byte) ([]chatMessage, error) {
	var b chatBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, validationErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"message\": \"...\"} or {\"messages\": [{\"role\": \"user\", \"content\": \"...\"}]}: " + err.Error(), Type: "json_invalid"}}
	}
	msgs := b.Messages
	if b.Message != "" {
		msgs = append(msgs, chatMessage{Role: "user", Content: b.Message})
	}
	var verrs validationErrors
	if len(msgs) == 0 {
		verrs = append(verrs, validationError{Loc: []any{"body", "message"}, Msg: "Field required: send message (or messages)", Type: "missing"})
	}
	if len(msgs) > chatMaxMessages {
		verrs = append(verrs, validationError{Loc: []any{"body", "messages"}, Msg: fmt.Sprintf("at most %d messages", chatMaxMessages), Type: "too_long"})
	}
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			verrs = append(verrs, validationError{Loc: []any{"body", "messages", i, "role"}, Msg: "Input should be 'user' or 'assistant'", Type: "enum", Input: m.Role})
		}
		if n := utf8.RuneCountInString(m.Content); n == 0 || n > chatMaxChars {
			verrs = append(verrs, validationError{Loc: []any{"body", "messages", i, "content"}, Msg: fmt.Sprintf("content must be 1 to %d characters", chatMaxChars), Type: "string_too_long"})
		}
	}
	if len(verrs) == 0 && msgs[len(msgs)-1].Role != "user" {
		verrs = append(verrs, validationError{Loc: []any{"body", "messages"}, Msg: "the last message must be the user's", Type: "value_error"})
	}
	if len(verrs) > 0 {
		return nil, verrs
	}
	return msgs, nil
}

// chatCost refuses bad bodies before anything is charged; a chat costs one
// unit whatever the tools it calls.
func chatCost(r *request) (int, error) {
	if _, err := parseChat(r.body); err != nil {
		return 0, err
	}
	return 1, nil
}

// sse writes server-sent events, one flush per event.
type sse struct {
	w   *bufio.Writer
	seq int
	err error // the first write error (the client left)
}

func (e *sse) send(event string, v any) error {
	if e.err != nil {
		return e.err
	}
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"code": "internal", "message": "cannot encode event"})
		event = "error"
	}
	e.seq++
	e.w.WriteString("id: ")
	e.w.WriteString(strconv.Itoa(e.seq))
	e.w.WriteString("\nevent: ")
	e.w.WriteString(event)
	e.w.WriteString("\ndata: ")
	e.w.Write(data)
	e.w.WriteString("\n\n")
	e.err = e.w.Flush()
	return e.err
}

// chatRun is one streaming chat: the events written so far and the tools.
type chatRun struct {
	ctx       context.Context
	out       *sse
	tools     *chatTools
	text      strings.Builder
	tokens    int
	toolCalls int
}

var tokenRE = regexp.MustCompile(`\s*\S+\s*`)

// say streams text token by token (a word with its surrounding space).
func (c *chatRun) say(text string) error {
	for _, tok := range tokenRE.FindAllString(text, -1) {
		if err := c.token(tok); err != nil {
			return err
		}
	}
	return nil
}

func (c *chatRun) token(tok string) error {
	if tok == "" {
		return nil
	}
	if err := c.ctx.Err(); err != nil {
		return err
	}
	c.text.WriteString(tok)
	c.tokens++
	return c.out.send("token", map[string]string{"text": tok})
}

// call runs a tool with tool_call and tool_result events; a tool's failure
// is its result (ok false), not the chat's.
func (c *chatRun) call(id, name string, args json.RawMessage) (any, error, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	c.toolCalls++
	if id == "" {
		id = "call_" + strconv.Itoa(c.toolCalls)
	}
	var shown any = args
	if !json.Valid(args) {
		shown = string(args)
	}
	if err := c.out.send("tool_call", map[string]any{"call_id": id, "name": name, "arguments": shown}); err != nil {
		return nil, nil, err
	}
	res, terr := c.tools.run(name, args)
	ev := map[string]any{"call_id": id, "name": name, "ok": terr == nil}
	if terr != nil {
		ev["error"] = terr.Error()
	} else {
		ev["result"] = res
	}
	if err := c.out.send("tool_result", ev); err != nil {
		return nil, nil, err
	}
	return res, terr, nil
}

func newChatID() string {
	b := make([]byte, 9)
	rand.Read(b)
	return "chat_" + base64.RawURLEncoding.EncodeToString(b)
}

func (s *Server) handleChat(r *request) {
	msgs, err := parseChat(r.body)
	if err != nil {
		s.writeError(r.ctx, err)
		return
	}
	// The stream outlives this handler: hold a snapshot reference of its own.
	snap := s.live.acquire()
	tools := &chatTools{snap: snap, game: r.game, tier: r.caller.Tier}
	agent, model := "embedded", "cardedge-embedded"
	if s.llm != nil {
		agent, model = "llm", s.llm.model
	}
	timeout := max(5*time.Second, s.opts.WriteTimeout-time.Second)
	start := map[string]any{"chat_id": newChatID(), "agent": agent, "model": model, "game": r.game,
		"snapshot_id": snap.Manifest().SnapshotID, "as_of": snap.AsOf.String()}
	h := &r.ctx.Response.Header
	h.SetContentType("text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-store")
	h.Set("X-Accel-Buffering", "no")
	r.ctx.SetStatusCode(200)
	log := s.log
	r.ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer snap.release()
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		run := &chatRun{ctx: ctx, out: &sse{w: w}, tools: tools}
		// The stream runs on its own goroutine, outside the server's
		// recovery: a panic here would end the process.
		defer func() {
			if p := recover(); p != nil {
				log.Error("agent chat panicked", "panic", p, "stack", string(debug.Stack()))
				run.out.send("error", map[string]string{"code": "internal", "message": "the agent failed"})
				run.out.send("end", map[string]any{"finish_reason": "error", "text": run.text.String(), "tokens": run.tokens,
					"tool_calls": run.toolCalls, "elapsed_ms": time.Since(began).Milliseconds()})
			}
		}()
		if run.out.send("start", start) != nil {
			return
		}
		var err error
		if agent == "llm" {
			err = s.llmChat(run, msgs)
		} else {
			err = run.embedded(msgs[len(msgs)-1].Content)
		}
		reason := "stop"
		if err != nil {
			if run.out.err != nil {
				return // the client left
			}
			reason = "error"
			code, msg := "internal", "the agent failed"
			switch {
			case ctx.Err() != nil:
				code, msg = "timeout", fmt.Sprintf("the chat exceeded its %s time limit", timeout)
			case snapshots.ErrorCode(err) != snapshots.EINTERNAL:
				code, msg = snapshots.ErrorCode(err), snapshots.ErrorMessage(err)
			case isLLMError(err):
				code, msg = "llm_unavailable", err.Error()
			}
			log.Error("agent chat failed", "err", err)
			run.out.send("error", map[string]string{"code": code, "message": msg})
		}
		run.out.send("end", map[string]any{"finish_reason": reason, "text": run.text.String(), "tokens": run.tokens,
			"tool_calls": run.toolCalls, "elapsed_ms": time.Since(began).Milliseconds()})
	})
}

// ---- the embedded agent ----

// chatIntent is what the embedded agent understood of a question.
type chatIntent struct {
	kind      string // quote, movers, sales, history
	query     string // the card words
	grade     *snapshots.Grade
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
		english japanese chinese version edition language lately been has have was were`) {
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
	it.window, it.direction, it.metric = "7d", "desc", "price_pct"
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
	if has("volume") {
		it.metric = "volume_pct"
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
func (c *chatRun) embedded(question string) error {
	it := parseIntent(question)
	if it.kind == "movers" {
		return c.answerMovers(it)
	}
	if it.query == "" {
		return c.say("Ask me about a card (\"what is a slab 10 Charizard from Base worth?\", \"recent sales of Pikachu Neo Genesis\", \"price history of en:base1-4\") or the market (\"top movers this week\", \"biggest losers this month\").")
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
	if terr == nil {
		cards, _ = res.(map[string]any)["cards"].([]resolve.Candidate)
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
	if same > 0 {
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
	return c.answerQuote(it, card, others)
}

func (c *chatRun) alsoMatched(others []string) error {
	if len(others) == 0 {
		return nil
	}
	return c.say("\nOther matches: " + strings.Join(others, "; ") + ".")
}

func (c *chatRun) answerQuote(it chatIntent, card resolve.Candidate, others []string) error {
	q := map[string]any{"ids": []string{card.CardID}}
	grade := snapshots.RawNearMint
	if it.grade != nil {
		grade = *it.grade
	}
	q["grade"] = grade.String()
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
	if len(quotes) == 0 || quotes[0].Price == nil {
		if err := c.say(fmt.Sprintf("I found %s, but it has no verified sale, price or listing in %s yet.", label, grade)); err != nil {
			return err
		}
		return c.alsoMatched(others)
	}
	p := quotes[0].Price
	price := snapshots.USD(p.Cents)
	var text string
	switch p.Label {
	case pricing.LabelMidprice:
		sales, days := 0, pricing.MidWindowDays
		if m := quotes[0].Mid; m != nil {
			sales, days = m.Sales, m.Window
		}
		text = fmt.Sprintf("A %s %s is worth about %s: the midprice, our fmv as of %s, backed by %s in the last %d days.",
			grade, label, money(&price), c.tools.snap.AsOf, plural(sales, "verified "+grade.String()+" sale", "verified "+grade.String()+" sales"), days)
	case pricing.LabelLast:
		text = fmt.Sprintf("%s in %s last sold for %s on %s; there are too few recent sales for a midprice, so take it as a last trade, not a live price.",
			label, grade, money(&price), p.Day)
	default:
		text = fmt.Sprintf("%s in %s has no verified sales; the cheapest ask is %s (listed %s), an asking price, not a sale.",
			label, grade, money(&price), p.Day)
	}
	if err := c.say(text); err != nil {
		return err
	}
	// The 30-day move of that grade.
	args, _ = json.Marshal(map[string]any{"ids": []string{card.CardID}, "grade": grade.String(), "limit": 90})
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
	if grade != snapshots.RawNearMint && card.PriceUSD != nil {
		if err := c.say(fmt.Sprintf(" For comparison, raw near-mint is %s.", money(card.PriceUSD))); err != nil {
			return err
		}
	}
	return c.alsoMatched(others)
}

func (c *chatRun) answerSales(it chatIntent, card resolve.Candidate, others []string) error {
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
		if err := c.say(fmt.Sprintf("\n- %s: %s, %s, %s (%s)", s.SaleDate, money(&s.PriceUSD), s.Grade, s.Marketplace, s.TradeType)); err != nil {
			return err
		}
	}
	return c.alsoMatched(others)
}

func (c *chatRun) answerHistory(it chatIntent, card resolve.Candidate, others []string) error {
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
		return c.say(fmt.Sprintf("%s (%s) has no %s price points in your history window.", card.Name, card.CardID, grade))
	}
	first, last := pts[0], pts[len(pts)-1]
	var text string
	if len(pts) == 1 {
		text = fmt.Sprintf("%s (%s) in %s: fmv %s, unchanged since %s.", card.Name, card.CardID, grade, money(&last.PriceUSD), last.Date)
	} else {
		text = fmt.Sprintf("%s (%s) in %s: fmv %s on %s, %s on %s", card.Name, card.CardID, grade, money(&first.PriceUSD), first.Date, money(&last.PriceUSD), last.Date)
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

func (c *chatRun) answerMovers(it chatIntent) error {
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
	items, _ := m["items"].([]trendingItem)
	what := map[string]string{"price_pct": "fmv change", "volume_pct": "sales volume change"}[it.metric]
	dir := "Top movers"
	if it.direction == "asc" {
		dir = "Biggest decliners"
	}
	if len(items) == 0 {
		return c.say(fmt.Sprintf("No card has enough sales over the last %s to rank by %s.", windowText(it.window), what))
	}
	if err := c.say(fmt.Sprintf("%s over the last %s by %s (as of %s):", dir, windowText(it.window), what, m["as_of"])); err != nil {
		return err
	}
	for _, x := range items {
		line := fmt.Sprintf("\n%d. %s (%s, %s): %s", x.Rank, x.Name, x.Set.Name, x.CardID, signed(x.Value))
		if x.PriceUSD != nil {
			line += ", now " + money(x.PriceUSD)
		}
		if err := c.say(line); err != nil {
			return err
		}
	}
	return nil
}

// trimJSON bounds a tool result handed to a model.
func trimJSON(v any, limit int) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `{"error":"cannot encode the result"}`
	}
	b := bytes.TrimSpace(buf.Bytes())
	if len(b) > limit {
		return string(b[:limit]) + "... (truncated)"
	}
	return string(b)
}
