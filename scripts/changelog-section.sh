#!/bin/sh
# Prints the body of one version's section of a CHANGELOG.md in the
# keep-a-changelog form used here ("## [0.2.0] - 2026-12-01" up to the next
# "## " heading). Exits 1 when the section is missing or empty.
# Usage: scripts/changelog-section.sh path/to/CHANGELOG.md 0.2.0
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 CHANGELOG.md VERSION" >&2
	exit 2
fi
file=$1
v=${2#v}
[ -f "$file" ] || { echo "$file: no such file" >&2; exit 1; }
body=$(awk -v v="$v" '
	/^## / {
		if (in_section) exit
		h = $0
		sub(/^## +/, "", h)
		sub(/^\[/, "", h); sub(/^v/, "", h)
		split(h, w, /[] \t]/)
		if (w[1] == v) { in_section = 1; found = 1; next }
	}
	in_section { print }
	END { if (!found) exit 1 }
' "$file") || { echo "$file has no section for $v (expected a heading like: ## [$v] - YYYY-MM-DD)" >&2; exit 1; }
if [ -z "$(printf '%s' "$body" | tr -d ' \t\n')" ]; then
	echo "$file: the section for $v is empty" >&2
	exit 1
fi
printf '%s\n' "$body"
