package main

import (
	"github.com/cardedge/cardedge/agent"
	"github.com/cardedge/cardedge/agent/openai"
)

// agentModel is the model of the agent chat: an OpenAI-compatible endpoint
// when --llm-url is set (its key from $CARDEDGE_LLM_API_KEY), else nil (the
// embedded agent).
func agentModel(cfg ServeConfig) agent.Model {
	if cfg.LLMURL == "" {
		return nil
	}
	return openai.New(cfg.LLMURL, cfg.LLMModel, cfg.LLMKey)
}
