package mcp

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"

	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

// The server's icons (serverInfo.icons, MCP 2025-11-25): the dashboard's
// favicon (a card on a blue ground) as data URIs, so that they need no
// public URL and no fetch: an SVG, and the same drawing as a 64x64 PNG,
// the format every host that shows icons must read (the SVG is a should).

// iconSVG is web/static/favicon.svg.
const iconSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="6" y="3" width="20" height="26" rx="3" fill="#1f5f8b"/>` +
	`<rect x="10" y="8" width="12" height="9" rx="1" fill="#f4c542"/><rect x="10" y="20" width="12" height="2" fill="#fff"/>` +
	`<rect x="10" y="24" width="8" height="2" fill="#fff"/></svg>`

// iconRect is one rectangle of the drawing, in the SVG's 32x32 units.
type iconRect struct {
	x, y, w, h, r float64
	c             color.NRGBA
}

var iconRects = []iconRect{
	{6, 3, 20, 26, 3, color.NRGBA{0x1f, 0x5f, 0x8b, 0xff}},
	{10, 8, 12, 9, 1, color.NRGBA{0xf4, 0xc5, 0x42, 0xff}},
	{10, 20, 12, 2, 0, color.NRGBA{0xff, 0xff, 0xff, 0xff}},
	{10, 24, 8, 2, 0, color.NRGBA{0xff, 0xff, 0xff, 0xff}},
}

// inside reports whether point (x, y) is inside the rounded rectangle.
func (q iconRect) inside(x, y float64) bool {
	if x < q.x || x >= q.x+q.w || y < q.y || y >= q.y+q.h {
		return false
	}
	// The corners: outside the quarter circles of radius r.
	cx := min(max(x, q.x+q.r), q.x+q.w-q.r)
	cy := min(max(y, q.y+q.r), q.y+q.h-q.r)
	dx, dy := x-cx, y-cy
	return dx*dx+dy*dy <= q.r*q.r
}

// iconPNG draws the icon at size x size pixels, each pixel the average of 4x4
// samples (smooth corners), later rectangles over earlier ones.
func iconPNG(size int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const n = 4
	scale := 32 / float64(size)
	for py := range size {
		for px := range size {
			var r, g, b, a float64
			for sy := range n {
				for sx := range n {
					x := (float64(px) + (float64(sx)+0.5)/n) * scale
					y := (float64(py) + (float64(sy)+0.5)/n) * scale
					for i := len(iconRects) - 1; i >= 0; i-- {
						if q := iconRects[i]; q.inside(x, y) {
							r, g, b, a = r+float64(q.c.R), g+float64(q.c.G), b+float64(q.c.B), a+1
							break
						}
					}
				}
			}
			if a == 0 {
				continue
			}
			// Colour averaged over the covered samples, alpha the coverage.
			img.SetNRGBA(px, py, color.NRGBA{uint8(r/a + 0.5), uint8(g/a + 0.5), uint8(b/a + 0.5), uint8(255*a/(n*n) + 0.5)})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("mcp: encoding the icon: " + err.Error()) // in-memory: cannot fail
	}
	return buf.Bytes()
}

// icons are the server's icons: the PNG first (what every host reads), then
// the SVG.
func icons() []mcpproto.Icon {
	return []mcpproto.Icon{
		{Src: "data:image/png;base64," + base64.StdEncoding.EncodeToString(iconPNG(64)), MIMEType: "image/png", Sizes: []string{"64x64"}},
		{Src: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(iconSVG)), MIMEType: "image/svg+xml", Sizes: []string{"any"}},
	}
}
