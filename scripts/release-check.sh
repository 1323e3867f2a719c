#!/usr/bin/env bash
# The release check (`make release-check`; CI runs it from .ci/run):
#   1. the tests of the release tooling (release/: module zips, the dist
#      checks, scripts/release.sh and scripts/changelog-section.sh);
#   2. `goreleaser release --snapshot --clean --skip=publish` into dist/;
#      the dwire image only when a Docker engine answers (else --skip=docker);
#   3. release/cmd/distcheck on dist/: archives and their files, checksums,
#      `dwire version` of the linux/amd64 binary, the man page of
#      `dwire import`, the Homebrew formula, the image's `dwire version`;
#   4. the published form: the released modules as module zips (no replace,
#      siblings at v0.1.0) in a GOPROXY=file:// directory, then
#      `GOWORK=off go install …/cli/cmd/dwire@v0.1.0` and `dwire version`.
#
# DWIRE_RELEASE_TARGETS=ci (the default here) builds linux/amd64 and
# darwin/arm64 only, to stay within a few minutes on two cores;
# DWIRE_RELEASE_TARGETS=full builds the release matrix (6 platforms).
# Needs Go and git; the Go module proxy (or a filled module cache) for
# GoReleaser and third-party modules; nothing else from the network.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
log() { printf '[release-check] %s\n' "$*" >&2; }
step_start=$SECONDS
step() { log "$1 ($((SECONDS - step_start)) s)"; step_start=$SECONDS; }

export DWIRE_RELEASE_TARGETS=${DWIRE_RELEASE_TARGETS:-ci}
case $DWIRE_RELEASE_TARGETS in ci | full) ;; *) log "DWIRE_RELEASE_TARGETS must be ci or full"; exit 2 ;; esac
version=$(sh scripts/version.sh)
export DWIRE_VERSION=$version
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwire-release-check.XXXXXX")
image=
cleanup() {
	if [ -n "$image" ]; then docker rmi -f "$image" >/dev/null 2>&1 || true; fi
	# The module cache of step 4 is read-only by design.
	chmod -R u+w "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# 1. -----------------------------------------------------------------------
out=$(gofmt -l release)
if [ -n "$out" ]; then log "gofmt needed:"; echo "$out" >&2; exit 1; fi
(cd release && GOWORK=off go vet ./... && GOWORK=off go test -count=1 ./...)
step "release tooling: gofmt, vet and tests passed"

# 2. -----------------------------------------------------------------------
skip=publish
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
	image="ghcr.io/devworkwire/dwire:${version//+/-}"
else
	skip=publish,docker
	log "no Docker engine answers: the image is not built (--skip=docker)"
fi
log "goreleaser release --snapshot --clean --skip=$skip (targets: $DWIRE_RELEASE_TARGETS, version $version)"
scripts/goreleaser.sh release --snapshot --clean --skip="$skip"
step "snapshot release built"

# 3. -----------------------------------------------------------------------
(cd release && GOWORK=off go run ./cmd/distcheck -dist ../dist -version "$version" -targets "$DWIRE_RELEASE_TARGETS" ${image:+-image "$image"})
step "snapshot release checked"

# 4. -----------------------------------------------------------------------
proxy_version=v0.1.0
(cd release && GOWORK=off go run ./cmd/modproxy -root .. -version "$proxy_version" -out "$tmp/proxy")
# Third-party modules come from the module cache's download directory (a
# proxy layout too), then the configured proxy; only the DevWorkWire
# modules skip the checksum database (they are not published).
upstream=$(go env GOPROXY)
modcache_dl="$(go env GOMODCACHE)/cache/download"
(
	cd "$tmp"
	# -trimpath lets the build cache serve third-party packages although the
	# module cache is a fresh directory.
	env GOWORK=off GOFLAGS="-mod=mod -trimpath" CGO_ENABLED=0 \
		GOPROXY="file://$tmp/proxy,file://$modcache_dl,$upstream" \
		GONOSUMDB='github.com/devworkwire/*' GOPRIVATE= GONOPROXY= \
		GOMODCACHE="$tmp/modcache" GOBIN="$tmp/bin" \
		go install "github.com/devworkwire/devworkwire/cli/cmd/dwire@$proxy_version"
)
got=$("$tmp/bin/dwire" version)
case $got in
"dwire version ${proxy_version#v} "*) ;;
*) log "go install …/cli/cmd/dwire@$proxy_version built a dwire that says '$got', want 'dwire version ${proxy_version#v} (…)'"; exit 1 ;;
esac
step "go install …/cli/cmd/dwire@$proxy_version from module zips (GOWORK=off, GOPROXY=file://): $got"
