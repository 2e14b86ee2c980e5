package mcp_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/mcp/mcptest"
)

// What a host shows of the server (hostEnv, resources_test.go): serverInfo
// with its title and icons, the capabilities, the protocol versions
// negotiated, and a title on every tool.

func TestServer_Initialize(t *testing.T) {
	e := mustHostEnv(t)

	// initialize answers the client's version when mcp-go knows it and it
	// has the handshake, else the latest that has: 2025-11-25 (2026-07-28
	// clients skip initialize).
	t.Run("ProtocolVersions", func(t *testing.T) {
		for _, tc := range []struct{ asked, want string }{
			{"2024-11-05", "2024-11-05"},
			{"2025-03-26", "2025-03-26"},
			{"2025-06-18", "2025-06-18"},
			{"2025-11-25", "2025-11-25"},
			{"2026-07-28", "2025-11-25"},
			{"2031-01-01", "2025-11-25"},
		} {
			if s := e.session(t, e.keys[access.Elite], tc.asked); s.version != tc.want {
				t.Errorf("asked %s, negotiated %s, want %s", tc.asked, s.version, tc.want)
			}
		}
	})

	t.Run("ServerInfo", func(t *testing.T) {
		r := e.post(t, e.keys[access.Elite], "", "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
			"params": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
		var res struct {
			ServerInfo struct {
				Name, Version, Title, Description, WebsiteURL string
				Icons                                         []struct {
					Src, MIMEType string
					Sizes         []string
				}
			} `json:"serverInfo"`
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("initialize: %v: %s", err, r.body)
		}
		si := res.ServerInfo
		if si.Name != cardmcp.Name || si.Version != cardmcp.Version || si.Title != cardmcp.Title || si.Description == "" ||
			si.WebsiteURL != "https://cardedge.example/dashboard" || len(si.Icons) != 2 {
			t.Fatalf("serverInfo: %+v", si)
		}
		pngIcon, svgIcon := si.Icons[0], si.Icons[1]
		b64, ok := strings.CutPrefix(pngIcon.Src, "data:image/png;base64,")
		raw, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil || pngIcon.MIMEType != "image/png" || len(pngIcon.Sizes) != 1 || pngIcon.Sizes[0] != "64x64" {
			t.Fatalf("PNG icon: %+v (%v)", pngIcon, err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 64 {
			t.Errorf("PNG icon does not decode to 64x64: %v %v", err, img)
		} else if _, _, _, a := img.At(32, 32).RGBA(); a == 0 {
			t.Errorf("PNG icon is blank at its centre")
		}
		b64, ok = strings.CutPrefix(svgIcon.Src, "data:image/svg+xml;base64,")
		raw, err = base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil || svgIcon.MIMEType != "image/svg+xml" || !bytes.HasPrefix(raw, []byte("<svg ")) {
			t.Errorf("SVG icon: %+v", svgIcon)
		}
		for _, c := range []string{"tools", "resources", "prompts"} {
			if _, ok := res.Capabilities[c]; !ok {
				t.Errorf("capabilities without %s: %v", c, res.Capabilities)
			}
		}
		// No subscriptions, no list_changed notifications: there is no
		// server-to-client stream.
		if c := string(res.Capabilities["resources"]); c != "{}" {
			t.Errorf("resources capability %s, want {}", c)
		}
		for _, c := range []string{"logging", "completions", "tasks", "sampling", "elicitation"} {
			if _, ok := res.Capabilities[c]; ok {
				t.Errorf("capability %s declared: %s", c, res.Capabilities[c])
			}
		}
	})

	// Every tool, public and chat, has a title, also as annotations.title.
	t.Run("ToolTitles", func(t *testing.T) {
		var res struct {
			Tools []struct {
				Name, Title string
				Annotations struct{ Title string }
			}
		}
		e.session(t, appPro, "2025-11-25").call("tools/list", nil, &res)
		if want := len(mcptest.PublicTools) + len(mcptest.ChatTools); len(res.Tools) != want {
			t.Errorf("%d tools listed to the chat tools' caller, want %d", len(res.Tools), want)
		}
		for _, tool := range res.Tools {
			if tool.Title == "" || tool.Annotations.Title != tool.Title {
				t.Errorf("tool %s: title %q, annotations.title %q", tool.Name, tool.Title, tool.Annotations.Title)
			}
		}
	})
}
