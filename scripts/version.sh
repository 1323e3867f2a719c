#!/bin/sh
# Prints the dwire version of this checkout (one logic for `make build`,
# scripts/ldflags.sh and the release build, .goreleaser.yaml):
# the nearest cli/vX.Y.Z tag (e.g. 0.2.0, or 0.2.0-3-gabc1234 after it),
# else 0.1.0-dev+<commit>[-dirty], else 0.1.0-dev.
v=$(git describe --tags --match 'cli/v*' --dirty 2>/dev/null | sed 's#^cli/v##')
if [ -z "$v" ]; then
	rev=$(git describe --always --dirty 2>/dev/null)
	if [ -n "$rev" ]; then v="0.1.0-dev+$rev"; else v="0.1.0-dev"; fi
fi
echo "$v"
