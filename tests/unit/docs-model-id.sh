#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The docs speak of the models that ship: every 16-digit model id in the
# README and docs/*.md is the shipped 48 kHz or 16 kHz model's
# (rnndenoise-model info) or their float32 twins' (rnndenoise-48k-f32.rnnm,
# rnndenoise-16k-f32.rnnm), or sits on a line that names it as an earlier
# (first, second, previous) model or 16 kHz model; the pages that quote
# the shipped models' ids do; the state caps example in docs/element.md
# has the 48 kHz model's hidden sizes.
#
# Usage: docs-model-id.sh RNNDENOISE_MODEL_TOOL MODEL SOURCE_DIR MODEL_16K
set -eu
tool=$1
model=$2
src=$3
model16=$4

info=$("$tool" info "$model")
id=$(printf '%s\n' "$info" | awk '/^model id:/ { print $3 }')
sizes=$(printf '%s\n' "$info" |
  awk '$2 == "gru" { split ($0, a, "->"); split (a[2], b, " "); \
        s = s (s == "" ? "" : "\\,") b[1] } END { print s }')
id16=$("$tool" info "$model16" | awk '/^model id:/ { print $3 }')
echo "shipped models: $id (GRU sizes $sizes), 16 kHz $id16"
# The float32 twins of the shipped (int8x8) files, kept next to them.
twins=
for m in "$model" "$model16"; do
  twin=${m%.rnnm}-f32.rnnm
  if [ -f "$twin" ]; then
    twins="$twins $("$tool" info "$twin" | awk '/^model id:/ { print $3 }')"
  fi
done
echo "their float32 twins:${twins:- none}"
status=0

for page in README.md docs/element.md docs/model.md docs/quality.md \
    docs/performance.md; do
  if ! grep -q "$id" "$src/$page"; then
    echo "FAIL: $page does not name the shipped model $id"
    status=1
  fi
done

for page in docs/model.md docs/quality-16k.md; do
  if ! grep -q "$id16" "$src/$page"; then
    echo "FAIL: $page does not name the shipped 16 kHz model $id16"
    status=1
  fi
done

# Other ids only where the text says which older model it was (the
# float32 twins' ids anywhere).
stale=$(
  if cd "$src"; then
    grep -noE '\b[0-9a-f]{16}\b' README.md docs/*.md |
      grep -v -e ":$id\$" -e ":$id16\$" || true
  fi
)
for twin_id in $twins; do
  stale=$(printf '%s\n' "$stale" | grep -v -e ":$twin_id\$" || true)
done
for hit in $stale; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  if ! sed -n "${line}p" "$src/$file" |
    grep -qiE "(first|second|earlier|previous)( 16 kHz)? model"; then
    echo "FAIL: $file:$line names model ${rest#*:}, not a shipped one" \
      "($id, 16 kHz $id16) nor an earlier model"
    status=1
  fi
done

if ! grep -qF "hidden-sizes=(string)\"$sizes\"" "$src/docs/element.md"; then
  echo "FAIL: docs/element.md's state caps example has other hidden sizes" \
    "than the shipped model's ($sizes)"
  status=1
fi
[ $status -eq 0 ] && echo "docs name the shipped models"
exit $status
