#!/usr/bin/env bash
# The DevWorkWire demo: a fake Jira Cloud on loopback, a temporary
# configuration and state store, then `dwire import examples/plan.md`
# (you answer the prompt) and a second import that finds everything
# unchanged. Needs only Go (run via `make demo`, which builds bin/).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
plan="${DEMO_PLAN:-examples/plan.md}"
cd "$root"

if [[ ! -x "$bin/dwire" || ! -x "$bin/mockjira" ]]; then
	make --no-print-directory build
fi
if [[ ! -f "$plan" ]]; then
	echo "Error: $plan not found (run the demo from a full clone)." >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwire-demo.XXXXXX")
mock_pid=""
cleanup() {
	if [[ -n "$mock_pid" ]] && kill -0 "$mock_pid" 2>/dev/null; then
		kill -TERM "$mock_pid" 2>/dev/null || true
		wait "$mock_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# An obviously fake token, shared by the fake Jira and dwire.
token="mockjira-token-not-secret"

"$bin/mockjira" -addr 127.0.0.1:0 -token "$token" -latency 20ms >"$tmp/mockjira.out" 2>"$tmp/mockjira.log" &
mock_pid=$!

# The first stdout line is MOCKJIRA_URL=http://127.0.0.1:PORT; wait for it
# (up to 10 s).
url=""
for _ in $(seq 1 100); do
	line=$(head -n 1 "$tmp/mockjira.out" 2>/dev/null || true)
	if [[ "$line" == MOCKJIRA_URL=* ]]; then
		url=${line#MOCKJIRA_URL=}
		break
	fi
	if ! kill -0 "$mock_pid" 2>/dev/null; then
		echo "Error: mockjira exited early:" >&2
		cat "$tmp/mockjira.log" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ -z "$url" ]]; then
	echo "Error: mockjira did not print its URL within 10 s." >&2
	exit 1
fi

cat >"$tmp/.devworkwire.yaml" <<YAML
# Temporary demo configuration: a fake Jira on loopback.
jira:
  site: $url
  project: DEMO
  email: demo@example.com
  reference_field: DevWorkWire Reference
store: sqlite://./state.db
YAML

export DWIRE_CONFIG="$tmp/.devworkwire.yaml"
export JIRA_API_TOKEN="$token"
unset DWIRE_STORE_URL

say() { printf '\n\033[1m== %s\033[0m\n\n' "$*" >&2; }
if [[ -n "${NO_COLOR:-}" || ! -t 2 ]]; then
	say() { printf '\n== %s\n\n' "$*" >&2; }
fi

say "Fake Jira running at $url (project DEMO). Config: $DWIRE_CONFIG"
"$bin/dwire" doctor || true

say "dwire import $plan — read the preview, then answer y to write it (Enter alone writes nothing)"
set +e
"$bin/dwire" import "$plan"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
	echo "(dwire import exited with $rc.)" >&2
	if [[ ! -t 0 ]]; then
		echo "(stdin is not a terminal, so dwire refused to write: run 'make demo' in a terminal to answer the prompt.)" >&2
	fi
fi

say "dwire import $plan again — after a commit every item is unchanged, so nothing is written"
"$bin/dwire" import "$plan" || true

say "dwire ls — what is in the fake Jira now"
"$bin/dwire" ls || true

say "Done. The fake Jira is stopped and the temporary files removed."
