#!/usr/bin/env bash
# Regenerates crates/providers/models.json, the bundled context-limit snapshot,
# from models.dev. Run by hand on a machine with internet access and commit the
# result; builds and tests never download anything.
#
#   crates/providers/scripts/refresh-models.sh [api.json]
#
# With an argument, reads a previously downloaded https://models.dev/api.json.
# Keeps only well-known tool-capable families so the file stays small; add a
# prefix to FAMILIES to bundle more.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:-}"
if [[ -z "$src" ]]; then
  src="$(mktemp)"
  curl -fsSL https://models.dev/api.json -o "$src"
fi
FAMILIES='^(claude-|gpt-|o[0-9]|gemini-|anthropic\.|us\.anthropic\.|amazon\.nova|qwen3|llama3|deepseek-r1|gpt-oss)'
jq --arg re "$FAMILIES" '
  [ .[] | .models // {} | to_entries[] | select(.key | test($re)) |
    { key: .key, value: {
        name: .value.name,
        context: .value.limit.context,
        output: .value.limit.output,
        tools: (.value.tool_call // false),
        vision: ((.value.modalities.input // []) | index("image") != null),
        reasoning: (.value.reasoning // false) } } ]
  | map(select(.value.context != null and .value.context > 0))
  | unique_by(.key) | from_entries' "$src" > models.json.tmp
mv models.json.tmp models.json
echo "wrote $(jq length models.json) models to crates/providers/models.json"
