#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the build into a temporary folder (meson install --destdir),
# then builds examples/denoise-example.c against the installed library
# with pkg-config only, shared and static, and runs it.
# Usage: install-test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" >/dev/null
pc=$(find "$tmp/root" -name rnndenoise.pc)
[ -n "$pc" ] || { echo "rnndenoise.pc not installed" >&2; exit 1; }
echo "installed: ${pc#"$tmp/root"}"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
libdir=$(PKG_CONFIG_SYSROOT_DIR='' pkg-config --variable=libdir rnndenoise)
echo "pkg-config --cflags --libs rnndenoise: $(pkg-config --cflags --libs rnndenoise)"
test -f "$tmp/root$(PKG_CONFIG_SYSROOT_DIR='' pkg-config --variable=includedir rnndenoise)/rnndenoise.h"

# Shared: what an application does.
# shellcheck disable=SC2046
"$cc" -Wall -Werror -o "$tmp/example" "$src/examples/denoise-example.c" \
  $(pkg-config --cflags --libs rnndenoise) -lm
LD_LIBRARY_PATH="$tmp/root$libdir" "$tmp/example"
soname=$(readelf -d "$tmp/root$libdir/librnndenoise.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
echo "soname: $soname"
[ "$soname" = librnndenoise.so.0 ]

# Static: the archive and the private requirements.
# shellcheck disable=SC2046
"$cc" -Wall -Werror -o "$tmp/example-static" \
  "$src/examples/denoise-example.c" $(pkg-config --cflags rnndenoise) \
  "$tmp/root$libdir/librnndenoise.a" \
  $(pkg-config --static --libs rnndenoise | sed 's/-lrnndenoise//') -lm
env -u LD_LIBRARY_PATH "$tmp/example-static"
echo "shared and static builds from pkg-config ran"
