package edge

import (
	"github.com/cardedge/cardedge/collection"
)

// Collection imports (package collection): POST /api/v3/me/imports/preview
// takes a collection as CSV or JSON rows, resolves every row to a card (or
// ambiguous candidates, or unmatched with a reason), values it and keeps the
// preview in the state store for 24 hours under a preview id; POST
// /api/v3/me/imports/confirm with that id adds the resolved rows to the
// caller's collection (its account's, or a key's without one), once (a second confirm answers already_confirmed and
// stores nothing).

// The payloads are the collection package's (the OpenAPI schemas reflect
// them under these names).
type (
	previewPayload = collection.Preview
	confirmPayload = collection.Confirmation
)

func (s *Server) registerImportRoutes() {
	s.router.add(&route{method: "POST", pattern: "/api/v3/me/imports/preview", name: "imports_preview", contract: "import-preview.v1", hasGame: true,
		summary: "Preview a collection upload (CSV or JSON rows): each row resolved, valued, and kept 24 h under a preview id", schema: "ImportPreview",
		bodyTypes: []string{"text/csv", "application/json"},
		params: []paramSpec{
			pBool("strict", "false", "true: any invalid row makes the whole upload a 422 naming each row and column; false: invalid rows are reported and skipped."),
			gameParam(),
		},
		cost: importPreviewCost, handle: s.handleImportPreview})
	s.router.add(&route{method: "POST", pattern: "/api/v3/me/imports/confirm", name: "imports_confirm", contract: "import-confirm.v1",
		summary: "Confirm a preview: store its resolved rows in the key's collection (idempotent)", schema: "ImportConfirm",
		handle: s.handleImportConfirm})
}

// importPreviewCost reads the upload before anything is charged (bad files
// and oversized ones cost nothing): one unit per started 100 rows.
func importPreviewCost(r *request) (int, error) {
	return collection.Cost(r.body, string(r.ctx.Request.Header.ContentType()))
}

func (s *Server) handleImportPreview(r *request) (any, error) {
	return s.collections.Preview(r.ctx, r.view(), collection.PreviewRequest{Owner: s.owner(r), Game: r.game,
		Body: r.body, ContentType: string(r.ctx.Request.Header.ContentType()), Strict: r.p.flag("strict")})
}

func (s *Server) handleImportConfirm(r *request) (any, error) {
	req, err := collection.ParseConfirm(r.body)
	if err != nil {
		return nil, err
	}
	return s.collections.Confirm(r.ctx, r.view(), s.owner(r), req)
}

// owner is whose collection a keyed call acts on: the key's account's when
// it has one, else the key's own.
func (s *Server) owner(r *request) collection.Owner {
	k, _ := s.access.Key(r.caller.KeyID)
	return collection.KeyOwner(r.caller.KeyID, k.Account)
}
