# workq-tui: build and test.
#
#   make test    install redis-server, tmux and promtool (Debian's prometheus
#                package) when missing (apt-get, Debian),
#                check gofmt, go vet, golangci-lint, and go test -race in the
#                root module and in the nested conformance module (real
#                gocraft/work v0.5.1).
#   make lint    golangci-lint (pinned, see GOLANGCI_LINT) over both modules
#   make build   build ./workq-tui
#   make bench   the performance table (ratios, each with its goal)
#   make stress  the long versions of the reliability tests
#   make fuzz    run every fuzz target for FUZZTIME (default 60s)

GO          ?= go
TEST_TIMEOUT ?= 20m
GOTESTFLAGS ?=
# apt-get runs through sudo when not root.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# golangci-lint at a pinned version, built by the Go toolchain into its
# module cache on first use: nothing is installed globally. Its
# configuration, and why each linter is on, is in .golangci.yml.
GOLANGCI_LINT_VERSION ?= v2.15.0
GOLANGCI_LINT ?= $(GO) run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

.PHONY: all build test deps fmt-check vet lint test-root test-conformance bench stress fuzz clean

all: build

build:
	$(GO) build -o workq-tui .

# Every check runs even when one before it fails, so that one run shows
# every problem (a lint finding does not hide a failing test).
test: deps
	@rc=0; \
	$(MAKE) --no-print-directory fmt-check || rc=1; \
	$(MAKE) --no-print-directory vet || rc=1; \
	$(MAKE) --no-print-directory lint || rc=1; \
	$(MAKE) --no-print-directory test-root || rc=1; \
	$(MAKE) --no-print-directory test-conformance || rc=1; \
	exit $$rc

# deps installs the binaries the tests run (a real redis-server; tmux for the
# screen tests; zsh and fish for the completion tests; promtool, which Debian
# ships in its prometheus package, for the checks of the exporter's metrics
# and of docs/alerts.yml) when they are missing. Only promtool is used: a
# prometheus service the package starts (under systemd) is stopped and
# disabled.
deps:
	@missing=""; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v zsh >/dev/null 2>&1 || missing="$$missing zsh"; \
	command -v fish >/dev/null 2>&1 || missing="$$missing fish"; \
	command -v promtool >/dev/null 2>&1 || missing="$$missing prometheus"; \
	if [ -n "$$missing" ]; then \
		if ! command -v apt-get >/dev/null 2>&1; then \
			echo "missing:$$missing; install them (no apt-get on this machine)" >&2; exit 1; \
		fi; \
		echo "installing:$$missing"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
		case "$$missing" in *prometheus*) \
			command -v systemctl >/dev/null 2>&1 && $(SUDO) systemctl disable --now prometheus >/dev/null 2>&1; \
			command -v promtool >/dev/null 2>&1 || { echo "promtool still missing after installing prometheus" >&2; exit 1; };; \
		esac; \
	fi

# fmt-check fails listing every file gofmt would change.
fmt-check:
	@files=$$(find . -name '*.go' -not -path './.git/*' -print0 | xargs -0 gofmt -l); \
	if [ -n "$$files" ]; then echo "gofmt needed on:" >&2; echo "$$files" >&2; exit 1; fi

vet:
	$(GO) vet ./...
	cd conformance && $(GO) vet ./...

# lint runs over the root module and the nested conformance module, each
# with the one configuration at the root; both always run.
lint:
	@rc=0; \
	$(GOLANGCI_LINT) run --config .golangci.yml ./... || rc=1; \
	(cd conformance && $(GOLANGCI_LINT) run --config ../.golangci.yml ./...) || rc=1; \
	exit $$rc

test-root:
	$(GO) test -race -timeout $(TEST_TIMEOUT) $(GOTESTFLAGS) ./...

test-conformance:
	cd conformance && $(GO) test -race -timeout $(TEST_TIMEOUT) $(GOTESTFLAGS) ./...

# bench: one table (conformance/bench, build tag bench): every line a ratio
# measured in one run against one redis-server, with its goal and PASS or
# MISS; it fails when a goal is missed. BENCH_OUT=file also writes the
# table there. Ratios only, no absolute-time assertions. The Go
# benchmarks (go test -bench) still run on their own.
bench:
	$(GO) test -tags bench -run '^(TestReapBench100k|TestJobsRequeueJournalBench)$$' -count=1 -v ./reaper
	cd conformance && $(GO) test -tags bench -run '^TestBenchTable$$' -count=1 -timeout 20m -v ./bench/

# stress: the long versions of the reliability tests (reliability/,
# conformance/reliability/, the bulk requeue of dead jobs in reaper/).
# WORKQ_STRESS=1 scales the short versions that make test runs (20 SIGKILLs
# over a 20,000-job reap, 2 Redis restarts, 3 rounds of two reap processes,
# 4 dead pools x 3,000 jobs under three reapers, ~60 keys on a read-only
# screen, 10 SIGKILLs over a 50,000-job requeue) up to 40 SIGKILLs over
# 100,000 jobs, 6 restarts, 10 rounds, 8 pools x 20,000 jobs, 3,000 keys,
# 40 SIGKILLs over 200,000 jobs; a journalled requeue and its undo, each
# killed once per round, 10 rounds of 3,000 jobs up to 40 of 20,000.
stress:
	WORKQ_STRESS=1 $(GO) test -count=1 -timeout 30m -v -run 'Killed|Restarts|TwoReapProcesses|ReadOnlyModel' ./reliability/
	WORKQ_STRESS=1 $(GO) test -count=1 -timeout 30m -v -run '^(TestJobsBulkRequeueKilled|TestUndoKilled)$$' ./reaper/
	cd conformance && WORKQ_STRESS=1 $(GO) test -count=1 -timeout 30m -v -run 'TwoOfOurs' ./reliability/

# fuzz: every fuzz target, found by grepping each package's test files for
# `func Fuzz`, in both modules, runs for FUZZTIME in turn (go test -fuzz
# takes one target of one package at a time). make test runs their seeds.
FUZZTIME ?= 60s
fuzz:
	@set -e; for mod in . conformance; do \
		for dir in $$(cd $$mod && grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^\./conformance/' | xargs -r -n1 dirname | sort -u); do \
			for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$mod/$$dir/*_test.go); do \
				echo "== $$mod $$dir $$target"; \
				(cd $$mod && $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$dir); \
			done; \
		done; \
	done

clean:
	rm -f workq-tui
