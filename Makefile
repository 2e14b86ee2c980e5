# cardedge: build, test, run and measure. See README.md.
GO        ?= go
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -ldflags "-X main.version=$(VERSION)"
SNAPSHOTS ?= var/snapshots
STATE     ?= var/state.bolt
ADDR      ?= 127.0.0.1:8080
PRESET    ?= default
SEED      ?= 1
AS_OF     ?= 2026-11-20

.PHONY: build test test-e2e test-race test-short test-default snapshot run fuzz bench bench-quick lint lint-openapi golden redoc-assets clean fleet-test

build:
	$(GO) build $(LDFLAGS) -o bin/cardbuild ./cmd/cardbuild
	$(GO) build $(LDFLAGS) -o bin/cardedge ./cmd/cardedge

# Packages whose concurrency the race detector checks in make test; the
# heavy ones (index, builder, cmd/cardedge, e2e) run without it to keep the
# suite within its 10-minute budget on 2 cores (make test-race runs
# everything). mcp and web are here with their own tests (in-process
# servers over the tiny snapshot, which they build under -race).
RACE_PKGS ?= ./snapshots ./snapshots/bolt ./edge ./access ./edge/cache ./edge/connguard ./mcp ./state/... ./account ./web

# The whole suite CI runs: each package's tests beside its code (fuzz seeds
# included), cmd/cardedge's wiring, swap and fault tests (Main and Serve
# in-process), and e2e, the end-to-end tests (the built binary over a
# snapshot of the real builder: REST and chat suites, Chromium, npm, S3,
# Redis; e2e/doc.go).
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 8m $(RACE_PKGS)
	$(GO) test -count=1 -timeout 9m ./...

# The fleet test (deploy/fleet_test.go, issue #22): a real redis-server, a
# real S3-compatible server (versitygw, pinned; installed into the cache
# directory once, about 2 minutes on 2 cores), three cardedge replicas on
# loopback ports and HAProxy with deploy/haproxy.cfg in front; every
# scenario counts failed requests. About 3 minutes. redis-server and
# haproxy come from apt (.ci/run installs them).
VERSITYGW_VERSION := v1.8.0
CARDEDGE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/cardedge
VERSITYGW := $(CARDEDGE_CACHE)/bin/versitygw-$(VERSITYGW_VERSION)
FLEET_REPORT ?= var/fleet-report.json

$(VERSITYGW):
	@echo "fleet-test: installing versitygw $(VERSITYGW_VERSION) (Apache-2.0 S3-compatible server) into $(CARDEDGE_CACHE)/bin"
	@mkdir -p $(CARDEDGE_CACHE)/bin/.versitygw
	GOBIN=$(CARDEDGE_CACHE)/bin/.versitygw $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)
	mv $(CARDEDGE_CACHE)/bin/.versitygw/versitygw $@
	rmdir $(CARDEDGE_CACHE)/bin/.versitygw

fleet-test: build $(VERSITYGW)
	@for t in redis-server haproxy; do command -v $$t >/dev/null || { echo "fleet-test: $$t is missing (apt-get install -y $$t; .ci/run does)"; exit 1; }; done
	@mkdir -p var
	CARDEDGE_FLEET_TEST=1 CARDEDGE_VERSITYGW=$(VERSITYGW) CARDEDGE_BIN=$(CURDIR)/bin CARDEDGE_FLEET_REPORT=$(CURDIR)/$(FLEET_REPORT) \
	  $(GO) test -count=1 -timeout 12m -run '^TestFleet$$' -v ./deploy/

# The end-to-end tests alone (make test runs them too).
test-e2e:
	$(GO) test -count=1 -timeout 9m ./e2e

test-race:
	$(GO) test -race -count=1 -timeout 30m ./...

test-short:
	$(GO) test -count=1 -short ./...

# The snapshot make run serves and make test-default reads, in $(SNAPSHOTS):
# the PRESET built with SEED as of AS_OF (the day the README's figures are
# of; AS_OF= builds as of yesterday). Built when missing, when it does not
# verify (e.g. an older snapshot format) or when what makes it changed, else
# reused: $(SNAPSHOTS)/INPUTS holds a digest of the builder's code (a
# cardbuild built without version stamps, so commits that leave the builder
# alone keep the snapshot) and of the catalog, with the preset, seed and day.
snapshot: build
	@mkdir -p $(SNAPSHOTS)
	@$(GO) build -buildvcs=false -o bin/.cardbuild-inputs ./cmd/cardbuild
	@inputs="code+catalog $$(cat bin/.cardbuild-inputs builder/catalog/*.jsonl.gz | sha256sum | cut -c1-16) preset $(PRESET) seed $(SEED) as_of $(or $(AS_OF),yesterday)"; \
	if [ -f $(SNAPSHOTS)/CURRENT ] && [ "$$(cat $(SNAPSHOTS)/INPUTS 2>/dev/null)" = "$$inputs" ] && \
	   bin/cardbuild verify $(SNAPSHOTS)/$$(cat $(SNAPSHOTS)/CURRENT) >/dev/null 2>&1; then \
	  echo "snapshot: reusing $(SNAPSHOTS)/$$(cat $(SNAPSHOTS)/CURRENT) ($$inputs)"; \
	else \
	  echo "snapshot: building $(PRESET) into $(SNAPSHOTS) ($$inputs)"; \
	  rm -f $(SNAPSHOTS)/INPUTS; \
	  bin/cardbuild build --out $(SNAPSHOTS) --preset $(PRESET) --seed $(SEED) $(if $(AS_OF),--as-of $(AS_OF)) --keep 2 && \
	  echo "$$inputs" > $(SNAPSHOTS)/INPUTS; \
	fi

# The tests that read the default snapshot (e2e/*_default_test.go: #19's
# leaderboards, printings, quote and chat, #25's search syntax, over the
# whole catalog): make snapshot with the default preset, then those tests.
# CI runs it after make test.
test-default:
	$(MAKE) --no-print-directory snapshot PRESET=default
	CARDEDGE_DEFAULT_SNAPSHOTS=$(abspath $(SNAPSHOTS)) $(GO) test -count=1 -timeout 10m -run 'DefaultSnapshot' -v ./e2e

# Builds the snapshot (see snapshot), creates a demo key once, prints it with
# the dashboard's URL (sign-up is open on the loopback address), and serves.
run: snapshot
	@mkdir -p $(dir $(STATE))
	@bin/cardedge demo --state $(STATE) --addr $(ADDR)
	bin/cardedge serve --snapshots $(SNAPSHOTS) --state $(STATE) --addr $(ADDR)

FUZZTIME ?= 30s
# Every fuzz target of the module, each for FUZZTIME.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for name in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$name"; \
	    $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# Load benchmarks (cmd/cardbench; README "Benchmarks"): build the binaries,
# build or reuse var/bench/<preset>, run every workload with the edge on CPU 1 and
# the load on CPU 0, print a table, write bench/out/cardbench-<mode>-<time>.json.
# bench: default snapshot, < 15 min; bench-quick: tiny snapshot, < 2 min.
# BENCH_FLAGS passes flags (e.g. --only carddetail,mix --no-nginx).
BENCH_BINS = $(GO) build -o bin/cardbench ./cmd/cardbench && $(GO) build -o bin/ceiling ./cmd/ceiling && $(GO) build -o bin/benchedge ./cmd/benchedge
bench: build
	$(BENCH_BINS)
	bin/cardbench --mode full $(BENCH_FLAGS)
	bin/cardbuild report var/bench/default

bench-quick: build
	$(BENCH_BINS)
	bin/cardbench --mode quick $(BENCH_FLAGS)

# Bulk downloads (README "Bulk data"): the largest bulk file of SNAPSHOTS (the
# snapshot make run serves, built or reused by make snapshot) through the edge
# against nginx serving the same file, interleaved rounds, medians.
# BULKBENCH_FLAGS passes flags (go run ./cmd/bulkbench --help).
.PHONY: bench-bulk
bench-bulk: snapshot
	$(GO) run ./cmd/bulkbench --snapshots $(SNAPSHOTS) $(BULKBENCH_FLAGS)

# Soak: the cardedge binary under a fixed-rate REST read mix plus MCP
# sessions for SOAK_DURATION; reports RSS growth, goroutine drift and 5xx,
# fails on any 5xx (not part of make test).
SOAK_DURATION ?= 10m
SOAK_RATE     ?= 200
.PHONY: soak
soak: build
	$(GO) run ./cmd/soak --duration $(SOAK_DURATION) --rate $(SOAK_RATE) $(SOAK_FLAGS)

# staticcheck, pinned: make lint installs it into bin/ once (about 30 s) and
# fails on any finding, as gofmt and vet do.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/staticcheck-$(STATICCHECK_VERSION)

$(STATICCHECK):
	@mkdir -p bin/.staticcheck
	GOBIN=$(CURDIR)/bin/.staticcheck $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv bin/.staticcheck/staticcheck $@
	rmdir bin/.staticcheck

lint: $(STATICCHECK)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@$(MAKE) --no-print-directory lint-openapi

# Redocly's recommended rules (tools/npm/redocly: @redocly/cli pinned, installed
# by tools/npm/install into ~/.cache/cardedge/npm once) on the OpenAPI document
# as served (edge/testdata/openapi.json: TestOpenAPI_Document keeps it equal to
# what GET /api/v3/openapi.json answers). Fails on any error or warning (a
# warning that must stay is turned off in tools/npm/redocly/redocly.yaml with
# its reason, and listed in the README); skipped with a message when Node.js
# 20.19+ and npm are not installed.
lint-openapi:
	@mkdir -p var
	@dir=$$(tools/npm/install redocly) || { st=$$?; if [ $$st -eq 3 ]; then echo "lint-openapi: skipped (Node.js 20.19+ and npm are needed for Redocly)"; exit 0; fi; exit $$st; }; \
	  $$dir/node_modules/.bin/redocly lint edge/testdata/openapi.json --config tools/npm/redocly/redocly.yaml --format=stylish --max-problems=1000 >var/redocly-lint.txt 2>&1; \
	  grep -v '[║╔╚]' var/redocly-lint.txt | sed '/^[[:space:]]*$$/d'; \
	  grep -q 'Your API description is valid' var/redocly-lint.txt && ! grep -q 'You have [0-9]* warning' var/redocly-lint.txt

# Rewrites the golden files the tests compare with (review the diff before
# committing it):
#   - the builder's dump of the cards of the good feed case
#     (builder/testdata/feeds/good/reader.golden, TestCompile_Feeds);
#   - the OpenAPI document's examples, a real response of each route on the
#     tiny snapshot (edge/testdata/examples, TestOpenAPI_Examples) and of a
#     few on the sources' fixtures (edge/testdata/examples/sources,
#     TestOpenAPI_SourcesExamples), then the
#     document itself (edge/testdata/openapi.json, TestOpenAPI_Document: a
#     second run, as the examples are embedded in the binary);
#   - the Go client generated from the document (clients/go: go generate
#     runs oapi-codegen v2.8.2, fetched by go run on first use).
golden:
	$(GO) test ./builder -run '^TestCompile_Feeds$$' -count=1 -update
	$(GO) test ./edge -run '^TestOpenAPI_(Sources)?Examples$$' -count=1 -update
	$(GO) test ./edge -run '^TestOpenAPI_Document$$' -count=1 -update
	$(GO) generate ./clients/go

# The API reference page's renderer (GET /api/v3/docs): Redoc's standalone
# bundle from npm, pinned, committed under edge/assets/redoc with its license,
# the licenses of what it bundles and its SHA-256 (so go build needs only Go;
# TestDocs_Assets checks the digest). Refresh after changing REDOC_VERSION.
REDOC_VERSION := 2.5.4
redoc-assets:
	@command -v npm >/dev/null || { echo "redoc-assets: npm is needed"; exit 1; }
	rm -rf var/redoc && mkdir -p var/redoc
	cd var/redoc && npm pack redoc@$(REDOC_VERSION) --silent >/dev/null && tar xzf redoc-$(REDOC_VERSION).tgz
	mkdir -p edge/assets/redoc
	cp var/redoc/package/bundles/redoc.standalone.js edge/assets/redoc/redoc.standalone.js
	cp var/redoc/package/LICENSE edge/assets/redoc/LICENSE
	cp var/redoc/package/bundles/redoc.standalone.js.LICENSE.txt var/redoc/package/bundles/*.worker.js.LICENSE.txt edge/assets/redoc/
	printf '%s\n' $(REDOC_VERSION) > edge/assets/redoc/VERSION
	cd edge/assets/redoc && sha256sum redoc.standalone.js > SHA256SUMS
	rm -rf var/redoc

clean:
	rm -rf bin var
