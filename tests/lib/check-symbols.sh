#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# librnndenoise exports the rnndenoise_* API and nothing else.
# Usage: check-symbols.sh NM LIBRARY
set -eu
nm=$1
lib=$2
all=$("$nm" -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }')
count=$(printf '%s\n' "$all" | grep -c '^rnndenoise_' || true)
extra=$(printf '%s\n' "$all" | grep -v '^rnndenoise_' | grep -v '^$' || true)
echo "exported: $count rnndenoise_* symbols"
if [ -n "$extra" ]; then
  echo "not part of the API:" >&2
  printf '%s\n' "$extra" >&2
  exit 1
fi
[ "$count" -ge 20 ]
