#!/usr/bin/env bash
# Runs the pinned GoReleaser (v2.15.1, from the Go module proxy; the first
# run compiles it, later runs use Go's build cache) over .goreleaser.yaml
# with DWIRE_VERSION, the version stamped into dwire, set by
# scripts/version.sh — the same logic as `make build`:
#
#   scripts/goreleaser.sh release --snapshot --clean --skip=publish   # what CI checks
#   scripts/goreleaser.sh release --clean                             # a real release, at a cli/vX.Y.Z tag
#
# GoReleaser (without its Pro monorepo support) reads only plain semver
# tags, so for a real release this script checks that HEAD is exactly a
# cli/vX.Y.Z tag on a clean tree, gives GoReleaser vX.Y.Z as the current tag
# (GORELEASER_CURRENT_TAG, --skip=validate: the checks are done here) and
# the cli/CHANGELOG.md section as the release notes. docs/releasing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

GORELEASER_VERSION=v2.15.1
read -r -a goreleaser <<<"${GORELEASER:-go run github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION}"

snapshot=
for a in "$@"; do
	case $a in --snapshot) snapshot=1 ;; esac
done

if [ "${1:-}" = release ] && [ -z "$snapshot" ]; then
	tag=$(git describe --exact-match --tags --match 'cli/v*' HEAD 2>/dev/null) || {
		echo "goreleaser.sh: HEAD carries no cli/vX.Y.Z tag; a release is made at the commit scripts/release.sh had you tag (or use --snapshot)" >&2
		exit 1
	}
	if [ -n "$(git status --porcelain)" ]; then
		echo "goreleaser.sh: the working tree has uncommitted changes; release from a clean checkout of $tag" >&2
		exit 1
	fi
	export DWIRE_VERSION=${tag#cli/v}
	export GORELEASER_CURRENT_TAG=v$DWIRE_VERSION
	notes=$(mktemp)
	trap 'rm -f "$notes"' EXIT
	sh scripts/changelog-section.sh cli/CHANGELOG.md "$DWIRE_VERSION" >"$notes"
	set -- "$@" --skip=validate --release-notes "$notes"
else
	DWIRE_VERSION=${DWIRE_VERSION:-$(sh scripts/version.sh)}
	export DWIRE_VERSION
fi
# The commit and its time, for mod_timestamp, the man pages' date and the
# image's labels (GoReleaser's own git fields are placeholders in a
# snapshot of a clone without a remote).
DWIRE_COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
DWIRE_COMMIT_TIME=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export DWIRE_COMMIT DWIRE_COMMIT_TIME
"${goreleaser[@]}" "$@"
