# DevWorkWire — one place that lists the modules and runs build, vet and
# tests over each. `make test` is what CI runs (.ci/run).
MODULES := $(shell cat MODULES)
GO ?= go
TESTFLAGS ?= -count=1 -timeout 30m
BIN := $(CURDIR)/bin

.PHONY: all build test test-unit lint fmt vet bench demo tidy clean release-snapshot release-check

all: lint test

build:
	@mkdir -p $(BIN)
	cd cli && CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$$(sh ../scripts/ldflags.sh)" -o $(BIN)/dwire ./cmd/dwire
	cd jira && CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/mockjira ./cmd/mockjira

# Every module's tests, each module on its own (so each module's go.mod is
# exercised), with the race detector where it is cheap enough.
test: lint
	@set -e; for m in $(MODULES); do \
		echo "=== go test $$m"; \
		(cd $$m && $(GO) test $(TESTFLAGS) ./...); \
	done

lint: fmt vet

fmt:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) vet ./...); done

bench:
	$(GO) run ./e2e/cmd/benchharness

demo: build
	bash scripts/demo.sh

tidy:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) mod tidy); done

clean:
	rm -rf $(BIN)

# Releases (docs/releasing.md). release-snapshot: the full matrix into dist/
# (GoReleaser v2.15.1, nothing published). release-check: what CI runs — the
# snapshot (linux/amd64 and darwin/arm64; DWIRE_RELEASE_TARGETS=full for all
# six), its checks, and `go install …@v0.1.0` from module zips (GOWORK=off).
release-snapshot:
	DWIRE_RELEASE_TARGETS=full scripts/goreleaser.sh release --snapshot --clean --skip=publish

release-check:
	bash scripts/release-check.sh
