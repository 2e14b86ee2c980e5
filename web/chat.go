package web

import (
	"encoding/json"
	"net/http"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/chattoken"
)

// The web chat (/dashboard/chat): a conversation with the market assistant
// over POST /api/v3/agent/chat, in the page. The page's script (chat.js)
// fetches a chat-user token (POST /dashboard/chat/token: the session, its
// CSRF token) and sends it as the Bearer credential of the chat's stream;
// it renews the token before it expires. Without JavaScript the page says
// what the chat does and how to reach the same assistant and tools with an
// API key.

// ChatTokens mints the web chat's tokens: *chattoken.Service.
type ChatTokens interface {
	Mint(account string, tier access.Tier) (chattoken.Token, error)
}

// Paths the chat page's script calls.
const (
	ChatAPIPath  = "/api/v3/agent/chat"
	MCPPath      = "/api/v3/mcp/"
	CardPagePath = Base + "/cards/" // + card id: the card pages
)

func (h *Handler) registerChatRoutes() {
	h.mux.HandleFunc("GET "+Base+"/chat", h.requireSession(h.handleChat))
	h.mux.HandleFunc("POST "+Base+"/chat/token", h.requireSession(h.handleChatToken))
}

type chatData struct {
	Tier       string
	Quota      string // the account's chat calls a day
	AppsAccess bool
	TokenURL   string
	ChatURL    string
	MCPURL     string
	CardBase   string
	Origin     string
	Enabled    bool // tokens can be minted (Options.ChatTokens)
}

func (h *Handler) handleChat(w http.ResponseWriter, r *http.Request, si signedIn) {
	t := si.account.Tier
	d := chatData{Tier: t.String(), Quota: formatInt(int64(access.LimitsOf(t).DailyQuota)), AppsAccess: access.AppsAccess(t),
		TokenURL: Base + "/chat/token", ChatURL: ChatAPIPath, MCPURL: MCPPath, CardBase: CardPagePath, Origin: h.origin(r),
		Enabled: h.opts.ChatTokens != nil}
	h.render(w, r, http.StatusOK, "chat", si.page("Chat", "chat", d))
}

// chatToken is the token endpoint's answer.
type chatToken struct {
	Token      string `json:"token"`
	ExpiresAt  string `json:"expires_at"`
	Tier       string `json:"tier"`
	AppsAccess bool   `json:"apps_access"`
	ChatURL    string `json:"chat_url"`
	MCPURL     string `json:"mcp_url"`
}

// handleChatToken mints a chat-user token for the session's account: JSON,
// never cached. The session's CSRF token (form field csrf) is required, as
// for every POST, so another site cannot obtain one.
func (h *Handler) handleChatToken(w http.ResponseWriter, r *http.Request, si signedIn) {
	w.Header().Set("Content-Type", "application/json")
	if h.opts.ChatTokens == nil {
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"error": "the web chat is not enabled on this server"})
		return
	}
	tok, err := h.opts.ChatTokens.Mint(si.account.ID, si.account.Tier)
	if err != nil {
		h.log.Error("web: minting a chat token", "account", si.account.ID, "err", err)
		w.WriteHeader(http.StatusInternalServerError)
		json.NewEncoder(w).Encode(map[string]string{"error": "cannot make a chat token; try again in a moment"})
		return
	}
	json.NewEncoder(w).Encode(chatToken{Token: tok.Value, ExpiresAt: tok.Expires.UTC().Format("2006-01-02T15:04:05Z"),
		Tier: si.account.Tier.String(), AppsAccess: access.AppsAccess(si.account.Tier), ChatURL: ChatAPIPath, MCPURL: MCPPath})
}
