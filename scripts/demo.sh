#!/usr/bin/env bash
# The DevWorkWire demo: a fake Jira Cloud on loopback, a temporary
# configuration and state store, then the whole loop in about a minute, on
# examples/demo.md (epics, stories and sub-tasks, managed fields,
# dependencies, a sprint): `dwire import plan.md` (you answer the prompt), a
# second import that finds everything unchanged, `dwire ls --ready` (what
# nothing blocks), `dwire progress` of one story to done with a comment, an
# agent's turn — `dwire mcp` driven by a short scripted client makes a
# preview, and you review and commit the agent's handle with `dwire review`
# — then the three-way merge: a person edits a story's description in the
# fake Jira while the document changes its priority; `dwire pull` takes the
# person's edit into the document and keeps the document's change, and the
# next import writes only the priority: both changes kept. Last, `dwire
# export` writes the whole plan back out of Jira as a planning document
# (the whole document: an export of part of it would warn that importing
# it marks the rest removed). Needs
# only Go and curl (run via `make demo`, which builds bin/; DWIRE_DEMO_BIN
# names another folder holding dwire and mockjira). Without a terminal
# nothing can be confirmed, so it shows the preview only.
# DWIRE_DEMO_DEPLOYMENT=datacenter runs the same demo against the fake's
# Jira Data Center site (REST API v2, a personal access token, wiki markup,
# Epic Link): `DWIRE_DEMO_DEPLOYMENT=datacenter make demo`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="${DWIRE_DEMO_BIN:-$root/bin}"
plan="${DEMO_PLAN:-examples/demo.md}"
cd "$root"

if [[ -z "${DWIRE_DEMO_BIN:-}" && ( ! -x "$bin/dwire" || ! -x "$bin/mockjira" ) ]]; then
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

deployment="${DWIRE_DEMO_DEPLOYMENT:-cloud}"
seed=()
account="  email: demo@example.com"
case "$deployment" in
cloud) ;;
datacenter)
	echo '{"deployment": "datacenter"}' >"$tmp/seed.json"
	seed=(-seed "$tmp/seed.json")
	account="  deployment: datacenter   # a personal access token, no e-mail"
	;;
*)
	echo "Error: DWIRE_DEMO_DEPLOYMENT=$deployment: use cloud or datacenter." >&2
	exit 2
	;;
esac

"$bin/mockjira" -addr 127.0.0.1:0 -token "$token" -latency 20ms "${seed[@]}" >"$tmp/mockjira.out" 2>"$tmp/mockjira.log" &
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

# The workspace: configuration, state store and the plan, in one folder
# (an agent's paths must lie inside the workspace).
cp "$plan" "$tmp/plan.md"
cat >"$tmp/.devworkwire.yaml" <<YAML
# Temporary demo configuration: a fake Jira on loopback.
jira:
  site: $url
  project: DEMO
$account
  reference_field: DevWorkWire Reference
store: sqlite://./state.db
YAML

export JIRA_API_TOKEN="$token"
unset DWIRE_STORE_URL DWIRE_CONFIG
cd "$tmp"
dwire() { "$bin/dwire" "$@"; }

say() { printf '\n\033[1m== %s\033[0m\n\n' "$*" >&2; }
if [[ -n "${NO_COLOR:-}" || ! -t 2 ]]; then
	say() { printf '\n== %s\n\n' "$*" >&2; }
fi

say "A fake Jira ($deployment) at $url (project DEMO); workspace $tmp"
dwire doctor || true

if [[ ! -t 0 || ! -t 2 ]]; then
	say "dwire import plan.md --dry-run (no terminal: nothing can be confirmed)"
	dwire import plan.md --dry-run || true
	say "Run 'make demo' in a terminal to answer the prompts and see the rest."
	exit 0
fi

say "dwire import plan.md — read the preview; y writes it, Enter alone does not"
dwire import plan.md || true

say "dwire import plan.md again — all unchanged: nothing to write or ask"
dwire import plan.md || true

say "dwire ls --ready — todo, nothing blocking: what to work on next"
dwire ls --ready || true

say "dwire progress checkout-v2/s-1 --status done --comment … (answer y)"
dwire progress checkout-v2/s-1 --status done --comment "Shipped behind the guest-checkout flag." || true

say "dwire ls --ready — s-1 is done: what it blocked is ready now"
dwire ls --ready || true

say "An agent's turn: it adds a story and calls import_preview (dwire mcp)"
cat >>plan.md <<'MD'

## Story s-9: Gift cards at checkout
Customers can pay with a gift card, alone or together with a card.
MD
agent_out=$(printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo-agent","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"import_preview","arguments":{"path":"plan.md"}}}' |
	dwire mcp 2>"$tmp/mcp.log") || true
handle=$(grep -o 'imp_[0-9a-f]*' <<<"$agent_out" | head -n 1 || true)
if [[ -z "$handle" ]]; then
	echo "Error: the agent's preview did not return a handle:" >&2
	cat "$tmp/mcp.log" >&2
	exit 1
fi
echo "The agent got preview $handle; it cannot commit without you." >&2

say "dwire review $handle (answer y)"
dwire review "$handle" || true

say "Both sides change s-2: a person edits its description in Jira, the document raises its priority"
key=$(dwire show checkout-v2/s-2 --json | grep -o '"key": *"DEMO-[0-9]*"' | head -n 1 | grep -o 'DEMO-[0-9]*' || true)
if [[ -z "$key" ]] || ! curl -fsS -o /dev/null -X POST "$url/_mockjira/issues/$key/edit" \
	-d '{"description_markdown_text": "Offer to keep the address in a cookie (no account needed); it expires after 90 days."}'; then
	echo "Error: the person's edit of checkout-v2/s-2 in the fake Jira failed (is curl installed?)." >&2
	exit 1
fi
echo "In Jira, a person edited the description of $key (checkout-v2/s-2)." >&2
sed -i.bak 's/^Priority: Medium$/Priority: High/' plan.md && rm -f plan.md.bak
echo "In plan.md, s-2's priority is now High." >&2

say "dwire pull plan.md — the person's description comes into the document; the priority stays the document's (answer y)"
dwire pull plan.md || true

say "dwire import plan.md — writes only the priority: the person's description is kept"
dwire import plan.md || true

say "dwire export --project DEMO — the whole plan (epics, stories, sub-tasks), written back out of Jira as a planning document"
dwire export --project DEMO || true

say "dwire ls — what is in the fake Jira now"
dwire ls || true

say "Done. The fake Jira is stopped and the temporary files are removed."
