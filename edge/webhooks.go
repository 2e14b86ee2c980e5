package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/webhook"
)

// Webhook endpoints (package webhook, issue #33) under
// /api/v3/me/webhooks: the caller's (its account's; a key without an
// account keeps its own). Creating one returns its signing secret, once;
// rolling the secret returns the new one (the old one keeps signing beside
// it for 24 hours). A URL the SSRF guard refuses (loopback, private,
// link-local, metadata addresses) is a 422 naming url. The tier's limit is
// access.Limits' WebhookEndpoints.

// Webhooks keeps webhook endpoints, their delivery logs and notices:
// package webhook's Service.
type Webhooks interface {
	Create(ctx context.Context, account string, in webhook.EndpointInput, lim webhook.Limits) (webhook.Endpoint, string, error)
	List(ctx context.Context, account string) ([]webhook.Endpoint, error)
	Get(ctx context.Context, account, id string) (webhook.Endpoint, error)
	Update(ctx context.Context, account, id string, in webhook.EndpointInput) (webhook.Endpoint, error)
	Delete(ctx context.Context, account, id string) error
	SetEnabled(ctx context.Context, account, id string, enabled bool) (webhook.Endpoint, error)
	RollSecret(ctx context.Context, account, id string) (string, error)
	SendTest(ctx context.Context, account, id string) (string, error)
	Log(ctx context.Context, account, id string, limit int, after string) ([]webhook.Attempt, string, error)
	Notices(ctx context.Context, account string) ([]webhook.Notice, error)
}

var _ Webhooks = (*webhook.Service)(nil)

// maxWebhookBody bounds an endpoint's JSON body.
const maxWebhookBody = 8 << 10

func (s *Server) registerWebhookRoutes() {
	const base, item = "/api/v3/me/webhooks", "/api/v3/me/webhooks/{endpoint_id}"
	add := func(method, pattern, name, contract, schema, summary string, noBody bool, params []paramSpec, h func(*request, Webhooks) (any, error)) {
		s.router.add(&route{method: method, pattern: pattern, name: name, contract: contract, schema: schema, summary: summary,
			noBody: noBody, params: params, handle: func(r *request) (any, error) {
				if s.opts.Webhooks == nil {
					return nil, apperr.Errorf(apperr.ENOTFOUND, "webhooks are not enabled on this server")
				}
				return h(r, s.opts.Webhooks)
			}})
	}
	add("GET", base, "webhooks_list", "webhook-endpoints.v1", "WebhookEndpoints",
		"The caller's webhook endpoints, with their delivery state, and the tier's limit", false, nil, s.handleWebhooksList)
	add("POST", base, "webhooks_create", "webhook-endpoint-created.v1", "WebhookEndpointCreated",
		"Add a webhook endpoint (url, description, types): its signing secret is returned this once", false, nil, s.handleWebhookCreate)
	add("GET", item, "webhooks_get", "webhook-endpoint.v1", "WebhookEndpoint", "One webhook endpoint of the caller", false, nil,
		func(r *request, w Webhooks) (any, error) { return w.Get(r.ctx, s.alertAccount(r), r.vars.list()[0]) })
	add("PUT", item, "webhooks_replace", "webhook-endpoint.v1", "WebhookEndpoint",
		"Replace an endpoint's url, description and types (its secret and queue stay)", false, nil, s.handleWebhookReplace)
	add("DELETE", item, "webhooks_delete", "webhook-endpoint-deleted.v1", "WebhookEndpointDeleted",
		"Delete an endpoint with its queue and delivery log", false, nil, s.handleWebhookDelete)
	add("POST", item+"/enable", "webhooks_enable", "webhook-endpoint.v1", "WebhookEndpoint",
		"Enable an endpoint (a disabled one resumes with the messages still queued)", true, nil,
		func(r *request, w Webhooks) (any, error) {
			return w.SetEnabled(r.ctx, s.alertAccount(r), r.vars.list()[0], true)
		})
	add("POST", item+"/disable", "webhooks_disable", "webhook-endpoint.v1", "WebhookEndpoint",
		"Disable an endpoint: nothing is delivered to it (messages stay queued 7 days)", true, nil,
		func(r *request, w Webhooks) (any, error) {
			return w.SetEnabled(r.ctx, s.alertAccount(r), r.vars.list()[0], false)
		})
	add("POST", item+"/test", "webhooks_test", "webhook-test.v1", "WebhookTest",
		"Send a test event (webhook.test) to an endpoint, in order after what is queued", true, nil, s.handleWebhookTest)
	add("POST", item+"/roll-secret", "webhooks_roll_secret", "webhook-secret.v1", "WebhookSecret",
		"Give an endpoint a new signing secret; the old one keeps signing beside it for 24 hours", true, nil, s.handleWebhookRoll)
	add("GET", item+"/log", "webhooks_log", "webhook-log.v1", "WebhookLog",
		"An endpoint's delivery log, newest first (kept 30 days): status, latency, the first bytes of the answer", false,
		[]paramSpec{pInt("limit", 1, 500, "50", "Attempts per page."), pStr("after", 200, "The next_cursor of the previous page.")},
		s.handleWebhookLog)
	add("GET", "/api/v3/me/webhook-notices", "webhooks_notices", "webhook-notices.v1", "WebhookNotices",
		"Notices about the caller's endpoints, newest first (an endpoint disabled after failing for 5 days)", false, nil,
		func(r *request, w Webhooks) (any, error) {
			ns, err := w.Notices(r.ctx, s.alertAccount(r))
			return webhook.NoticeList{Items: ns}, err
		})
}

// endpointInput reads an endpoint's JSON body: one object, known fields
// only.
func endpointInput(body []byte) (webhook.EndpointInput, error) {
	var in webhook.EndpointInput
	if len(body) > maxWebhookBody {
		return in, apperr.FieldErrors{{Loc: []any{"body"}, Msg: "the body is larger than 8 KiB", Type: "too_long"}}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || dec.More() {
		msg := "the body is not an endpoint's JSON object {url, description, types}"
		if err != nil {
			msg += ": " + err.Error()
		}
		return in, apperr.FieldErrors{{Loc: []any{"body"}, Msg: msg, Type: "json_invalid"}}
	}
	return in, nil
}

func (s *Server) handleWebhooksList(r *request, w Webhooks) (any, error) {
	es, err := w.List(r.ctx, s.alertAccount(r))
	if err != nil {
		return nil, err
	}
	return webhook.EndpointList{Items: es, Total: len(es), Limit: r.limits.WebhookEndpoints}, nil
}

func (s *Server) handleWebhookCreate(r *request, w Webhooks) (any, error) {
	in, err := endpointInput(r.body)
	if err != nil {
		return nil, err
	}
	e, secret, err := w.Create(r.ctx, s.alertAccount(r), in, webhook.Limits{Endpoints: r.limits.WebhookEndpoints})
	if err != nil {
		return nil, err
	}
	return webhook.EndpointCreated{Endpoint: e, Secret: secret}, nil
}

func (s *Server) handleWebhookReplace(r *request, w Webhooks) (any, error) {
	in, err := endpointInput(r.body)
	if err != nil {
		return nil, err
	}
	return w.Update(r.ctx, s.alertAccount(r), r.vars.list()[0], in)
}

func (s *Server) handleWebhookDelete(r *request, w Webhooks) (any, error) {
	id := r.vars.list()[0]
	if err := w.Delete(r.ctx, s.alertAccount(r), id); err != nil {
		return nil, err
	}
	return webhook.EndpointDeleted{ID: id, Deleted: true}, nil
}

func (s *Server) handleWebhookTest(r *request, w Webhooks) (any, error) {
	id := r.vars.list()[0]
	msg, err := w.SendTest(r.ctx, s.alertAccount(r), id)
	if err != nil {
		return nil, err
	}
	return webhook.TestQueued{EndpointID: id, MessageID: msg, Queued: true}, nil
}

func (s *Server) handleWebhookRoll(r *request, w Webhooks) (any, error) {
	id := r.vars.list()[0]
	secret, err := w.RollSecret(r.ctx, s.alertAccount(r), id)
	if err != nil {
		return nil, err
	}
	e, err := w.Get(r.ctx, s.alertAccount(r), id)
	if err != nil {
		return nil, err
	}
	return webhook.NewSecretRolled(e, secret), nil
}

func (s *Server) handleWebhookLog(r *request, w Webhooks) (any, error) {
	after := r.p.str("after")
	if strings.Contains(after, "..") {
		return nil, validationErrors{queryError("after", "after: the next_cursor of a previous page", "value_error", after, nil)}
	}
	items, next, err := w.Log(r.ctx, s.alertAccount(r), r.vars.list()[0], r.p.int("limit"), after)
	if err != nil {
		return nil, err
	}
	return webhook.DeliveryLog{Items: items, NextCursor: next}, nil
}
