package edge

import (
	"encoding/json"
	"strings"
)

// route is one REST route: its pattern, contract, access rule, parameters
// and handler.
type route struct {
	method   string
	pattern  string // /api/v3/cards/{card_id}/sales
	segs     []string
	name     string // metrics label and cache-key part
	contract string
	// envelopeHead is `{"contract":"<contract>","data":`, made once.
	envelopeHead []byte
	summary      string
	keyless      bool // usable without a key (Playground)
	// chatToken routes also take a chat-user token (AuthenticateChat): the
	// agent chat. Every other route refuses one (401).
	chatToken bool
	cacheable bool
	hasGame   bool // takes the shared game parameter
	bare      bool // /v2: the payload is the body (no envelope); X-Api-Key keys it
	hasLimit  bool // has a limit parameter the Playground row cap lowers
	params    []paramSpec
	// handle returns the payload (data of the envelope).
	handle func(*request) (any, error)
	// raw, when set, writes the whole response itself (streams).
	raw func(*request)
	// uncharged routes are not charged by serveRoute (it authenticates
	// and validates): a raw one charges the caller itself after checks of
	// its own (bulk downloads: 304s are free, downloads have a limit of
	// their own), the others are free (the bulk listing and schemas).
	uncharged bool
	// responses, when set, makes the OpenAPI responses of a route whose
	// body is not a JSON envelope (bulk files, schemas) instead of the
	// envelope's; its recorded example (example.Responses) fills in the
	// examples of headers and JSON bodies.
	responses func() map[string]any
	// cost returns the quota units of the request (nil = 1); it may refuse
	// the request (batch caps) before anything is charged.
	cost func(*request) (int, error)
	// schema names the OpenAPI component of data; tag is the document's
	// tag of the route (its resource, set by registerRoutes).
	schema, tag string
	// internal routes (SQL, the chat UI's stream) are left out of the public
	// OpenAPI document.
	internal bool
	// bodyTypes are the request body media types of a POST route (nil =
	// application/json), for the OpenAPI document.
	bodyTypes []string
	// noBody marks a POST that takes no body (an action: roll, test).
	noBody bool
	// removed marks a withdrawn route (404 removed); replacement is the path
	// to use instead ("" = none).
	removed     bool
	replacement string
	static      int // number of static segments: the more, the more specific
	order       int // registration order: the first of equally specific routes wins
}

// maxPathVars bounds the {variables} of one pattern.
const maxPathVars = 4

// pathVars are a matched request's path variables in pattern order.
type pathVars struct {
	v [maxPathVars]string
	n int
}

func (p *pathVars) list() []string { return p.v[:p.n] }

// router matches method and path against the routes: a tree of path
// segments, static children beside one {variable} child, walked without
// allocating.
type router struct {
	routes []*route
	root   node
}

type node struct {
	static map[string]*node
	param  *node
	routes []*route // routes whose pattern ends here, in registration order
}

func newRouter() *router { return &router{} }

func (r *router) add(rt *route) {
	rt.segs = splitPath(rt.pattern)
	contract, _ := json.Marshal(rt.contract)
	rt.envelopeHead = []byte(`{"contract":` + string(contract) + `,"data":`)
	rt.order = len(r.routes)
	n := &r.root
	vars := 0
	for _, s := range rt.segs {
		if strings.HasPrefix(s, "{") {
			if vars++; vars > maxPathVars {
				panic("edge: too many path variables in " + rt.pattern)
			}
			if n.param == nil {
				n.param = &node{}
			}
			n = n.param
			continue
		}
		rt.static++
		if n.static == nil {
			n.static = map[string]*node{}
		}
		c := n.static[s]
		if c == nil {
			c = &node{}
			n.static[s] = c
		}
		n = c
	}
	n.routes = append(n.routes, rt)
	for i := range rt.params {
		rt.params[i].parseDefault()
	}
	for _, p := range rt.params {
		switch p.name {
		case "limit":
			rt.hasLimit = true
		}
	}
	r.routes = append(r.routes, rt)
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

// match returns the route for method and path with its path variables, or
// nil and the methods the path allows (for 405). Of the patterns matching
// the path, the one with the most static segments wins (then the first
// registered); HEAD is served by GET routes.
func (r *router) match(method, path string) (*route, pathVars, []string) {
	m := matcher{method: method}
	m.walk(&r.root, strings.Trim(path, "/"), false)
	if m.best != nil {
		return m.best, m.bestVars, nil
	}
	return nil, pathVars{}, m.allowed
}

// matcher is one walk of the tree.
type matcher struct {
	method   string
	vars     pathVars
	best     *route
	bestVars pathVars
	allowed  []string
}

// walk matches the segments of rest below n; done means every segment is
// consumed. Empty segments only match static empty segments (like the
// pattern "/").
func (m *matcher) walk(n *node, rest string, done bool) {
	if done {
		for _, rt := range n.routes {
			if rt.method != m.method && (rt.method != "GET" || m.method != "HEAD") {
				m.allowed = append(m.allowed, rt.method)
				continue
			}
			if m.best == nil || rt.static > m.best.static || (rt.static == m.best.static && rt.order < m.best.order) {
				m.best, m.bestVars = rt, m.vars
			}
		}
		return
	}
	seg, tail, more := strings.Cut(rest, "/")
	if c := n.static[seg]; c != nil {
		m.walk(c, tail, !more)
	}
	if n.param != nil && seg != "" {
		m.vars.v[m.vars.n] = seg
		m.vars.n++
		m.walk(n.param, tail, !more)
		m.vars.n--
	}
}
