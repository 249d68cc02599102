# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=sh
# Sourced by the scripts in pipelines/: finds the rnndenoise plugin.
#
# BUILD_DIR (default: build, relative to the top of the source tree) names
# a meson build directory; if it holds the plugin, GST_PLUGIN_PATH points
# there, so the scripts run against an uninstalled build. Otherwise the
# installed plugin is used. GST_LAUNCH may name another gst-launch-1.0.

RNNDENOISE_SRC_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in
  /*) RNNDENOISE_BUILD_DIR=$BUILD_DIR ;;
  *) RNNDENOISE_BUILD_DIR=$RNNDENOISE_SRC_DIR/$BUILD_DIR ;;
esac
if [ -d "$RNNDENOISE_BUILD_DIR/plugin" ]; then
  GST_PLUGIN_PATH=$RNNDENOISE_BUILD_DIR/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
  export GST_PLUGIN_PATH
fi
GST_LAUNCH=${GST_LAUNCH:-gst-launch-1.0}

if ! gst-inspect-1.0 rnndenoise >/dev/null 2>&1; then
  echo "$(basename -- "$0"): the rnndenoise element was not found." >&2
  echo "Build it (meson setup build && meson compile -C build, or set" >&2
  echo "BUILD_DIR to your build directory) or install the plugin." >&2
  exit 1
fi
