package edge

import (
	"embed"
	"encoding/json"
	"net"
	"path"
	"reflect"
	"strings"

	"github.com/cardedge/cardedge/openapi"
	"github.com/cardedge/cardedge/pokemontcg"
)

// The OpenAPI document (package openapi; info.version APIVersion) is built
// from the route table, so that it cannot drift from what the server
// validates: every public route (not internal, not removed) is an
// operation with its parameters as the router parses them, its tag (the
// register function that added it: registerRoutes), the Go type of its
// payload (payloadTypes) under its schema name, its responses when its body
// is not an envelope (route.responses) and its recorded examples,
// edge/testdata/examples/<route>.json, written by TestOpenAPI_Examples
// (make golden) and embedded in the binary. servers is Options.PublicURL,
// or the address the server listens on.
//
// edge/testdata/openapi.json is the document as served with PublicURL
// http://127.0.0.1:8080 (TestOpenAPI_Document compares; make golden
// rewrites it); make lint runs Redocly's recommended rules on it.

//go:embed testdata/examples/*.json testdata/examples/sources/*.json
var exampleFiles embed.FS

// recordedExample returns a route's example recorded in a directory of
// testdata/examples ("" on the tiny snapshot, sources on one built from the
// sources' fixtures), nil when none.
func recordedExample(dir, name string) *openapi.Example {
	b, err := exampleFiles.ReadFile(path.Join("testdata/examples", dir, name+".json"))
	if err != nil {
		return nil
	}
	var ex openapi.Example
	if err := json.Unmarshal(b, &ex); err != nil {
		panic("edge: example of " + name + ": " + err.Error())
	}
	return &ex
}

// publicRoute reports whether a route is in the document.
func publicRoute(rt *route) bool {
	return !rt.removed && !rt.internal && rt.name != "openapi"
}

// serverURL is the document's server: PublicURL, else the listening
// address (http), else "/" (the document's own origin: a client resolves it
// against the URL it fetched the document from). The request's Host header
// is never used: it is the client's to choose, and a shared cache in front
// would hand a forged one to everybody.
func (s *Server) serverURL() (url, description string) {
	if u := strings.TrimRight(s.opts.PublicURL, "/"); u != "" {
		return u, "This server (its public URL)"
	}
	if a, _ := s.listenAddr.Load().(string); a != "" {
		if host, _, err := net.SplitHostPort(a); err == nil {
			if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
				return "http://" + a, "This server (the address it listens on; serve with --public-url to publish another)"
			}
		}
	}
	return "/", "This server (the origin the document was fetched from)"
}

// openAPI builds the document.
func (s *Server) openAPI() map[string]any {
	d := openapi.Document{Version: APIVersion, Schemas: pokemontcg.Schemas()} // the /v2 routes' bodies (route.responses refers to them)
	d.ServerURL, d.ServerDescription = s.serverURL()
	for _, rt := range s.router.routes {
		if publicRoute(rt) {
			d.Operations = append(d.Operations, operation(rt))
		}
	}
	return openapi.Build(d)
}

// paramTypes are the document's types of the router's parameter kinds.
var paramTypes = map[paramKind]openapi.ParamType{kString: openapi.String, kInt: openapi.Integer, kFloat: openapi.Number,
	kBool: openapi.Boolean, kEnum: openapi.Enum, kDate: openapi.Date}

// operation describes a public route.
func operation(rt *route) openapi.Operation {
	op := openapi.Operation{Method: rt.method, Path: rt.pattern, Name: rt.name, Summary: rt.summary, Tag: rt.tag,
		Keyless: rt.keyless, APIKey: rt.bare, Contract: rt.contract, Schema: rt.schema,
		Example: recordedExample("", rt.name), SourcesExample: recordedExample("sources", rt.name)}
	for _, p := range rt.params {
		op.Params = append(op.Params, openapi.Param{Name: p.name, Description: p.doc, Type: paramTypes[p.kind], MaxLength: p.maxLen, Enum: p.enum,
			Min: p.min, Max: p.max, HasMin: p.hasMin, HasMax: p.hasMax, Default: p.def, Extension: p.extension})
	}
	if v, ok := payloadTypes[rt.name]; ok {
		op.Payload = reflect.TypeOf(v)
	}
	if rt.responses != nil {
		op.Responses = rt.responses()
	}
	if (rt.method == "POST" || rt.method == "PUT") && !rt.noBody {
		if op.BodyTypes = rt.bodyTypes; op.BodyTypes == nil {
			op.BodyTypes = []string{"application/json"}
		}
	}
	return op
}
