#!/usr/bin/env bash
# The layering rule of src/ (README "Layout"): a layer includes only the layers below it. Every
# `#include "<layer>/..."` in src/<layer>/ is checked against the table here; one that runs back
# up (or sideways to a layer not listed) is an error naming the file, the line and the rule.
# The public headers in include/splitprove/ may be included by every layer and include none.
# Run by the build (target check_layers, part of `all`) and by ctest (test `layers`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# layer: the layers it may include (besides itself and splitprove/).
declare -A allowed=(
  [util]=""
  [ff]="util"
  [ec]="ff util"
  [poly]="ec ff util"
  [msm]="ec ff util"
  [zk]="ec ff msm poly util"
  [io]="ec ff util zk"
  [circuit]="ec ff io util zk"
  [mem]="util"
  [pipeline]="circuit ec ff io mem msm poly util zk"
  [cuda]="ec ff mem msm pipeline poly util zk"
  [harness]="circuit ec ff io mem msm pipeline poly util zk"
  [service]="circuit ec ff io mem msm pipeline poly util zk"
  [cli]="circuit cuda ec ff io harness mem msm pipeline poly service util zk"
)

errors=0
for dir in src/*/; do
  layer="$(basename "$dir")"
  if [[ -z "${allowed[$layer]+x}" ]]; then
    echo "check-layers: src/$layer/ is not in the layer table of scripts/check-layers.sh"
    errors=$((errors + 1))
    continue
  fi
  while IFS=: read -r file line inc; do
    target="$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$inc")"
    [[ "$target" == "$layer" || "$target" == splitprove ]] && continue
    if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
      echo "$file:$line: layer '$layer' includes '$target' ($(sed -E 's/^[[:space:]]*//' <<<"$inc")); $layer may include only: ${allowed[$layer]:-nothing}"
      errors=$((errors + 1))
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' "$dir" || true)
done
while IFS=: read -r file line inc; do
  echo "$file:$line: a public header includes a library layer ($inc)"
  errors=$((errors + 1))
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' include/splitprove | grep -v '"splitprove/' || true)

if ((errors)); then
  echo "check-layers: $errors include(s) against the layering"
  exit 1
fi
echo "check-layers: every include of src/ runs down the layers"
