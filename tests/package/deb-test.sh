#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages, end to end (Debian 12, root or sudo): installs the
# tools and build dependencies, builds the packages with dpkg-buildpackage
# (-us -uc -b, nocheck) from a clean copy of the committed tree (git
# archive HEAD: no build directory or uncommitted file gets in), runs
# lintian on them, installs them with apt-get, checks the GStreamer
# element (gst-inspect-1.0 and a denoising pipeline, with the built-in
# model and the model file), rnndenoise-model and its man page, the
# library through pkg-config (an application built and run against it),
# the LADSPA and LV2 plugins (analyseplugin, lv2info), then removes the
# packages and checks that all of it is gone. Exits non-zero at the
# first failed check.
#
# Usage: tests/package/deb-test.sh
# DEB_BUILD_OPTIONS is passed on (nocheck is added), e.g. parallel=2.
set -eu

cd "$(dirname "$0")/../.."

if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
PACKAGES="gstreamer1.0-rnndenoise librnndenoise0 librnndenoise-dev rnndenoise-plugins"

step () { echo "== deb-test: $*"; }
ok () { echo "   ok: $*"; }
fail () {
  echo "deb-test: FAILED: $*" >&2
  exit 1
}

tmp=$(mktemp -d)
installed=0
cleanup () {
  status=$?
  if [ "$installed" = 1 ]; then
    echo "deb-test: removing the packages after a failure" >&2
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q \
      $PACKAGES >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
  exit $status
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# Only what the packages install may be used: no uninstalled plugin,
# library or pkg-config file, a registry of our own.
unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0 GST_PLUGIN_SYSTEM_PATH \
  GST_PLUGIN_SYSTEM_PATH_1_0 LD_LIBRARY_PATH PKG_CONFIG_PATH LADSPA_PATH \
  LV2_PATH
export GST_REGISTRY_1_0="$tmp/registry.bin"

step "tools and build dependencies (apt-get)"
git rev-parse --verify -q HEAD >/dev/null \
  || fail "not a git checkout: the packages are built from git archive HEAD"
mkdir "$tmp/src"
git archive HEAD | tar -x -C "$tmp/src"
[ -f "$tmp/src/debian/control" ] || fail "HEAD has no debian/control"
$SUDO apt-get update -q >"$tmp/apt.log" 2>&1 \
  || { cat "$tmp/apt.log"; fail "apt-get update"; }
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  dpkg-dev debhelper lintian build-essential pkg-config gstreamer1.0-tools \
  gstreamer1.0-plugins-base ladspa-sdk lilv-utils >>"$tmp/apt.log" 2>&1 \
  || { cat "$tmp/apt.log"; fail "apt-get install of the tools"; }
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q \
  -P nocheck "$tmp/src" >>"$tmp/apt.log" 2>&1 \
  || { cat "$tmp/apt.log"; fail "apt-get build-dep"; }
ok "tools and build dependencies installed"

step "dpkg-buildpackage -us -uc -b (nocheck), from git archive HEAD ($(git rev-parse --short HEAD))"
start=$(date +%s)
if ! (cd "$tmp/src" \
  && DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" \
    dpkg-buildpackage -us -uc -b -Pnocheck) >"$tmp/build.log" 2>&1; then
  tail -n 60 "$tmp/build.log"
  fail "dpkg-buildpackage (last lines of its log above)"
fi
debs=
for p in $PACKAGES; do
  deb=
  for f in "$tmp/${p}"_*.deb; do
    [ ! -f "$f" ] || deb=$f
  done
  [ -n "$deb" ] || fail "no ${p}_*.deb was built"
  debs="$debs $deb"
  ok "$(basename "$deb"): $(dpkg-deb -c "$deb" | grep -vc '/$') files"
done
ok "built in $(($(date +%s) - start)) s"

step "lintian (an error or a warning fails)"
changes=
for f in "$tmp"/rnndenoise_*.changes; do
  [ ! -f "$f" ] || changes=$f
done
[ -n "$changes" ] || fail "no rnndenoise_*.changes was written"
if lintian --fail-on error,warning "$changes" >"$tmp/lintian.txt" 2>&1; then
  lint=0
else
  lint=1
fi
grep -v 'running with root privileges' "$tmp/lintian.txt" || true
[ "$lint" = 0 ] || fail "lintian reports errors or warnings"
ok "lintian: no error or warning"

step "apt-get install$(for d in $debs; do printf ' ./%s' "$(basename "$d")"; done)"
installed=1
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $debs \
  >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; fail "apt-get install of the packages"; }
for p in $PACKAGES; do
  [ "$(dpkg-query -W -f '${Status}' "$p")" = "install ok installed" ] \
    || fail "$p is not installed"
done
ok "installed: $PACKAGES"

cd "$tmp"
pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
plugin="$pluginsdir/libgstrnndenoise.so"
model=/usr/share/rnndenoise/models/rnndenoise-48k.rnnm
ladspa=/usr/lib/ladspa/rnndenoise-ladspa.so

step "the plugin is in GStreamer's plugin directory ($pluginsdir)"
[ -f "$plugin" ] || fail "$plugin is missing"
dpkg -S "$plugin" >/dev/null || fail "$plugin belongs to no package"
ok "$plugin ($(dpkg -S "$plugin" | cut -d: -f1))"

step "gst-inspect-1.0 rnndenoise"
gst-inspect-1.0 rnndenoise >"$tmp/inspect.txt" 2>&1 \
  || { cat "$tmp/inspect.txt"; fail "gst-inspect-1.0 rnndenoise"; }
# /lib is /usr/lib on a merged /usr: compare the files, not the names.
found=$(sed -n 's/^ *Filename  *//p' "$tmp/inspect.txt")
if [ -z "$found" ] \
  || [ "$(readlink -f "$found")" != "$(readlink -f "$plugin")" ]; then
  cat "$tmp/inspect.txt"
  fail "gst-inspect-1.0 loaded '$found', not $plugin"
fi
grep -q "License *GPL\$" "$tmp/inspect.txt" \
  || fail "gst-inspect-1.0 rnndenoise does not show License GPL"
ok "loaded from $found, License GPL"

step "gst-launch-1.0 audiotestsrc ! rnndenoise ! fakesink (the built-in model)"
gst-launch-1.0 -q audiotestsrc wave=pink-noise num-buffers=50 \
  ! audio/x-raw,rate=48000,channels=1,format=F32LE ! rnndenoise \
  ! fakesink || fail "the denoising pipeline with the built-in model"
ok "pipeline ran to EOS"

step "gst-launch-1.0 ... ! rnndenoise model=$model ! ... (the model file)"
gst-launch-1.0 -q audiotestsrc wave=pink-noise num-buffers=50 \
  ! audio/x-raw,rate=48000,channels=1,format=F32LE \
  ! rnndenoise model="$model" ! fakesink \
  || fail "the denoising pipeline with $model"
ok "pipeline ran to EOS"

step "rnndenoise-model info $model, and its man page"
rnndenoise-model info "$model" >"$tmp/model.txt" \
  || fail "rnndenoise-model info $model"
grep -q "^checksum:.*(ok)" "$tmp/model.txt" \
  || { cat "$tmp/model.txt"; fail "rnndenoise-model: no valid checksum"; }
ok "$(grep '^model id:' "$tmp/model.txt")"
for tool in rnndenoise-model rnndenoise-sisdr rnndenoise-mix; do
  [ -f "/usr/share/man/man1/$tool.1.gz" ] \
    || fail "the man page $tool.1 is missing"
  "$tool" --help >/dev/null || fail "$tool --help"
done
ok "rnndenoise-model, rnndenoise-sisdr, rnndenoise-mix: --help and man pages"

step "pkg-config --cflags --libs rnndenoise, and an application built on it"
flags=$(pkg-config --cflags --libs rnndenoise) \
  || fail "pkg-config --cflags --libs rnndenoise"
ok "pkg-config: $flags"
example=/usr/share/doc/librnndenoise-dev/examples/denoise-example.c
[ -f "$example" ] || fail "$example is missing"
# shellcheck disable=SC2086
cc -Wall -Werror -o "$tmp/example" "$example" $flags -lm \
  || fail "building $example with pkg-config's flags"
"$tmp/example" >"$tmp/example.txt" 2>&1 \
  || { cat "$tmp/example.txt"; fail "running the example"; }
ok "denoise-example built and ran against the installed library"

step "the LADSPA plugin (analyseplugin) and the LV2 plugin (lv2info)"
if command -v analyseplugin >/dev/null; then
  # By path: Debian 12's ladspa-sdk has no default LADSPA_PATH.
  analyseplugin "$ladspa" >"$tmp/ladspa.txt" 2>&1 \
    || { cat "$tmp/ladspa.txt"; fail "analyseplugin $ladspa"; }
  grep -q rnndenoise_mono "$tmp/ladspa.txt" \
    || fail "analyseplugin does not list rnndenoise_mono"
  grep -q rnndenoise_stereo "$tmp/ladspa.txt" \
    || fail "analyseplugin does not list rnndenoise_stereo"
  ok "analyseplugin $ladspa: rnndenoise_mono, rnndenoise_stereo"
else
  echo "   skipped: analyseplugin (ladspa-sdk) is not installed"
fi
if command -v lv2info >/dev/null; then
  lv2info urn:rnndenoise:lv2:mono >"$tmp/lv2.txt" 2>&1 \
    || { cat "$tmp/lv2.txt"; fail "lv2info urn:rnndenoise:lv2:mono"; }
  grep -q "Binary: *file:///usr/lib/lv2/rnndenoise.lv2/" "$tmp/lv2.txt" \
    || { cat "$tmp/lv2.txt"; fail "lv2info found the bundle elsewhere than /usr/lib/lv2"; }
  ok "lv2info urn:rnndenoise:lv2:mono: /usr/lib/lv2/rnndenoise.lv2"
else
  echo "   skipped: lv2info (lilv-utils) is not installed"
fi

step "apt-get remove -y $PACKAGES"
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q $PACKAGES \
  >"$tmp/remove.log" 2>&1 \
  || { cat "$tmp/remove.log"; fail "apt-get remove"; }
installed=0
for p in $PACKAGES; do
  status=$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null || true)
  [ "$status" != "install ok installed" ] || fail "$p is still installed"
done
ok "removed"

step "everything is gone"
[ ! -e "$plugin" ] || fail "$plugin is still there"
rm -f "$GST_REGISTRY_1_0"
if gst-inspect-1.0 rnndenoise >/dev/null 2>&1; then
  fail "gst-inspect-1.0 still finds rnndenoise"
fi
ok "gst-inspect-1.0 rnndenoise finds no element"
if pkg-config --exists rnndenoise; then
  fail "pkg-config still finds rnndenoise"
fi
ok "pkg-config finds no rnndenoise"
for f in /usr/bin/rnndenoise-model "$ladspa" \
  /usr/lib/lv2/rnndenoise.lv2 /usr/share/rnndenoise "$model"; do
  [ ! -e "$f" ] || fail "$f is still there"
done
ok "no rnndenoise-model, LADSPA or LV2 plugin, or /usr/share/rnndenoise left"

echo "== deb-test: passed"
