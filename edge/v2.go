package edge

import "github.com/cardedge/cardedge/pokemontcg"

// registerV2Routes adds pokemontcg.io's v2 API (package pokemontcg): its bodies (route.bare) and
// errors (errors.go), keyless or keyed by X-Api-Key (or Authorization), cached and charged as any route.
func (s *Server) registerV2Routes() {
	for i := range pokemontcg.Endpoints {
		e := &pokemontcg.Endpoints[i]
		var params []paramSpec
		for _, p := range e.Params {
			params = append(params, pStr(p.Name, p.MaxLen, p.Doc))
		}
		s.router.add(&route{method: "GET", pattern: e.Path, name: e.Name, summary: e.Summary, keyless: true, cacheable: true, bare: true,
			params: params, responses: e.Responses, handle: func(r *request) (any, error) {
				return pokemontcg.Serve(r.ctx, pokemontcg.Of(r.view()), r.snap.Index, e, pokemontcg.Request{ID: r.vars.v[0], Param: r.p.str, RowCap: r.limits.RowCap})
			}})
	}
}
