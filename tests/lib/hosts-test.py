#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The same input through librnndenoise, the LADSPA plugin (applyplugin and
GStreamer's ladspa bridge), the LV2 plugin (lv2apply and GStreamer's lv2
bridge) and the rnndenoise element gives the same samples, mono and stereo
(the stereo labels are one 2-channel stream, as the element's stereo pad),
at 48 kHz and at 16 kHz (each rate with its built-in model); the plugins
refuse any other rate (applyplugin at 44100 Hz here). The input holds a
mains hum, and the plugins' hum-removal port, switched off, must give the
library's output with hum removal off, which differs from the default's.
The quality controls (speech protection, stationary suppression, harmonic
lift, speech hold, level normalization), all five away from their
defaults at once, must give the library's output with those settings
(mono, 48 kHz, applyplugin and lv2apply); at their defaults, which the
GStreamer bridges take from the LADSPA hints and the LV2 ports, the
library's defaults bit for bit. lv2info must show the LV2 ports: the
older ones at their indices, the new ones with the library's ranges and
defaults (test_host_ports.c checks the LADSPA descriptors).

The library and the plugins delay the output by the latency (960 samples at
48 kHz, 480 at 16 kHz, those first samples being silence); the element
drops that pre-roll and drains the tail, so its output is the library's
shifted by the latency. Float paths are compared bit for bit; the 16-bit
files of applyplugin and lv2apply within the rounding of their own
float-to-int16 conversion.

Usage: hosts-test.py LIBRNNDENOISE LADSPA_DIR LV2_MODULE LV2_TTL_DIR
       [GST_PLUGIN_DIR GST_SYSTEM_PLUGIN_DIR]
"""
import array
import ctypes
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import wave

# The rates with a built-in model and the latency in samples at each; the
# plugins must refuse REFUSED_RATE.
LATENCIES = {48000: 1440, 16000: 480}
REFUSED_RATE = 44100
LV2_URIS = {1: "urn:rnndenoise:lv2:mono", 2: "urn:rnndenoise:lv2:stereo"}
# The latency port's index: after the 2 x channels audio ports and four
# controls (hosts/lv2/rnndenoise.ttl); the hum-removal port comes after it.
LV2_LATENCY_PORT = {1: 6, 2: 8}
# The LV2 control ports after the audio ports, in index order: symbol, then
# for the inputs (minimum, maximum, default). The ports up to hum_removal
# are the earlier layouts' and keep their indices.
LV2_CONTROLS = [
    ("attenuation_limit", (0.0, 100.0, 0.0)),
    ("vad_threshold", (0.0, 1.0, 0.0)),
    ("vad_hold", (0.0, 5000.0, 200.0)),
    ("vad", None),
    ("latency", None),
    ("hum_removal", (0.0, 1.0, 1.0)),
    ("speech_protection", (0.0, 2.0, 1.0)),
    ("stationary_suppression", (0.0, 4.0, 1.0)),
    ("harmonic_lift", (0.0, 3.0, 0.5)),
    ("speech_hold", (0.0, 1.0, 0.8)),
    ("level_normalization", (0.0, 1.0, 1.0)),
]
# The LADSPA input controls at their defaults, in port order (what
# applyplugin takes): attenuation limit, VAD threshold, VAD hold, hum
# removal, speech protection, stationary suppression, harmonic lift,
# speech hold, level normalization.
LADSPA_DEFAULTS = ["0", "0", "200", "1", "1", "1", "0.5", "0.8", "1"]
# The quality controls away from their defaults, within both plugins'
# ports: LV2 symbol, LADSPA input control index, value, library setter.
QUALITY = [
    ("speech_protection", 4, "1.5", "rnndenoise_set_speech_protection"),
    ("stationary_suppression", 5, "2.5", "rnndenoise_set_stationary_suppression"),
    ("harmonic_lift", 6, "1.5", "rnndenoise_set_harmonic_lift"),
    ("speech_hold", 7, "0.4", "rnndenoise_set_speech_hold"),
    ("level_normalization", 8, "0", "rnndenoise_set_level_normalization"),
]


def signal(seed, f0, rate):
    """1.5 s of a voice-like tone in white noise and a 50 Hz hum (with its
    third harmonic) at @rate, int16; the tone is loud and soft in turns of
    a quarter of a second."""
    import math
    out = array.array("h")
    x = seed
    for i in range(rate * 3 // 2):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        noise = (x / 0x7FFFFFFF - 0.5) * 0.2
        f = f0 + 20.0 * math.sin(2 * math.pi * 3.0 * i / rate)
        v = 0.25 * math.sin(2 * math.pi * f * i / rate) * (1 if (i // (rate // 4)) % 2 else 0.2)
        v += 0.1 * math.sin(2 * math.pi * 50.0 * i / rate) + 0.05 * math.sin(2 * math.pi * 150.0 * i / rate)
        out.append(int(round(max(-1.0, min(1.0, v + noise)) * 20000)))
    return out


def write_wav(path, rate, channels, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())


def read_wav(path):
    """16-bit PCM or 32-bit float WAV: (format, channels, samples)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, fmt, channels, body = 12, None, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        chunk = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt, channels = struct.unpack("<HH", chunk[:4])
        elif cid == b"data":
            body = chunk
        pos += 8 + size + (size & 1)
    samples = array.array("f" if fmt == 3 else "h")
    samples.frombytes(body[:len(body) - len(body) % samples.itemsize])
    return fmt, channels, samples


def library_output(lib, samples, channels, rate, hum_removal=True, quality=False):
    """Float output of rnndenoise_process_float on samples / 32768, on the
    built-in model for @rate (the one the plugins must pick), with hum
    removal on (the default) or off, and the QUALITY settings if
    @quality."""
    n = len(samples) // channels
    buf = (ctypes.c_float * len(samples))(*[s / 32768.0 for s in samples])
    err = ctypes.c_int(0)
    lib.rnndenoise_model_new_default_for_rate.restype = ctypes.c_void_p
    model = lib.rnndenoise_model_new_default_for_rate(rate, ctypes.byref(err))
    assert model, "no built-in model for %d Hz: %d" % (rate, err.value)
    model = ctypes.c_void_p(model)
    lib.rnndenoise_new.restype = ctypes.c_void_p
    st = lib.rnndenoise_new(model, channels, ctypes.byref(err))
    lib.rnndenoise_model_unref(model)
    assert st, "rnndenoise_new failed: %d" % err.value
    st = ctypes.c_void_p(st)
    assert lib.rnndenoise_get_sample_rate(st) == rate
    assert lib.rnndenoise_get_latency(st) == LATENCIES[rate]
    if not hum_removal:
        assert lib.rnndenoise_set_hum_removal(st, 0) == 0
    for _, _, value, setter in QUALITY if quality else ():
        arg = ctypes.c_int(int(value)) if setter.endswith("normalization") else ctypes.c_float(float(value))
        assert getattr(lib, setter)(st, arg) == 0, setter
    assert lib.rnndenoise_process_float(st, buf, buf, n) == n
    lib.rnndenoise_free(st)
    return list(buf)


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s failed (%d):\n%s%s" % (cmd[0], p.returncode, p.stdout, p.stderr))
    return p.stdout


def run_refused(cmd, env, message):
    """@cmd must fail with @message: the host could not instantiate the
    plugin (and not some other error)."""
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode == 0 or message not in p.stdout + p.stderr:
        sys.exit("%s: expected a refusal (%s), got %d:\n%s%s"
                 % (cmd[0], message, p.returncode, p.stdout, p.stderr))


# How hosts write floats to 16-bit files: round at 32768, round at 32767
# (libsndfile), truncate at 32767.
CONVERSIONS = (
    lambda r: max(-32768, min(32767, int(round(r * 32768.0)))),
    lambda r: max(-32768, min(32767, int(round(r * 32767.0)))),
    lambda r: max(-32768, min(32767, int(r * 32767.0))),
)


def compare_int16(name, got, ref):
    """got: int16 file samples; ref: the library's float samples."""
    assert len(got) >= len(ref), "%s: %d samples, expected %d" % (name, len(got), len(ref))
    worst = max(abs(g - r * 32768.0) for g, r in zip(got, ref))
    exact = max(sum(1 for g, r in zip(got, ref) if g == conv(r)) for conv in CONVERSIONS)
    print("%-50s %d samples, %.1f%% equal to the library's output converted, "
          "largest difference %.2f LSB" % (name, len(ref), 100.0 * exact / len(ref), worst))
    assert worst <= 2.0, "%s differs from the library by %.2f LSB" % (name, worst)


def compare_float(name, got, ref):
    assert len(got) >= len(ref), "%s: %d samples, expected %d" % (name, len(got), len(ref))
    diff = sum(1 for g, r in zip(got, ref) if struct.pack("f", g) != struct.pack("f", r))
    print("%-50s %d samples, %d differ from the library (bit for bit)" % (name, len(ref), diff))
    assert diff == 0


def main():
    libpath, ladspa_dir, lv2_module, lv2_ttl_dir = sys.argv[1:5]
    gst_dirs = sys.argv[5:7]
    lib = ctypes.CDLL(libpath)
    tmp = tempfile.mkdtemp()
    try:
        bundle = os.path.join(tmp, "lv2", "rnndenoise.lv2")
        os.makedirs(bundle)
        os.symlink(os.path.abspath(lv2_module), os.path.join(bundle, os.path.basename(lv2_module)))
        for ttl in ("manifest.ttl", "rnndenoise.ttl"):
            shutil.copy(os.path.join(lv2_ttl_dir, ttl), bundle)
        # The modules find the uninstalled librnndenoise through LD_LIBRARY_PATH
        # (their build RUNPATH is relative to their own folder).
        libdir = os.path.dirname(os.path.abspath(libpath))
        ld_path = os.pathsep.join(p for p in (libdir, os.environ.get("LD_LIBRARY_PATH")) if p)
        env = dict(os.environ, LADSPA_PATH=ladspa_dir, LV2_PATH=os.path.join(tmp, "lv2"),
                   LD_LIBRARY_PATH=ld_path)

        # The hosts see the plugins.
        out = run(["analyseplugin", "rnndenoise-ladspa"], env)
        assert "rnndenoise_mono" in out and "rnndenoise_stereo" in out, out
        for channels, uri in LV2_URIS.items():
            out = run(["lv2info", uri], env)
            assert ("Has latency:       yes, reported by port %d" % LV2_LATENCY_PORT[channels]
                    in out), out
            check_lv2_ports(uri, out, channels)

        for rate in LATENCIES:
            test_rate(lib, env, tmp, gst_dirs, rate)
        test_refused(env, tmp, REFUSED_RATE)
    finally:
        shutil.rmtree(tmp)


def lv2info_ports(out):
    """lv2info's port sections: {index: {field: [values]}}."""
    ports, port, field = {}, None, None
    for line in out.splitlines():
        if line.startswith("\tPort "):
            port = ports.setdefault(int(line.split()[1].rstrip(":")), {})
        elif port is not None and line.startswith("\t\t"):
            key, _, value = line.strip().partition(":")
            if line.startswith("\t\t ") or not value:
                port.setdefault(field, []).append(line.strip())
            else:
                field = key
                port.setdefault(field, []).append(value.strip())
    return ports


def check_lv2_ports(uri, out, channels):
    """The control ports lv2info shows for @uri are LV2_CONTROLS, at their
    indices after the audio ports; level_normalization, like hum_removal,
    an integer and not a toggle (GStreamer's lv2 bridge would start a
    toggle off)."""
    ports = lv2info_ports(out)
    assert len(ports) == 2 * channels + len(LV2_CONTROLS), sorted(ports)
    for i, (symbol, inp) in enumerate(LV2_CONTROLS):
        port = ports[2 * channels + i]
        types = " ".join(port["Type"])
        assert port["Symbol"] == [symbol], (i, port)
        assert ("InputPort" in types) == (inp is not None), (symbol, types)
        if inp is not None:
            got = tuple(float(port[f][0]) for f in ("Minimum", "Maximum", "Default"))
            assert got == inp, "%s: %s, expected %s" % (symbol, got, inp)
        props = " ".join(port.get("Properties", []))
        if symbol in ("hum_removal", "level_normalization"):
            assert "#integer" in props and "#toggled" not in props, (symbol, props)
    print("lv2info %s: ports %s" % (uri, ", ".join(
        "%d %s" % (2 * channels + i, s) for i, (s, _) in enumerate(LV2_CONTROLS))))


def make_inputs(tmp, rate):
    """The mono and stereo input files at @rate: (paths, int16 samples)."""
    mono = signal(7, 150.0, rate)
    right = signal(11, 210.0, rate)
    stereo = array.array("h")
    for a, b in zip(mono, right):
        stereo.extend((a, b))
    paths = {1: os.path.join(tmp, "mono-%d.wav" % rate), 2: os.path.join(tmp, "stereo-%d.wav" % rate)}
    write_wav(paths[1], rate, 1, mono)
    write_wav(paths[2], rate, 2, stereo)
    return paths, {1: mono, 2: stereo}


def test_rate(lib, env, tmp, gst_dirs, rate):
    """Every path at @rate against the library on that rate's model."""
    print("-- %d Hz" % rate)
    wavs, samples = make_inputs(tmp, rate)
    refs = {c: library_output(lib, samples[c], c, rate) for c in (1, 2)}
    assert all(v == 0.0 for v in refs[1][:LATENCIES[rate]])
    assert any(v != 0.0 for v in refs[1][LATENCIES[rate]:])
    refs_off = {c: library_output(lib, samples[c], c, rate, False) for c in (1, 2)}
    for c in (1, 2):
        # Far more than compare_int16's tolerance, so that a port that did
        # not reach the library would fail the comparisons below.
        apart = max(abs(a - b) for a, b in zip(refs[c], refs_off[c])) * 32768.0
        assert apart > 50.0, "hum removal changes the output by %.1f LSB only" % apart

    # LADSPA through applyplugin (16-bit files), mono and stereo; the
    # plugin runs at the file's rate. Its input controls in port order
    # (LADSPA_DEFAULTS), the hum removal's at index 3.
    for channels, label in ((1, "rnndenoise_mono"), (2, "rnndenoise_stereo")):
        for hum, ref in (("1", refs), ("0", refs_off)):
            out_wav = os.path.join(tmp, "ladspa-%d-%d-%s.wav" % (channels, rate, hum))
            controls = LADSPA_DEFAULTS[:3] + [hum] + LADSPA_DEFAULTS[4:]
            run(["applyplugin", wavs[channels], out_wav, "rnndenoise-ladspa", label]
                + controls, env)
            compare_int16("applyplugin %s %d Hz, hum %s" % (label, rate, hum),
                          read_wav(out_wav)[2], ref[channels])

    # LV2 through lv2apply, mono and stereo (a stereo file feeds the
    # two input ports): the defaults, then hum removal off.
    for channels in (1, 2):
        for hum, controls, ref in (("1", [], refs), ("0", ["-c", "hum_removal", "0"], refs_off)):
            out_wav = os.path.join(tmp, "lv2-%d-%d-%s.wav" % (channels, rate, hum))
            run(["lv2apply", "-i", wavs[channels], "-o", out_wav] + controls
                + [LV2_URIS[channels]], env)
            got = read_wav(out_wav)
            assert got[1] == channels, "lv2apply wrote %d channels" % got[1]
            compare_int16("lv2apply %s %d Hz, hum %s" % (LV2_URIS[channels], rate, hum),
                          got[2], ref[channels])

    if rate == 48000:
        test_quality(lib, env, tmp, wavs[1], samples[1], refs[1], rate)

    if gst_dirs and shutil.which("gst-launch-1.0"):
        for channels in (1, 2):
            gst_compare(env, tmp, gst_dirs, wavs[channels], refs[channels], channels, rate)
    else:
        print("GStreamer paths not tested: no plugin build or gst-launch-1.0")


def test_quality(lib, env, tmp, wav, samples, ref_default, rate):
    """The five quality controls away from their defaults (QUALITY) through
    applyplugin and lv2apply, mono, against the library with the same
    settings."""
    ref = library_output(lib, samples, 1, rate, quality=True)
    apart = max(abs(a - b) for a, b in zip(ref, ref_default)) * 32768.0
    assert apart > 50.0, "the quality controls change the output by %.1f LSB only" % apart
    print("the quality controls away from their defaults change the library's output "
          "by up to %.0f LSB" % apart)
    controls = list(LADSPA_DEFAULTS)
    for _, index, value, _ in QUALITY:
        controls[index] = value
    out_wav = os.path.join(tmp, "ladspa-quality-%d.wav" % rate)
    run(["applyplugin", wav, out_wav, "rnndenoise-ladspa", "rnndenoise_mono"] + controls, env)
    compare_int16("applyplugin rnndenoise_mono %d Hz, quality" % rate, read_wav(out_wav)[2], ref)
    out_wav = os.path.join(tmp, "lv2-quality-%d.wav" % rate)
    args = [a for symbol, _, value, _ in QUALITY for a in ("-c", symbol, value)]
    run(["lv2apply", "-i", wav, "-o", out_wav] + args + [LV2_URIS[1]], env)
    compare_int16("lv2apply %s %d Hz, quality" % (LV2_URIS[1], rate), read_wav(out_wav)[2], ref)


def test_refused(env, tmp, rate):
    """applyplugin cannot instantiate the LADSPA labels at @rate, which has
    no model. lv2apply does not check for a NULL instance (it crashes), so
    the LV2 plugins' refusal is checked by test_host_rt.c instead."""
    print("-- %d Hz" % rate)
    wavs, _ = make_inputs(tmp, rate)
    for channels, label in ((1, "rnndenoise_mono"), (2, "rnndenoise_stereo")):
        out_wav = os.path.join(tmp, "ladspa-%d-%d.wav" % (channels, rate))
        run_refused(["applyplugin", wavs[channels], out_wav, "rnndenoise-ladspa", label]
                    + LADSPA_DEFAULTS,
                    env, "Failed to instantiate plugin")
        print("applyplugin %s %d Hz: refused" % (label, rate))


def gst_compare(env, tmp, gst_dirs, in_wav, ref, channels, rate):
    """The element and GStreamer's ladspa and lv2 bridges, float output, at
    @rate (the input file's); ref: the library's interleaved output for
    @channels channels."""
    env = dict(env,
               GST_PLUGIN_SYSTEM_PATH_1_0="",
               GST_PLUGIN_PATH_1_0=os.pathsep.join(gst_dirs),
               GST_REGISTRY_1_0=os.path.join(tmp, "registry.bin"),
               GST_REGISTRY_FORK="no",
               GST_PLUGIN_LOADING_WHITELIST="coreelements,wavparse,audioconvert,wavenc,rnndenoise,ladspa,lv2")
    variant = "mono" if channels == 1 else "stereo"
    elements = [
        ("rnndenoise", "element rnndenoise", True),
        ("ladspa-rnndenoise-ladspa-so-rnndenoise-" + variant, "gst ladspa bridge", False),
        ("urn-rnndenoise-lv2-" + variant, "gst lv2 bridge", False),
    ]
    n = len(ref)
    shift = LATENCIES[rate] * channels
    for factory, name, aligned in elements:
        out_wav = os.path.join(tmp, "%s-%d-%d.wav" % (factory, channels, rate))
        run(["gst-launch-1.0", "-q", "filesrc", "location=" + in_wav, "!", "wavparse", "!",
             "audioconvert", "!", "audio/x-raw,format=F32LE", "!", factory, "!", "wavenc",
             "!", "filesink", "location=" + out_wav], env)
        fmt, got_channels, got = read_wav(out_wav)
        assert fmt == 3 and got_channels == channels
        name = "%s %s %d Hz" % (name, variant, rate)
        if aligned:
            # Pre-roll dropped: sample i is the library's sample i + latency.
            compare_float(name + " (shifted)", got[:n - shift], ref[shift:])
        else:
            compare_float(name, got[:n], ref)


if __name__ == "__main__":
    main()
