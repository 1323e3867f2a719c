#!/usr/bin/env bash
# scripts/release.sh MODULE VERSION — checks that MODULE can be tagged
# MODULE/vVERSION and prints the tag commands, in dependency order, for it
# and for every sibling module it requires at a version not tagged yet.
# It changes nothing: it only reads the tree and the tags.
#
# Checks, for each module of that plan:
#   - the module is one of the released modules, the version is vX.Y.Z[-pre]
#     with major 0 or 1, and MODULE/vVERSION is not tagged yet;
#   - MODULE/CHANGELOG.md has a section "## [X.Y.Z] - DATE" (not empty);
#   - MODULE/go.mod has no replace directive (a consumer ignores them, and
#     `go install …@version` refuses a module that has one) and requires each
#     sibling module at a released version: one that is tagged already, or
#     one this plan tags (checked the same way);
#   - the working tree is clean (a tag names a commit, not the tree).
# Exit status: 0 plan printed, 1 a check failed (every failure is listed
# with what to do), 2 usage. See docs/releasing.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
prefix=github.com/devworkwire/devworkwire
# The released modules in dependency order (a module requires only modules
# before it): MODULES, the list make builds and tests in that order, less
# e2e, the test suite, which is not released.
[ -f MODULES ] || { echo "MODULES: no such file in $root (the list of the repository's modules)" >&2; exit 2; }
read -ra listed <MODULES
order=()
for m in "${listed[@]}"; do [ "$m" = e2e ] || order+=("$m"); done
zero_pseudo=v0.0.0-00010101000000-000000000000

usage() {
	echo "usage: scripts/release.sh MODULE VERSION   (MODULE one of: ${order[*]}; VERSION like 0.2.0 or v0.2.0-rc.1)" >&2
	exit 2
}
[ $# -eq 2 ] || usage

declare -A pos
for i in "${!order[@]}"; do pos[${order[$i]}]=$i; done

semver_re='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'

mod=$1
ver=$2
[ "${ver#v}" = "$ver" ] && ver="v$ver"
if [ -z "${pos[$mod]+x}" ]; then
	if [ "$mod" = e2e ]; then
		echo "e2e is the end-to-end test suite and is not released; release one of: ${order[*]}" >&2
	else
		echo "unknown module '$mod'; release one of: ${order[*]}" >&2
	fi
	exit 2
fi
if ! [[ $ver =~ $semver_re ]]; then
	echo "version '$2' is not a release version: use MAJOR.MINOR.PATCH with an optional -prerelease, e.g. 0.2.0 or 0.2.0-rc.1 (no +build suffix)" >&2
	exit 2
fi
if [ "${BASH_REMATCH[1]}" -ge 2 ]; then
	echo "version $ver has major version ${BASH_REMATCH[1]}: a v2+ module needs the path suffix /v${BASH_REMATCH[1]} in its go.mod and in every import; this script releases v0 and v1 only" >&2
	exit 2
fi

errors=()
fail() { errors+=("$*"); }

tagged() { git rev-parse -q --verify "refs/tags/$1" >/dev/null; }

# requires prints "sibling version" for each sibling requirement of go.mod $1.
requires() {
	go mod edit -json "$1" | awk -v p="$prefix/" '
		/"Require": \[/ { r = 1 }
		r && /^\t\]/ { r = 0 }
		r && /"Path":/ { gsub(/[",]/, "", $2); path = $2 }
		r && /"Version":/ { gsub(/[",]/, "", $2); if (index(path, p) == 1) print substr(path, length(p) + 1), $2 }
	'
}

# replaces prints the old path of each replace directive of go.mod $1.
replaces() {
	go mod edit -json "$1" | awk '
		/"Replace": \[/ { r = 1 }
		r && /^\t\]/ { r = 0 }
		r && /"Old":/ { old = 1 }
		r && old && /"Path":/ { gsub(/[",]/, "", $2); print $2; old = 0 }
	'
}

if [ -n "$(git status --porcelain)" ]; then
	fail "the working tree has uncommitted changes (git status): commit them first — a tag names a commit, so what is checked here must be what is tagged"
fi

declare -A plan   # module -> version to tag
declare -A wanted_by
queue=("$mod $ver")
plan[$mod]=$ver
wanted_by[$mod]="the command line"
while [ ${#queue[@]} -gt 0 ]; do
	read -r m v <<<"${queue[0]}"
	queue=("${queue[@]:1}")
	gomod=$m/go.mod
	if [ ! -f "$gomod" ]; then
		fail "$gomod: no such file"
		continue
	fi
	if tagged "$m/$v"; then
		fail "$m/$v is tagged already (required by ${wanted_by[$m]}): choose a new version, or require $m $v as released"
	fi
	if ! out=$(sh scripts/changelog-section.sh "$m/CHANGELOG.md" "$v" 2>&1 >/dev/null); then
		fail "$out: rename the Unreleased section of $m/CHANGELOG.md to '## [${v#v}] - $(date -u +%Y-%m-%d)' and open a new empty Unreleased section"
	fi
	if [ "$(awk '$1 == "module" { print $2 }' "$gomod")" != "$prefix/$m" ]; then
		fail "$gomod: module path is not $prefix/$m"
	fi
	while read -r old; do
		[ -n "$old" ] || continue
		fail "$gomod has 'replace $old': published modules must not carry replace directives (the workspace, go.work, replaces siblings during development); run: (cd $m && go mod edit -dropreplace=$old)"
	done < <(replaces "$gomod")
	while read -r s sv; do
		[ -n "$s" ] || continue
		if [ -z "${pos[$s]+x}" ]; then
			fail "$gomod requires $prefix/$s, which is not a released module"
			continue
		fi
		if [ "${pos[$s]}" -ge "${pos[$m]}" ]; then
			fail "$gomod requires $s, which comes after $m in the release order (${order[*]})"
			continue
		fi
		if [ "$sv" = "$zero_pseudo" ] || ! [[ $sv =~ $semver_re ]]; then
			fail "$gomod requires $s $sv, which is not a released version; run: (cd $m && go mod edit -require=$prefix/$s@vX.Y.Z) with the version of $s you release or released"
			continue
		fi
		if tagged "$s/$sv"; then
			continue
		fi
		if [ -n "${plan[$s]+x}" ]; then
			if [ "${plan[$s]}" != "$sv" ]; then
				fail "$s is required at ${plan[$s]} (by ${wanted_by[$s]}) and at $sv (by $m): make them require the same version"
			fi
			continue
		fi
		plan[$s]=$sv
		wanted_by[$s]=$m
		queue+=("$s $sv")
	done < <(requires "$gomod")
done

if [ ${#errors[@]} -gt 0 ]; then
	echo "cannot release $mod $ver:" >&2
	for e in "${errors[@]}"; do echo "  - $e" >&2; done
	exit 1
fi

echo "# Release plan for $mod $ver: every check passed. Tag and push, in this order:"
for m in "${order[@]}"; do
	[ -n "${plan[$m]+x}" ] || continue
	echo "git tag -a $m/${plan[$m]} -m '$m ${plan[$m]}'"
done
echo "git push origin$(for m in "${order[@]}"; do [ -n "${plan[$m]+x}" ] && printf ' %s' "$m/${plan[$m]}"; done)"
