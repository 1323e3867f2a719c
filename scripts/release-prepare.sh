#!/bin/sh
# GoReleaser's before hook (.goreleaser.yaml): writes what the archives and
# the image need besides the binaries into dist-extra/:
#   man/*.1, completions/ (cli/internal/gendocs, from the cobra commands),
#   docker/ca-certificates.crt (this host's CA bundle), docker/state/.
# Usage: scripts/release-prepare.sh VERSION COMMIT_UNIX_TIME
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 VERSION COMMIT_UNIX_TIME" >&2
	exit 2
fi
out=dist-extra
rm -rf "$out"
mkdir -p "$out/docker/state"
go run ./cli/internal/gendocs -out "$out" -version "$1" -date "$2"
for ca in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
	if [ -s "$ca" ]; then
		cp "$ca" "$out/docker/ca-certificates.crt"
		exit 0
	fi
done
echo "release-prepare: no CA bundle found on this host (looked for /etc/ssl/certs/ca-certificates.crt, /etc/pki/tls/certs/ca-bundle.crt, /etc/ssl/cert.pem); the image needs one to reach Jira Cloud over TLS" >&2
exit 1
