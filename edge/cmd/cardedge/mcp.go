package main

import (
	"log/slog"
	"net/http"

	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/edge/access"
)

// newMCP builds the MCP server mounted at /api/v3/mcp/ (nil: not mounted).
func newMCP(srv *edge.Server, acc *access.Service, log *slog.Logger) http.Handler { return nil }
