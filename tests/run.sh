#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what the build and the tests need (Debian 12), builds, and runs
# every test suite. Usage: tests/run.sh [extra meson setup arguments]
# BUILD_DIR (default: build) names the build directory.
set -eu

cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
if [ "${RNNDENOISE_SKIP_INSTALL:-0}" != 1 ]; then
  $SUDO apt-get update -q
  # shellcheck disable=SC2046 # the list of packages
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    $(grep -v "^#" tests/packages.txt)
fi

if [ -d "$BUILD_DIR" ]; then
  meson setup --reconfigure "$BUILD_DIR" "$@"
else
  meson setup "$BUILD_DIR" "$@"
fi
meson compile -C "$BUILD_DIR"
meson test -C "$BUILD_DIR" --print-errorlogs --verbose
