// Package openai is an agent.Model over an OpenAI-compatible chat
// completions endpoint: it streams the model's tokens and returns the tool
// calls the model makes. Any server speaking POST {base}/chat/completions
// with "tools" and "stream": true works (OpenAI, vLLM, llama.cpp server,
// Ollama's /v1); a server that ignores "stream" and answers one JSON
// completion works too.
//
// It imports the standard library (net/http) and agent. Only commands
// construct it (cmd/cardedge: --llm-url); the edge takes it as an
// agent.Model.
//
// # Caveats
//
// A failure of the endpoint (unreachable, a non-200 answer, an unreadable
// stream) is an *agent.ModelError, whose message the chat shows; the key is
// sent as a bearer token and never logged.
package openai
