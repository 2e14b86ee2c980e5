// Package openapi builds the REST API's OpenAPI 3.1 document from
// operations described as data (Operation: method, path, query parameters,
// security, the envelope's contract and the Go type of its data, or
// responses of its own, request body types, recorded examples). It knows
// no transport: the edge turns its route table into operations, so that
// the document is read off what the server validates and cannot drift from
// it, and serves the result.
//
// What it decides:
//
//   - operationId: the route's name in lowerCamelCase (OperationID),
//     card_price_history -> cardPriceHistory; a client generated from the
//     document keeps its method names as long as the route keeps its name;
//   - parameters: every {variable} of the path (a string of at most 128
//     characters), then the query parameters (Param) with their bounds and
//     their defaults in the parameter's type;
//   - responses: the envelope {contract, data} of a 200, the error.v1 and
//     HTTPValidationError (422) bodies of the errors, a default response;
//     or an operation's own Responses (bulk files, /v2's bodies), to which
//     the recorded example adds its headers' and JSON bodies' values;
//     a request body adds 413;
//   - schemas: read off the Go type of each operation's payload by package
//     jsonschema, every named struct type a component (client generators
//     make one type of each), named by the operation's Schema when it is an
//     operation's payload, else by its Go name with the first letter
//     upper-cased (its package's name before it when two packages have a
//     type of that name); a generic page is a component of the operation's
//     Schema; a value that may be null has a list of types;
//   - examples: a recorded exchange (Example, the format of the files that
//     hold them) on the tiny test snapshot and, for some, on the sources'
//     fixtures;
//   - the info, the tags of the resources (Tags) and the security schemes
//     (bearer; apiKey, X-Api-Key, for /v2).
//
// It imports jsonschema and the standard library.
//
// # Caveats
//
// Build adds the default response and the recorded examples to an
// operation's Responses maps: make new ones for each document. Component
// names follow the order of the operations (the first type to take a name
// keeps it), so the same operations in another order may name a shared
// type differently.
package openapi
