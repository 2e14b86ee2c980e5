package access

import "context"

type callerKey struct{}

// WithCaller returns ctx carrying the caller the edge authenticated, for the
// MCP tools behind the HTTP layer.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFromContext returns the caller stored by WithCaller.
func CallerFromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
