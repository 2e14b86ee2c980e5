package edge

import (
	"strings"
)

// route is one REST route: its pattern, contract, access rule, parameters
// and handler.
type route struct {
	method    string
	pattern   string // /api/v3/cards/{card_id}/sales
	segs      []string
	name      string // metrics label and cache-key part
	contract  string
	summary   string
	keyless   bool // usable without a key (Playground)
	cacheable bool
	hasGame   bool // takes the shared game parameter
	hasLimit  bool // has a limit parameter the Playground row cap lowers
	params    []paramSpec
	// handle returns the payload (data of the envelope).
	handle func(*request) (any, error)
	// raw, when set, writes the whole response itself (streams).
	raw func(*request)
	// cost returns the quota units of the request (nil = 1); it may refuse
	// the request (batch caps) before anything is charged.
	cost func(*request) (int, error)
	// schema names the OpenAPI component of data.
	schema string
	// internal routes (SQL, the chat UI's stream) are left out of the public
	// OpenAPI document.
	internal bool
	// bodyTypes are the request body media types of a POST route (nil =
	// application/json), for the OpenAPI document.
	bodyTypes []string
	// removed marks a withdrawn route (404 removed); replacement is the path
	// to use instead ("" = none).
	removed     bool
	replacement string
	static      int // number of static segments: the more, the more specific
}

// router matches method and path against the routes.
type router struct {
	routes []*route
}

func newRouter() *router { return &router{} }

func (r *router) add(rt *route) {
	rt.segs = splitPath(rt.pattern)
	for _, s := range rt.segs {
		if !strings.HasPrefix(s, "{") {
			rt.static++
		}
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
// nil and the methods the path allows (for 405).
func (r *router) match(method, path string) (*route, []string, []string) {
	segs := splitPath(path)
	var allowed []string
	var best *route
	var bestVars []string
	for _, rt := range r.routes {
		if len(rt.segs) != len(segs) || (best != nil && rt.static <= best.static) {
			continue
		}
		var vars []string
		if !matchPattern(rt.segs, segs, &vars) {
			continue
		}
		if rt.method == method || (rt.method == "GET" && method == "HEAD") {
			best, bestVars = rt, vars
			continue
		}
		allowed = append(allowed, rt.method)
	}
	if best != nil {
		return best, bestVars, nil
	}
	return nil, nil, allowed
}

// matchPattern matches path segments against pattern segments, collecting
// {variables} into vars (when not nil). Static segments win: a pattern only
// matches when every static segment is equal.
func matchPattern(pattern, segs []string, vars *[]string) bool {
	if len(pattern) != len(segs) {
		return false
	}
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" {
				return false
			}
			if vars != nil {
				*vars = append(*vars, segs[i])
			}
			continue
		}
		if p != segs[i] {
			return false
		}
	}
	return true
}
