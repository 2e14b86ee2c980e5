// Package cardedgeclient is a Go client of the cardedge REST API, generated
// by oapi-codegen v2.8.2 from the OpenAPI 3.1 document the server publishes
// (GET /api/v3/openapi.json; the copy in edge/testdata/openapi.json).
//
//	c, err := cardedgeclient.NewClientWithResponses("http://127.0.0.1:8080",
//		cardedgeclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
//			r.Header.Set("Authorization", "Bearer "+key)
//			return nil
//		}))
//	include := "market_summary"
//	res, err := c.CardGetWithResponse(ctx, "en:base1-4", &cardedgeclient.CardGetParams{Include: &include})
//	// res.JSON200.Data is a cardedgeclient.Card; res.JSON404 an ErrorV1.
//
// Method names are the document's operationIds (the routes' names in
// lowerCamelCase) with a capital: cardsList -> CardsList and
// CardsListWithResponse. A value that may be null is a pointer. The file
// client.gen.go is generated: do not edit it; make golden regenerates it
// (go generate) after the document changes, and
// TestClients_GoUpToDate fails when openapi.sha256 is not the digest of
// the document it was generated from.
package cardedgeclient

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../edge/testdata/openapi.json
//go:generate sh -c "sha256sum ../../edge/testdata/openapi.json | cut -c1-64 > openapi.sha256"
