#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run every method on the held-out test mixtures, score them, and write
the quality report and its plots.

    evaluate.py --build BUILD --model MODEL --work WORK --docs DOCS
                [--real-testdir DIR ...] [--sweep PROPERTY="V1 V2 ..." ...]
                [--band-limit HZ ... [--phone-testdir DIR]] [TESTDIR ...]

Each TESTDIR is a test/ folder written by dsp/train/synth.py (snrS/
subfolders and a manifest.tsv), spoken by the held-out TTS voices; each
--real-testdir is a test-real/ folder of the same layout, spoken by the
held-out recorded voices. The two sets are scored alike and reported apart,
recorded voices first. Each --sweep runs rnndenoise once more per value
of one of its numeric properties on the recorded voices, the others as in
the main run, and adds a section to the report. Each --band-limit runs
every method once more on the first --real-testdir low-passed at HZ, and
--phone-testdir (a test-phone/ folder of synth.py --phone: recorded
telephone voices) adds their mixtures low-passed at 4 kHz to that
band-limited section. Processed audio and
per-file figures go under WORK; DOCS receives quality.md and its
quality-*.png plots. tests/quality/run.sh calls this with the right
arguments; the environment may set RNNDENOISE_PROPS, WEBRTCDSP_PROPS and
SPEEX_SUPPRESS to try other settings.
"""

import argparse
import collections
import csv
import os
import re
import shlex
import string
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import get_context

import numpy as np
from scipy.io import wavfile

import metrics

HERE = os.path.dirname(os.path.abspath(__file__))
RATE = metrics.RATE

METHODS = ["noisy", "speexdsp", "webrtcdsp", "rnndenoise"]
BASELINES = ["speexdsp", "webrtcdsp"]
ORACLE = "ideal-gains"
LABELS = {"noisy": "noisy (input)", "speexdsp": "speexdsp",
          "webrtcdsp": "webrtcdsp", "rnndenoise": "rnndenoise",
          ORACLE: "ideal band gains (oracle)"}
COLOURS = {"noisy": "0.55", "speexdsp": "tab:orange",
           "webrtcdsp": "tab:green", "rnndenoise": "tab:blue",
           ORACLE: "tab:purple"}

GROUPS = collections.OrderedDict([
    ("stationary", ["white", "pink", "brown", "hum", "fan", "room"]),
    ("non-stationary", ["engine", "bursts", "clicks", "keyboard",
                        "amnoise"]),
    ("babble", ["babble"]),
    ("recorded", ["ambience", "music", "slides", "typing"]),
])
LOW_SNRS = [-5, 0, 5, 10]  # the range of the ΔSI-SDR goal
NOISE_FREE_SNR = 0  # the clean tracks of these mixtures are run alone

# The two test sets, in the order of the report: key -> (heading, what
# speaks, prefix of the plot files).
SETS = collections.OrderedDict([
    ("real", ("Recorded voices", "recorded human speech from the speech "
              "sources that `dsp/train/split.txt` holds out "
              "(`heldout-real-speech`)", "quality-real-")),
    ("tts", ("Synthetic voices (TTS)", "text-to-speech voices that "
             "`dsp/train/split.txt` holds out (`heldout-voices`)",
             "quality-")),
])
SWEEP_MARK = "@"  # a sweep run's method name: rnndenoise@PROPERTY=VALUE
# Properties whose 0 means "no bound": 0 is the far end of their sweep.
UNBOUNDED_AT_0 = {"attenuation-limit"}
# Plot names kept for the links that use them (others: quality-PROP.png).
SWEEP_PLOTS = {"attenuation-limit": "quality-attenuation.png"}

DEFAULT_RNNDENOISE_PROPS = ""
DEFAULT_WEBRTCDSP_PROPS = ("echo-cancel=false gain-control=false "
                           "high-pass-filter=false "
                           "noise-suppression-level=very-high")


# ---- data -----------------------------------------------------------------

def load_mixtures(testdirs, set_key):
    """The mixtures of every test folder of one set, from their
    manifest.tsv."""
    mixtures = []
    for d in testdirs:
        d = os.path.abspath(d)
        tag = "%s/%s" % (os.path.basename(os.path.dirname(d)),
                         os.path.basename(d))
        with open(os.path.join(d, "manifest.tsv")) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                base = os.path.join(d, row["name"])
                kind = row["noise"]
                group = next((g for g, kinds in GROUPS.items()
                              if kind in kinds), "other")
                mixtures.append({
                    "id": "%s/%s" % (tag, row["name"]), "set": set_key,
                    "snr": int(round(float(row["snr"]))),
                    "kind": kind, "group": group,
                    "heldout": row["heldout_noise"] == "yes",
                    "voice": row["voices"],
                    "clean": base + "_clean.wav",
                    "noisy": base + "_noisy.wav"})
    return mixtures


def read_wav(path, expected_rate=RATE):
    """A mono WAV file at expected_rate as float64 (the first channel)."""
    rate, x = wavfile.read(path)
    if rate != expected_rate:
        raise ValueError("%s: %d Hz, expected %d"
                         % (path, rate, expected_rate))
    if x.dtype == np.int16:
        x = x / 32768.0
    if x.ndim > 1:
        x = x[:, 0]
    return x.astype(np.float64)


# ---- methods --------------------------------------------------------------

class Runner:
    """Runs one method on one WAV file (mono 48 kHz float32 in and out)."""

    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ)
        self.env["GST_PLUGIN_PATH"] = os.path.join(args.build, "plugin")
        self.env["GST_REGISTRY_1_0"] = os.path.join(args.work,
                                                    "registry.bin")
        self.rnn_props = os.environ.get("RNNDENOISE_PROPS",
                                        DEFAULT_RNNDENOISE_PROPS)
        self.webrtc_props = os.environ.get("WEBRTCDSP_PROPS",
                                           DEFAULT_WEBRTCDSP_PROPS)
        self.speex_suppress = os.environ.get("SPEEX_SUPPRESS", "")
        self.properties = {}  # rnndenoise's numeric properties, by check()

    def element(self, method):
        """The element and properties of a GStreamer method; a sweep run
        sets its property after (and instead of) RNNDENOISE_PROPS'."""
        if method.startswith("rnndenoise"):
            prop, value = sweep_setting(method)
            el = ["rnndenoise", "model=" + self.args.model] + [
                p for p in shlex.split(self.rnn_props)
                if p.split("=", 1)[0] != prop]
            if prop:
                el.append("%s=%s" % (prop, value))
            return el
        return ["webrtcdsp"] + shlex.split(self.webrtc_props)

    def describe(self, method):
        """The command or element of a method, for the report."""
        if method == "speexdsp":
            return "speex_denoise%s IN.raw OUT.raw" % (
                " --suppress " + self.speex_suppress
                if self.speex_suppress else "")
        el = self.element(method)
        if method == "rnndenoise":
            el = ["rnndenoise", "model=MODEL"] + el[2:]
        return " ".join(el)

    def check(self):
        """Loads each element once (fills the registry), fails early, and
        reads rnndenoise's numeric properties."""
        for name in ("rnndenoise", "webrtcdsp", "wavparse", "wavenc"):
            r = subprocess.run(["gst-inspect-1.0", name], env=self.env,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            if r.returncode != 0:
                sys.exit("evaluate: GStreamer element %s not found" % name)
            if name == "rnndenoise":
                self.properties = numeric_properties(r.stdout)

    def gst(self, method, inp, out):
        cmd = (["gst-launch-1.0", "-q", "filesrc", "location=" + inp, "!",
                "wavparse", "!", "audioconvert", "!", "audioresample", "!"]
               + self.element(method)
               + ["!", "audioconvert", "!", "audio/x-raw,format=F32LE",
                  "!", "wavenc", "!", "filesink", "location=" + out])
        r = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            raise RuntimeError("%s failed on %s:\n%s" % (method, inp,
                                                         r.stdout))

    def speex(self, inp, out, rate=RATE):
        """speex_denoise on a mono WAV file at rate (48 or 16 kHz)."""
        x = read_wav(inp, rate)
        pcm = np.clip(np.round(x * 32768), -32768, 32767).astype("<i2")
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "in.raw"), os.path.join(tmp, "out.raw")
            pcm.tofile(a)
            cmd = [self.args.speex]
            if rate != RATE:
                cmd += ["--rate", str(rate)]
            if self.speex_suppress:
                cmd += ["--suppress", self.speex_suppress]
            subprocess.run(cmd + [a, b], check=True)
            y = np.fromfile(b, dtype="<i2").astype(np.float32) / 32768.0
        wavfile.write(out, rate, y)

    def run(self, job):
        method, inp, out = job
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if method == "speexdsp":
            self.speex(inp, out)
        else:
            self.gst(method, inp, out)
        return out


def output_path(work, method, mixture, noise_free=False):
    return os.path.join(work, "out", method, mixture["id"]
                        + ("_clean" if noise_free else "") + ".wav")


def numeric_properties(inspect):
    """The numeric properties in gst-inspect-1.0's description of an
    element: name -> dict(blurb, low, high, default), the default as
    printed."""
    props, name, blurb = {}, None, ""
    for line in inspect.splitlines():
        head = re.match(r"  (\S+?)\s*: (.*)$", line)
        if head:
            name, blurb = head.groups()
            continue
        num = re.search(r"(?:Double|Float|Integer|Integer64|Long)\. "
                        r"Range:\s*(\S+)\s+-\s*(\S+)\s+Default:\s*(\S+)",
                        line)
        if name and num:
            props[name] = dict(blurb=blurb, low=float(num.group(1)),
                               high=float(num.group(2)),
                               default=num.group(3))
    return props


def sweep_method(prop, value):
    """The method name of rnndenoise run with PROP=VALUE."""
    return "rnndenoise%s%s=%s" % (SWEEP_MARK, prop, value)


def sweep_setting(method):
    """(property, value) of a sweep run's method name; (None, None) for
    any other method."""
    if SWEEP_MARK not in method:
        return None, None
    return tuple(method.split(SWEEP_MARK, 1)[1].split("=", 1))


def parse_sweeps(specs):
    """PROPERTY="V1 V2 ..." specs -> ordered {property: [value text]},
    repeated values dropped; exits on a malformed spec."""
    sweeps = collections.OrderedDict()
    for spec in specs:
        prop, sep, text = spec.partition("=")
        prop = prop.strip()
        try:
            values = [float(v) for v in text.split()]
        except ValueError:
            values = []
        if not sep or not prop or not values:
            sys.exit("evaluate: --sweep %r: expected PROPERTY=\"V1 V2 ...\""
                     % spec)
        if prop in sweeps:
            sys.exit("evaluate: --sweep %s given twice" % prop)
        first = {}
        for v, x in zip(text.split(), values):
            first.setdefault(x, v)
        sweeps[prop] = list(first.values())
    return sweeps


def model_protection(info):
    """The speech protection the model file names (rnndenoise-model info;
    a version 1 file stands for 1)."""
    return float(info.get("speech protection", "1").split()[0])


def effective_default(prop, info, model):
    """A property's default as the element applies it: speech-protection's
    -1 is the model file's own (model: rnndenoise-model info's lines)."""
    default = float(info["default"])
    if prop == "speech-protection" and default < 0:
        return model_protection(model)
    return default


def sweep_runs(sweeps, runner, model):
    """Every sweep run: dict(method, prop, value (text), x (number),
    default (the element's default value, as it applies it, model being
    rnndenoise-model info's lines?), source: the method whose
    output is scored, "rnndenoise" when the run would repeat the main
    one). Exits when a property is not a numeric one of rnndenoise or a
    value is out of its range."""
    set_by_props = {p.split("=", 1)[0] for p in shlex.split(runner.rnn_props)}
    runs = []
    for prop, values in sweeps.items():
        info = runner.properties.get(prop)
        if info is None:
            sys.exit("evaluate: rnndenoise has no numeric property %s (it "
                     "has %s)" % (prop, ", ".join(sorted(runner.properties))))
        default = effective_default(prop, info, model)
        for v in values:
            x = float(v)
            if not info["low"] <= x <= info["high"]:
                sys.exit("evaluate: %s=%s is outside %g…%g" % (
                    prop, v, info["low"], info["high"]))
            method = sweep_method(prop, v)
            same = x == default and prop not in set_by_props
            runs.append(dict(method=method, prop=prop, value=v, x=x,
                             default=x == default,
                             source="rnndenoise" if same else method))
    return runs


def run_methods(args, runner, mixtures, noise_free, sweep_mixtures=(),
                runs=()):
    jobs = []
    for m in mixtures:
        for method in METHODS[1:]:
            jobs.append((method, m["noisy"], output_path(args.work, method,
                                                         m)))
    for m in noise_free:
        for method in METHODS[1:]:
            jobs.append((method, m["clean"], output_path(args.work, method,
                                                         m, True)))
    for m in sweep_mixtures:
        for run in runs:
            if run["source"] == run["method"]:
                jobs.append((run["method"], m["noisy"], output_path(
                    args.work, run["method"], m)))
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        list(ex.map(runner.run, jobs))
    return len(jobs)


# ---- the ideal band gains (an upper bound, not a method) -------------------

def vorbis_window(n):
    t = np.sin(np.pi * (np.arange(n) + 0.5) / n) ** 2
    return np.sin(0.5 * np.pi * t)


def band_weights(edges, n_bins):
    """(bands, bins) triangular weights on the band centres; each bin's
    weights sum to 1, bins beyond the end centres belong to the end
    bands."""
    centres = [(edges[b] + edges[b + 1]) / 2.0 for b in range(len(edges) - 1)]
    w = np.zeros((len(centres), n_bins))
    k = np.arange(n_bins)
    for b, c in enumerate(centres):
        if b > 0:
            p = centres[b - 1]
            sel = (k > p) & (k <= c)
            w[b, sel] = (k[sel] - p) / (c - p)
        else:
            w[b, k <= c] = 1
        if b < len(centres) - 1:
            q = centres[b + 1]
            sel = (k > c) & (k < q)
            w[b, sel] = (q - k[sel]) / (q - c)
        else:
            w[b, k > c] = 1
    return w


def ideal_band_gains(clean, noisy, edges, hop=480, own_bins=0, highest=1.0):
    """The noisy signal with the ideal band gains sqrt(E_clean / E_noisy)
    (at most highest, 1 by default) applied in the element's STFT (Vorbis
    window of two hops, 50 % overlap) and band layout: the best that gains
    on these bands can do, given the clean speech. The lowest own_bins
    bins (none by default) take their own ideal gain |clean| / |noisy|
    instead, as a finer mask would (mask_ceiling.py compares them)."""
    win_len = 2 * hop
    win = vorbis_window(win_len)
    n = noisy.size
    frames = n // hop + 2
    pad = np.zeros(frames * hop + win_len)
    cpad, npad = pad.copy(), pad.copy()
    cpad[hop:hop + n], npad[hop:hop + n] = clean, noisy
    idx = np.arange(frames)[:, None] * hop + np.arange(win_len)[None, :]
    C = np.fft.rfft(cpad[idx] * win, axis=1)
    N = np.fft.rfft(npad[idx] * win, axis=1)
    w = band_weights(edges, C.shape[1])
    ec = (np.abs(C) ** 2) @ w.T
    en = (np.abs(N) ** 2) @ w.T
    g = np.minimum(np.sqrt(ec / (en + 1e-20)), highest) @ w
    if own_bins:
        g[:, :own_bins] = np.minimum(
            np.abs(C[:, :own_bins]) / (np.abs(N[:, :own_bins]) + 1e-20),
            highest)
    out = np.fft.irfft(N * g, n=win_len, axis=1) * win
    y = np.zeros(pad.size)
    for i in range(frames):
        y[i * hop:i * hop + win_len] += out[i]
    return y[hop:hop + n]


# ---- scoring --------------------------------------------------------------

def _lags(job):
    """Per-file best lag of each method's output against the clean
    speech."""
    m, work = job
    clean = read_wav(m["clean"])
    return {method: metrics.best_lag(clean, read_wav(output_path(
        work, method, m))) for method in METHODS[1:]}


def output_figures(clean, noisy, y, free):
    """The figures every report gives for one output y of a mixture: SI-SDR
    and its change from the input, STOI, noise reduction where no one speaks
    (free: the speech-free frames) and speech energy lost."""
    v = metrics.si_sdr(clean, y)
    return dict(si_sdr=v, d_si_sdr=v - metrics.si_sdr(clean, noisy),
                stoi=metrics.stoi(clean, y),
                nr=metrics.noise_reduction(noisy, y, free),
                lost=metrics.speech_energy_lost(clean, noisy - clean, y))


def _score(job):
    """Every figure of one mixture, for each method and the oracle."""
    m, work, lags, edges = job
    clean, noisy = read_wav(m["clean"]), read_wav(m["noisy"])
    n = clean.size
    speech, free = metrics.activity(clean)
    rows = []
    outputs = {"noisy": noisy, ORACLE: ideal_band_gains(clean, noisy, edges)}
    for method in METHODS[1:]:
        outputs[method] = metrics.align(
            read_wav(output_path(work, method, m)), lags[method], n)
    for method in METHODS + [ORACLE]:
        y = outputs[method]
        rows.append(dict(m, method=method,
                         **output_figures(clean, noisy, y, free),
                         sp_si_sdr=metrics.speech_si_sdr(clean, y, speech),
                         lsd=metrics.log_spectral_distance(clean, y, speech)))
    return rows


def _score_sweeps(job):
    """The figures of the sweep runs on one mixture."""
    m, work, lag, runs = job
    clean, noisy = read_wav(m["clean"]), read_wav(m["noisy"])
    _, free = metrics.activity(clean)
    rows = []
    for run in runs:
        y = metrics.align(read_wav(output_path(work, run["source"], m)), lag,
                          clean.size)
        rows.append(dict(m, method=run["method"], prop=run["prop"],
                         value=run["x"],
                         **output_figures(clean, noisy, y, free)))
    return rows


def _score_noise_free(job):
    m, work, lags = job
    clean = read_wav(m["clean"])
    speech, _ = metrics.activity(clean)
    rows = []
    for method in METHODS[1:]:
        y = metrics.align(read_wav(output_path(work, method, m, True)),
                          lags[method], clean.size)
        level = 10 * np.log10((np.sum(metrics._frames(y, speech) ** 2)
                               + metrics.EPS)
                              / (np.sum(metrics._frames(clean, speech) ** 2)
                                 + metrics.EPS))
        rows.append(dict(m, method=method, si_sdr=metrics.si_sdr(clean, y),
                         level=level, stoi=metrics.stoi(clean, y),
                         lost=metrics.speech_energy_lost(
                             clean, np.zeros(clean.size), y),
                         lsd=metrics.log_spectral_distance(clean, y,
                                                           speech)))
    return rows


LAG_TOLERANCE = 2  # samples; reported, not used for scoring


def constant_lags(per_file):
    """Each method's constant delay: the most common per-file lag; also
    the share of files whose own lag is within LAG_TOLERANCE of it."""
    lags, agree = {}, {}
    for method in METHODS[1:]:
        values = [d[method] for d in per_file]
        lag = collections.Counter(values).most_common(1)[0][0]
        lags[method] = lag
        agree[method] = np.mean([abs(v - lag) <= LAG_TOLERANCE
                                 for v in values])
    return lags, agree


# ---- aggregation ----------------------------------------------------------

def mean(rows, key, **where):
    vals = [r[key] for r in rows
            if all(r[k] in v if isinstance(v, (list, tuple, set))
                   else r[k] == v for k, v in where.items())]
    vals = [v for v in vals if v == v]
    return float(np.mean(vals)) if vals else float("nan")


def fmt(v, digits=1, plus=False):
    if v != v:
        return "–"
    if v > 99:
        return "> 99"
    v = round(v, digits) + 0.0  # no "-0.0"
    s = ("%+." if plus else "%.") + str(digits) + "f"
    return (s % v).replace("-", "−")


def md_table(header, rows, numeric=True):
    """A Markdown table; numeric columns (all but the first) are
    right-aligned."""
    align = "---:" if numeric else "---"
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] + [align] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def snr_label(s):
    return ("%+d dB" % s).replace("-", "−") if s else "0 dB"


def per_snr_table(rows, snrs, key, methods, digits=1, plus=False,
                  diff=None):
    """Rows: SNRs and the mean over LOW_SNRS; columns: methods, and with
    diff=(a, b) a last column a minus b."""
    header = ["SNR"] + [LABELS[mt] for mt in methods]
    if diff:
        header.append("%s − input" % diff[0] if diff[1] == "noisy"
                      else "%s − %s" % diff)
    body = []
    for s in snrs + [LOW_SNRS]:
        low = isinstance(s, list)
        cells = [mean(rows, key, snr=s, method=mt) for mt in methods]
        if diff:
            cells.append(mean(rows, key, snr=s, method=diff[0])
                         - mean(rows, key, snr=s, method=diff[1]))
        text = [fmt(v, digits, plus) for v in cells[:len(methods)]]
        if diff:
            text.append(fmt(cells[-1], digits + 1, True))
        if low:
            text = ["**%s**" % t for t in text]
        body.append(["**−5…10 dB**" if low else snr_label(s)] + text)
    return md_table(header, body)


def group_table(rows, snrs, where):
    """ΔSI-SDR and STOI per SNR for the mixtures matching `where`."""
    proc = METHODS[1:] + [ORACLE]
    header = (["SNR", "n"] + ["ΔSI-SDR " + LABELS[m].split(" ")[0]
                              for m in proc]
              + ["STOI " + LABELS[m].split(" ")[0] for m in METHODS])
    body = []
    for s in snrs + [LOW_SNRS]:
        label = "**−5…10 dB**" if isinstance(s, list) else snr_label(s)
        n = len([r for r in rows if r["method"] == "noisy"
                 and (r["snr"] in s if isinstance(s, list) else r["snr"] == s)
                 and all(r[k] in v for k, v in where.items())])
        sel = dict(where, snr=s)
        body.append([label, str(n)]
                    + [fmt(mean(rows, "d_si_sdr", method=m, **sel), 1, True)
                       for m in proc]
                    + [fmt(mean(rows, "stoi", method=m, **sel), 3)
                       for m in METHODS])
    return md_table(header, body)


def kind_table(rows, kinds, heldout):
    """Per noise kind, means over every SNR."""
    proc = METHODS[1:]
    header = (["noise kind"] + ["ΔSI-SDR " + m for m in proc]
              + ["STOI input", "STOI rnndenoise"]
              + ["lost " + m for m in proc] + ["NR " + m for m in proc])
    body = []
    for k in kinds:
        sel = dict(kind=k)
        name = k + (" (held out)" if k in heldout else "")
        body.append([name]
                    + [fmt(mean(rows, "d_si_sdr", method=m, **sel), 1, True)
                       for m in proc]
                    + [fmt(mean(rows, "stoi", method=m, **sel), 3)
                       for m in ("noisy", "rnndenoise")]
                    + [fmt(mean(rows, "lost", method=m, **sel), 2)
                       for m in proc]
                    + [fmt(mean(rows, "nr", method=m, **sel)) for m in proc])
    return md_table(header, body)


# ---- goals ----------------------------------------------------------------

def goals(rows, free_rows, snrs, kinds):
    """(goal, target, reached, met) for each quality goal, on one
    test set."""
    out = []
    r = "rnndenoise"
    d = {m: mean(rows, "d_si_sdr", method=m, snr=LOW_SNRS) for m in METHODS}
    out.append(("mean ΔSI-SDR, −5…10 dB", "≥ +8 dB",
                "%s dB" % fmt(d[r], 1, True), d[r] >= 8))
    out.append(("mean ΔSI-SDR, −5…10 dB, over speexdsp's",
                "≥ 3 dB (speexdsp: %s dB)" % fmt(d["speexdsp"], 1, True),
                "%s dB" % fmt(d[r] - d["speexdsp"], 1, True),
                d[r] - d["speexdsp"] >= 3))
    worst, at = min((mean(rows, "stoi", method=r, snr=s)
                     - mean(rows, "stoi", method="noisy", snr=s), s)
                    for s in snrs)
    out.append(("STOI above the noisy input at every SNR",
                "> 0 at each SNR", "smallest gain %s (at %s)" % (
                    fmt(worst, 4, True), snr_label(at)), worst > 0))
    lost = mean(rows, "lost", method=r)
    out.append(("speech energy lost in speech-dominated bins, all SNRs",
                "≤ 0.5 dB", "%s dB" % fmt(lost, 2), lost <= 0.5))
    nf = mean(free_rows, "si_sdr", method=r)
    out.append(("SI-SDR on noise-free speech", "≥ 30 dB", "%s dB" % fmt(nf),
                nf >= 30))
    per_kind = {k: mean(rows, "d_si_sdr", method=r, kind=k) for k in kinds}
    worse = sorted(k for k, v in per_kind.items() if v < 0)
    low = min(per_kind, key=lambda k: per_kind[k])
    out.append(("no noise kind made worse (ΔSI-SDR per kind, all SNRs)",
                "≥ 0 dB for each",
                # Two decimals: one would print a kind a hair below 0
                # as "+0.0".
                ("made worse: %s" % ", ".join(
                    "%s %s dB" % (k, fmt(per_kind[k], 2, True))
                    for k in worse)) if worse else
                "lowest: %s %s dB" % (low, fmt(per_kind[low], 1, True)),
                not worse))
    hum_r = mean(rows, "d_si_sdr", method=r, kind="hum")
    hum_s = mean(rows, "d_si_sdr", method="speexdsp", kind="hum")
    out.append(("hum at least as good as speexdsp (ΔSI-SDR, all SNRs)",
                "≥ speexdsp (%s dB)" % fmt(hum_s, 1, True),
                "%s dB" % fmt(hum_r, 1, True), hum_r >= hum_s))
    nr = mean(rows, "nr", method=r)
    out.append(("noise reduction where no one speaks, all SNRs", "≥ 20 dB",
                "%s dB" % fmt(nr), nr >= 20))
    return out


def goals_table(goal_rows):
    return md_table(["goal", "target", "rnndenoise", "met"],
                    [[g[0], g[1], g[2], "yes" if g[3] else "**no**"]
                     for g in goal_rows], numeric=False)


def _bullet(text):
    return textwrap.fill(text, 76, initial_indent="- ",
                         subsequent_indent="  ")


def discussion(rows, free_rows, snrs, heldout, goal_rows):
    """Plain statements about what falls short and what limits it, from
    the figures of one test set."""
    lines = []
    short = [g for g in goal_rows if not g[3]]
    if not short:
        lines.append("Every goal is met on this test set.")
    else:
        met = [g[0] for g in goal_rows if g[3]]
        lines.append("%d of %d goals %s met%s; the table gives how far "
                     "the others fall short." % (
                         len(met), len(goal_rows),
                         "is" if len(met) == 1 else "are",
                         " (%s)" % "; ".join(met) if met else ""))
    r = "rnndenoise"
    d_r = mean(rows, "d_si_sdr", method=r, snr=LOW_SNRS)
    d_o = mean(rows, "d_si_sdr", method=ORACLE, snr=LOW_SNRS)
    best_b = max(BASELINES, key=lambda b: mean(rows, "d_si_sdr", method=b,
                                                snr=LOW_SNRS))
    d_b = mean(rows, "d_si_sdr", method=best_b, snr=LOW_SNRS)
    lines.append(
        "Against the baselines: mean ΔSI-SDR over −5…10 dB is %s dB for "
        "rnndenoise and %s dB for the better baseline (%s)."
        % (fmt(d_r, 1, True), fmt(d_b, 1, True), best_b))
    lines.append(
        "Ceiling of the design: the ideal band gains (from the clean "
        "speech, in the element's STFT and %d bands) reach %s dB mean "
        "ΔSI-SDR over −5…10 dB; rnndenoise reaches %.0f %% of that "
        "ceiling." % (len(EDGES) - 1, fmt(d_o, 1, True),
                      100 * d_r / d_o if d_o > 0 else float("nan")))
    lost = {m: mean(rows, "lost", method=m) for m in METHODS[1:]}
    lines.append(
        "Speech energy lost where the speech dominates the noise: %s."
        % ", ".join("%s %s dB" % (m, fmt(v, 2)) for m, v in lost.items()))
    by_group = {g: mean(rows, "d_si_sdr", method=r, group=g, snr=LOW_SNRS)
                for g in GROUPS if any(x["group"] == g for x in rows)}
    weakest = min(by_group, key=lambda g: by_group[g])
    why = {"babble": ": babble is speech, and band gains from one "
           "channel can tell the target voice from the crowd only by "
           "level and continuity",
           "non-stationary": ": the noise changes faster than the "
           "network's estimate of it"}.get(weakest, "")
    lines.append(
        "By noise group (rnndenoise, ΔSI-SDR over −5…10 dB): %s; the "
        "weakest is %s%s." % (", ".join("%s %s dB" % (g, fmt(v, 1, True))
                                        for g, v in by_group.items()),
                              weakest, why))
    if heldout:
        h = mean(rows, "d_si_sdr", method=r, kind=heldout, snr=LOW_SNRS)
        seen = sorted({x["kind"] for x in rows} - set(heldout))
        s = mean(rows, "d_si_sdr", method=r, kind=seen, snr=LOW_SNRS)
        if h < s - 0.5:
            tail = ("%s dB less: this much of what it learnt does not carry "
                    "over to noise it has not heard" % fmt(s - h, 1))
        else:
            tail = "no loss on the unseen kinds"
        lines.append(
            "Held-out noise kinds (%s): %s dB against %s dB on the kinds "
            "seen in training, %s." % (", ".join(heldout), fmt(h, 1, True),
                                       fmt(s, 1, True), tail))
    nr_r = mean(rows, "nr", method=r)
    if nr_r < 20:
        lines.append(
            "Where no one speaks: %s dB of noise reduction, short of 20 dB: "
            "the network's gains in noise-only frames stay around %s "
            "rather than near 0. The attenuation-limit property can only "
            "lower this figure; a VAD gate (vad-threshold) would silence "
            "those frames." % (fmt(nr_r), "%.2f" % 10 ** (-nr_r / 20)))
    nf = mean(free_rows, "si_sdr", method=r)
    lvl = mean(free_rows, "level", method=r)
    text = ("On noise-free speech rnndenoise scores %s dB SI-SDR, loses "
            "%s dB of speech energy and changes the level of the speech "
            "frames by %s dB" % (fmt(nf), fmt(mean(free_rows, "lost",
                                                    method=r), 2),
                                 fmt(lvl, 1, True)))
    if nf < 30:
        text += (": it takes part of the speech for noise (gains below 1 "
                 "on speech bands), which also bounds its ΔSI-SDR at high "
                 "SNR")
    lines.append(text + ".")
    d20 = mean(rows, "d_si_sdr", method=r, snr=max(snrs))
    if d20 < 0:
        lines.append(
            "At %d dB the output is worse than the input (ΔSI-SDR %s dB): "
            "the speech distortion outweighs the little noise there is to "
            "remove." % (max(snrs), fmt(d20, 1, True)))
    return "\n".join(_bullet(x) for x in lines)


# ---- plots ----------------------------------------------------------------

def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_curves(rows, snrs, heldout, title, path):
    """ΔSI-SDR, STOI and speech lost per SNR over every mixture (top);
    noise reduction where no one speaks, ΔSI-SDR on babble and on the
    held-out kinds (bottom)."""
    plt = _pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.6))
    proc = METHODS[1:] + [ORACLE]
    panels = [
        ("d_si_sdr", "ΔSI-SDR (dB), all noise kinds", proc, {}, 8),
        ("stoi", "STOI, all noise kinds", METHODS + [ORACLE], {}, None),
        ("lost", "speech energy lost in speech-dominated bins (dB)",
         METHODS, {}, 0.5),
        ("nr", "noise reduction where no one speaks (dB)", METHODS[1:], {},
         20),
        ("d_si_sdr", "ΔSI-SDR (dB), babble", proc, {"group": "babble"}, 8),
        ("d_si_sdr", "ΔSI-SDR (dB), held-out kinds\n(%s)" % ", ".join(
            heldout), proc, {"kind": heldout}, 8),
    ]
    for ax, (key, name, methods, where, goal) in zip(axes.flat, panels):
        for m in methods:
            # The input is drawn wide, so a method on top of it shows.
            ax.plot(snrs, [mean(rows, key, method=m, snr=s, **where)
                           for s in snrs],
                    marker="o", color=COLOURS[m], label=LABELS[m],
                    linestyle="--" if m == ORACLE else "-",
                    linewidth=5 if m == "noisy" else 1.5,
                    alpha=0.6 if m == "noisy" else 1.0)
        if goal is not None:
            ax.axhline(goal, color="k", linewidth=0.8, linestyle=":")
        ax.set_xlabel("input SNR (dB)")
        ax.set_title(name, fontsize=10)
        ax.set_xticks(snrs)
        ax.grid(alpha=0.3)
    axes[0, 1].legend(fontsize=8, loc="lower right")
    fig.suptitle("%s, held-out test mixtures (dotted: goals)" % title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_spectrograms(example, work, lags, path):
    from scipy.signal import spectrogram
    plt = _pyplot()

    clean = read_wav(example["clean"])
    signals = [("clean speech (%s)" % example["voice"], clean),
               ("noisy input (%s, %s)" % (example["kind"],
                                          snr_label(example["snr"])),
                read_wav(example["noisy"]))]
    for m in METHODS[1:]:
        signals.append((LABELS[m], metrics.align(
            read_wav(output_path(work, m, example)), lags[m], clean.size)))
    fig, axes = plt.subplots(len(signals), 1, figsize=(11, 2.1 * len(
        signals)), sharex=True)
    ref = None
    for ax, (title, x) in zip(axes, signals):
        f, t, s = spectrogram(x, RATE, window="hann", nperseg=1024,
                              noverlap=768)
        db = 10 * np.log10(s + 1e-14)
        if ref is None:
            ref = db.max()
        ax.pcolormesh(t, f / 1000, db, vmin=ref - 80, vmax=ref,
                      shading="auto", cmap="magma")
        ax.set_ylim(0, 16)
        ax.set_ylabel("kHz")
        ax.set_title(title, fontsize=9, loc="left")
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# ---- property sweeps ------------------------------------------------------

def sweep_unit(info):
    """The unit the property's description names ("in dB"), or ""."""
    u = re.search(r"\bin (dB|ns|ms|s|Hz)\b", info["blurb"])
    return u.group(1) if u else ""


def sweep_label(run, info):
    """A value as the report shows it: "1 (default)", "0 (unlimited)"."""
    notes = []
    zero = re.search(r"\(0 = ([^,)]+)[,)]", info["blurb"])
    if run["x"] == 0 and zero:
        notes.append(zero.group(1))
    if run["default"]:
        notes.append("default")
    return "%g" % run["x"] + (" (%s)" % ", ".join(notes) if notes else "")


def sweep_summary(sweep_rows, runs):
    """Per run of one property: (run, ΔSI-SDR −5…10 dB, STOI −5…10 dB,
    speech lost, noise reduction where no one speaks), by value (a 0
    that means "no bound" last)."""
    order = sorted(runs, key=lambda r: (r["prop"] in UNBOUNDED_AT_0
                                        and r["x"] == 0, r["x"]))
    out = []
    for run in order:
        sel = dict(method=run["method"])
        out.append((run,
                    mean(sweep_rows, "d_si_sdr", snr=LOW_SNRS, **sel),
                    mean(sweep_rows, "stoi", snr=LOW_SNRS, **sel),
                    mean(sweep_rows, "lost", **sel),
                    mean(sweep_rows, "nr", **sel)))
    return out


def plot_sweep(summary, prop, info, path):
    """Noise reduction where no one speaks against speech lost, one point
    per value (left); ΔSI-SDR against the value (right)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax = axes[0]
    ax.plot([s[3] for s in summary], [s[4] for s in summary], marker="o",
            color=COLOURS["rnndenoise"])
    for s in summary:
        ax.annotate(sweep_label(s[0], info), (s[3], s[4]), fontsize=8,
                    xytext=(4, 4), textcoords="offset points")
    ax.axhline(20, color="k", linewidth=0.8, linestyle=":")
    ax.axvline(0.5, color="k", linewidth=0.8, linestyle=":")
    ax.set_xlabel("speech energy lost in speech-dominated bins (dB)")
    ax.set_ylabel("noise reduction where no one speaks (dB)")
    ax.grid(alpha=0.3)
    ax = axes[1]
    xs = [s[0]["x"] for s in summary]
    if prop in UNBOUNDED_AT_0:
        # "No bound" is drawn one step beyond the largest value.
        finite = sorted(x for x in xs if x > 0) or [0.0]
        step = ((finite[-1] - finite[0]) / (len(finite) - 1)
                if len(finite) > 1 else finite[-1] / 2 or 1.0)
        xs = [x if x > 0 else finite[-1] + step for x in xs]
    ax.plot(xs, [s[1] for s in summary], marker="o",
            color=COLOURS["rnndenoise"])
    ax.axhline(8, color="k", linewidth=0.8, linestyle=":")
    ax.set_xticks(xs)
    ax.set_xticklabels([sweep_label(s[0], info).replace(" (", "\n(")
                        for s in summary], fontsize=8)
    unit = sweep_unit(info)
    ax.set_xlabel(prop + (" (%s)" % unit if unit else ""))
    ax.set_ylabel("mean ΔSI-SDR, −5…10 dB (dB)")
    ax.grid(alpha=0.3)
    fig.suptitle("rnndenoise %s on the recorded voices (dotted: goals)"
                 % prop)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def sweep_section(sweep_rows, runs, info, docs, rnn_cmd):
    """One property's section of the report (and its plot)."""
    prop = runs[0]["prop"]
    png = SWEEP_PLOTS.get(prop, "quality-%s.png" % prop)
    summary = sweep_summary(sweep_rows, runs)
    plot_sweep(summary, prop, info, os.path.join(docs, png))
    unit = sweep_unit(info)
    table = md_table(
        [prop + (" (%s)" % unit if unit else ""), "ΔSI-SDR −5…10 dB",
         "STOI −5…10 dB", "speech lost (dB)",
         "NR where no one speaks (dB)"],
        [[sweep_label(s[0], info), fmt(s[1], 1, True), fmt(s[2], 3),
          fmt(s[3], 2), fmt(s[4])] for s in summary])
    both = [sweep_label(s[0], info) for s in summary
            if s[3] <= 0.5 and s[4] >= 20]
    best = max(summary, key=lambda s: s[1])
    goals_text = "the speech-lost (≤ 0.5 dB) and the noise-reduction " \
        "(≥ 20 dB) goals"
    if not both:
        text = "No value meets both %s" % goals_text
    elif len(both) == 1:
        text = "Only %s meets both %s" % (both[0], goals_text)
    else:
        text = "%s and %s meet both %s" % (", ".join(both[:-1]), both[-1],
                                           goals_text)
    text += ("; the highest mean ΔSI-SDR over −5…10 dB, %s dB, is at %s."
             % (fmt(best[1], 1, True), sweep_label(best[0], info)))
    intro = ("rnndenoise with each `%s` value on every recorded-voice "
             "mixture; every other property as in the main run (`%s`). "
             "Speech lost and noise reduction are means over all SNRs."
             % (prop, rnn_cmd))
    return ("## Choosing %s (recorded voices)\n\n%s\n\n%s\n\n%s\n\n"
            "![Noise reduction, speech lost and ΔSI-SDR against %s](%s)"
            % (prop, textwrap.fill(intro, 76), table,
               textwrap.fill(text, 76), prop, png))


def sweep_sections(sweep_rows, runs, properties, docs, rnn_cmd):
    """A section per swept property, or a note on how to run them."""
    props = list(collections.OrderedDict.fromkeys(r["prop"] for r in runs))
    if not props:
        return ("## Choosing property values (recorded voices)\n\n"
                + textwrap.fill(
                    "Not run for this report: `ATTENUATION_LIMITS=\"0 6 12 "
                    "18 24 30\" SPEECH_PROTECTIONS=\"0 0.5 1 1.5 2\" "
                    "STATIONARY_SUPPRESSIONS=\"0 1 2\" "
                    "HARMONIC_LIFTS=\"0 0.5 1\" "
                    "tests/quality/run.sh` runs rnndenoise once per value "
                    "on the recorded voices and adds a section with a "
                    "table and a plot here for each property.", 76))
    return "\n\n".join(
        sweep_section(sweep_rows, [r for r in runs if r["prop"] == p],
                      properties[p], docs, rnn_cmd) for p in props)


# ---- band-limited input ---------------------------------------------------

# What a band limit stands for in the report.
BAND_NOTES = {3400: "a telephone's", 4000: "a telephone's",
              5512: "11.025 kHz audio", 7000: "a wideband codec's",
              8000: "16 kHz audio", 11025: "22.05 kHz audio",
              12000: "24 kHz audio", 16000: "an MP3 encoder's"}
BAND_SET = "band"  # the set key of the band-limited mixtures
# The band-limited section's row of the recorded telephone voices
# (--phone-testdir), low-passed at a telephone's upper band edge as a call
# carries speech and noise alike.
PHONE = "phone"
PHONE_LIMIT_HZ = 4000


def band_not_run(setting):
    """The band-limited section of a report run without it; SETTING: the
    run.sh setting that runs it, with example limits."""
    return "## Band-limited input (recorded voices)\n\n" + textwrap.fill(
        "Not run for this report: `%s tests/quality/run.sh` runs every "
        "method once more on the recorded voices of the first seed "
        "low-passed at each limit and adds its tables here." % setting, 76,
        break_on_hyphens=False)


def band_label(limit):
    if not limit:
        return "none (full band)"
    if limit == PHONE:
        return "%g kHz, recorded telephone voices" % (PHONE_LIMIT_HZ / 1000.0)
    note = BAND_NOTES.get(int(limit))
    return "%g kHz%s" % (limit / 1000.0, " (%s)" % note if note else "")


def band_record(m, limit):
    """Mixture M's record in the band-limited set at LIMIT Hz (or PHONE: a
    telephone voice's mixture); its "cutoff" is where it is low-passed."""
    return dict(m, id="%s%s/%s" % (BAND_SET, limit, m["id"]), set=BAND_SET,
                limit=limit, cutoff=PHONE_LIMIT_HZ if limit == PHONE
                else limit)


def _write_band_limited(job):
    """One mixture low-passed at one limit: its clean and noisy files
    (the noisy input is clean plus noise, so low-passing it is low-passing
    both; float32, not clipped) and its mixture record."""
    m, limit, work = job
    base = os.path.join(work, "band", str(limit), m["id"])
    os.makedirs(os.path.dirname(base), exist_ok=True)
    out = dict(band_record(m, limit), clean=base + "_clean.wav",
               noisy=base + "_noisy.wav")
    for key in ("clean", "noisy"):
        wavfile.write(out[key], RATE, metrics.band_limit(
            read_wav(m[key]), out["cutoff"]).astype(np.float32))
    return out


def band_limited_mixtures(mixtures, limits, work, jobs, phone=()):
    """MIXTURES again at each band limit (Hz), under WORK/band/LIMIT/, and
    the telephone voices' mixtures PHONE low-passed under WORK/band/phone/."""
    ctx = get_context("fork")
    with ctx.Pool(jobs) as pool:
        return pool.map(_write_band_limited, [(m, limit, work)
                                              for limit in limits
                                              for m in mixtures] +
                        [(m, PHONE, work) for m in phone])


def band_table(rows, limits, key, methods, labels, digits, plus=False,
               **where):
    """Rows: band limits (0: the mixtures as they are; PHONE: the telephone
    voices); columns: methods."""
    body = []
    for limit in [0] + limits:
        body.append([band_label(limit)] + [
            fmt(mean(rows, key, method=mt, limit=limit, **where), digits,
                plus) for mt in methods])
    return md_table(["band limit"] + [labels[mt] for mt in methods], body)


def band_section(full_rows, band_rows, limits, seeds, methods=None,
                 labels=None, how="every method runs on them as in the main "
                 "run"):
    """The report's section on band-limited input: the recorded voices of
    one seed, as they are (FULL_ROWS: the rows of every mixture) and
    low-passed at each limit (BAND_ROWS); METHODS: the columns, by default
    this report's processing methods and the oracle; the noise reduction
    table leaves the oracle out."""
    methods = methods or METHODS[1:] + [ORACLE]
    labels = labels or LABELS
    ids = {r["id"] for r in band_rows if r["limit"] != PHONE}
    phone_ids = {r["id"] for r in band_rows if r["limit"] == PHONE}
    rows = [dict(r, limit=0) for r in full_rows
            if "%s%d/%s" % (BAND_SET, limits[0], r["id"]) in ids]
    rows += band_rows
    keys = limits + ([PHONE] if phone_ids else [])
    noisy_stoi = {r["id"]: r["stoi"] for r in rows if r["method"] == "noisy"}
    stoi_gain = [dict(r, stoi_gain=r["stoi"] - noisy_stoi[r["id"]])
                 for r in rows if r["method"] != "noisy"]
    intro = (
        "Recorded speech often has nothing above some frequency: a "
        "telephone's 3.4-4 kHz, audio sampled at 16 or 22.05 kHz and "
        "played at 48 kHz, an MP3 encoder's 16 kHz. Here the recorded-"
        "voice mixtures of seed %s (%d of them) are low-passed at each "
        "limit (speech and noise alike, at 48 kHz: a linear-phase FIR, "
        "%.0f dB down from the limit on, 1 kHz of transition below it; the "
        "low-passed clean speech is the reference) and %s." % (
            seeds, len(ids) // len(limits), metrics.BAND_LIMIT_DB, how))
    if phone_ids:
        intro += (
            " The last row is another set: %d mixtures of recorded telephone "
            "prompts (`synth.py --phone`: the voices split.txt keeps for "
            "this test, professional speakers recorded at 8 kHz in five "
            "languages, which neither training nor any choice between "
            "models has heard) over the same noise kinds and SNRs, "
            "low-passed at %g kHz as a call carries speech and noise; its "
            "clean speech is the reference." % (
                len(phone_ids), PHONE_LIMIT_HZ / 1000.0))
    parts = [
        "## Band-limited input (recorded voices)",
        textwrap.fill(intro, 76, break_on_hyphens=False),
        "**Mean ΔSI-SDR over −5…10 dB (dB)**",
        band_table(rows, keys, "d_si_sdr", methods, labels, 1, True,
                   snr=LOW_SNRS),
        "**STOI gain over the noisy input, −5…10 dB**",
        band_table(stoi_gain, keys, "stoi_gain", methods, labels, 4, True,
                   snr=LOW_SNRS),
        "**Speech energy lost in speech-dominated bins, all SNRs (dB)**",
        band_table(rows, keys, "lost", methods, labels, 2),
        "**Noise reduction where no one speaks, all SNRs (dB)**",
        band_table(rows, keys, "nr", [m for m in methods if m != ORACLE],
                   labels, 1)]
    return "\n\n".join(parts)

# ---- main -----------------------------------------------------------------

EDGES = []
FRAME_HOP = 480


def data_note(seconds):
    if seconds < 30:
        return "with the test mixtures already made (they are kept)"
    return "of which %.0f min went to making the test mixtures" % (
        seconds / 60.0)


def speech_protection_note(runner, model):
    """How the report names the speech protection rnndenoise ran with by
    default: "-1 (the model file's own: 0.5)" or "1"."""
    default = float(runner.properties.get("speech-protection", {}).get(
        "default", "nan"))
    if default < 0:
        return "%g (the model file's own: %g)" % (default,
                                                   model_protection(model))
    return "%g" % default


def model_info(tool, model):
    out = subprocess.run([tool, "info", model], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    info = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


def set_kinds(mixtures):
    """The noise kinds of some mixtures, in the order of GROUPS."""
    kinds = [k for g in GROUPS.values() for k in g
             if any(m["kind"] == k for m in mixtures)]
    return kinds + sorted({m["kind"] for m in mixtures} - set(kinds))


def seeds_of(testdirs):
    return ", ".join(os.path.basename(os.path.dirname(os.path.abspath(
        d))).replace("seed", "") for d in testdirs)


def section(key, mixtures, rows, free_rows, work, lags, docs, example):
    """One test set's section of the report and its plots; returns
    (text, goal rows)."""
    title, _, prefix = SETS[key]
    snrs = sorted({m["snr"] for m in mixtures})
    heldout = sorted({m["kind"] for m in mixtures if m["heldout"]})
    kinds = set_kinds(mixtures)
    proc = METHODS[1:] + [ORACLE]
    kind, snr = example.split(":")
    ex = next((m for m in mixtures if m["kind"] == kind
               and m["snr"] == int(snr)), mixtures[0])
    plot_curves(rows, snrs, heldout, title, os.path.join(
        docs, prefix + "curves.png"))
    plot_spectrograms(ex, work, lags, os.path.join(
        docs, prefix + "spectrograms.png"))
    goal_rows = goals(rows, free_rows, snrs, kinds)
    free_table = md_table(
        ["method", "SI-SDR (dB)", "level change (dB)", "speech lost (dB)",
         "STOI", "LSD (dB)"],
        [[LABELS[m], fmt(mean(free_rows, "si_sdr", method=m)),
          fmt(mean(free_rows, "level", method=m), 1, True),
          fmt(mean(free_rows, "lost", method=m), 2),
          fmt(mean(free_rows, "stoi", method=m), 3),
          fmt(mean(free_rows, "lsd", method=m), 2)] for m in METHODS[1:]])
    present = [(g, [k for k in ks if k in kinds]) for g, ks in
               GROUPS.items()]
    values = {
        "title": title,
        "n_mixtures": str(len(mixtures)),
        "voices": ", ".join(sorted({m["voice"] for m in mixtures})),
        "goals_table": goals_table(goal_rows),
        "discussion": discussion(rows, free_rows, snrs, heldout, goal_rows),
        "dsisdr_table": per_snr_table(rows, snrs, "d_si_sdr", proc, 1, True),
        "stoi_table": per_snr_table(rows, snrs, "stoi", METHODS + [ORACLE],
                                    3, diff=("rnndenoise", "noisy")),
        "lost_table": per_snr_table(rows, snrs, "lost", METHODS + [ORACLE],
                                    2),
        "nr_table": per_snr_table(rows, snrs, "nr", proc, 1),
        "sisdr_table": per_snr_table(rows, snrs, "si_sdr", METHODS + [ORACLE],
                                     1),
        "spsisdr_table": per_snr_table(rows, snrs, "sp_si_sdr",
                                       METHODS + [ORACLE], 1),
        "lsd_table": per_snr_table(rows, snrs, "lsd", METHODS + [ORACLE], 2),
        "curves_png": prefix + "curves.png",
        "spectrograms_png": prefix + "spectrograms.png",
        "group_tables": "\n\n".join(
            "**%s** (%s)\n\n%s" % (g, ", ".join(k), group_table(
                rows, snrs, {"group": [g]})) for g, k in present if k),
        "heldout_kinds": ", ".join(heldout),
        "heldout_table": group_table(rows, snrs, {"kind": heldout}),
        "seen_table": group_table(rows, snrs, {"kind": sorted(
            set(kinds) - set(heldout))}),
        "kind_table": kind_table(rows, kinds, heldout),
        "free_table": free_table,
        "n_noise_free": str(len(free_rows) // len(METHODS[1:])),
        "example": "%s at %s, %s" % (ex["kind"], snr_label(ex["snr"]),
                                     ex["voice"]),
    }
    with open(os.path.join(HERE, "quality-section.md.in")) as f:
        text = string.Template(f.read()).substitute(values)
    return text, goal_rows


def score_all(args, mixtures, noise_free, sweep_mixtures, runs, band=()):
    """Delays, per-mixture rows, noise-free rows, sweep rows and the rows
    of the band-limited mixtures (scored with the delays of the others)."""
    ctx = get_context("fork")
    with ctx.Pool(args.jobs) as pool:
        per_file = pool.map(_lags, [(m, args.work) for m in mixtures])
        lags, agree = constant_lags(per_file)
        print("evaluate: constant delays %s" % ", ".join(
            "%s %d samples (%.0f %% of files within %d)"
            % (m, lags[m], 100 * agree[m], LAG_TOLERANCE)
            for m in lags), flush=True)
        rows = [r for rs in pool.map(_score, [(m, args.work, lags, EDGES)
                                             for m in mixtures]) for r in rs]
        free_rows = [r for rs in pool.map(_score_noise_free, [
            (m, args.work, lags) for m in noise_free]) for r in rs]
        sweep_rows = [r for rs in pool.map(_score_sweeps, [
            (m, args.work, lags["rnndenoise"], runs)
            for m in sweep_mixtures]) for r in rs] if runs else []
        band_rows = [r for rs in pool.map(_score, [(m, args.work, lags, EDGES)
                                                  for m in band]) for r in rs]
    return lags, agree, rows, free_rows, sweep_rows, band_rows


def write_scores(path, rows, sweep_rows):
    """Every per-file figure, one row per mixture and method (a
    band-limited mixture's band limit in Hz or "phone"; empty for the
    others)."""
    keys = ["id", "set", "snr", "kind", "group", "heldout", "voice",
            "method", "limit", "si_sdr", "d_si_sdr", "stoi", "nr", "lost",
            "sp_si_sdr", "lsd"]
    with open(path, "w") as f:
        f.write("\t".join(keys) + "\n")
        for r in rows + sweep_rows:
            f.write("\t".join(str(r.get(k, "")) for k in keys) + "\n")


def add_common_arguments(ap):
    """The arguments of this script that evaluate16k.py takes too: test
    folders, build, speex_denoise tool, work and docs folders, jobs."""
    ap.add_argument("testdirs", nargs="*",
                    help="test/ folders of synth.py (TTS voices)")
    ap.add_argument("--real-testdir", action="append", default=[],
                    dest="real_testdirs", metavar="DIR",
                    help="a test-real/ folder of synth.py (recorded "
                    "voices); may be given more than once")
    ap.add_argument("--build", required=True)
    ap.add_argument("--speex", required=True, help="the speex_denoise tool")
    ap.add_argument("--work", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--band-limit", action="append", type=int, default=[],
                    dest="band_limits", metavar="HZ",
                    help="run every method once more on the recorded voices "
                    "of the first --real-testdir low-passed at HZ, for the "
                    "report's band-limited section; may be given more than "
                    "once")
    ap.add_argument("--phone-testdir", metavar="DIR",
                    help="a test-phone/ folder of synth.py --phone "
                    "(recorded telephone voices): every method runs on it "
                    "too, low-passed at 4 kHz, for one more row of the "
                    "band-limited section (needs --band-limit)")


def band_limits_of(ap, args, rate=RATE):
    """The --band-limit values, highest first, after checking them
    (below RATE's Nyquist frequency, with recorded voices to run on)."""
    if args.band_limits and not args.real_testdirs:
        ap.error("--band-limit needs --real-testdir")
    if args.phone_testdir and not args.band_limits:
        ap.error("--phone-testdir needs --band-limit")
    bad = [hz for hz in args.band_limits if not 0 < hz < rate // 2]
    if bad:
        ap.error("--band-limit %d: not between 0 and %d Hz"
                 % (bad[0], rate // 2))
    return sorted(set(args.band_limits), reverse=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(ap)
    ap.add_argument("--model", required=True)
    ap.add_argument("--model-name", help="how the report names the model")
    ap.add_argument("--sweep", action="append", default=[],
                    dest="sweeps", metavar='PROPERTY="V1 V2 ..."',
                    help="extra rnndenoise runs on the recorded voices, one "
                    "per value of a numeric property, e.g. "
                    "attenuation-limit=\"0 12 24\"; may be given once per "
                    "property")
    ap.add_argument("--example", default="keyboard:5",
                    help="KIND:SNR of the spectrogram example, TTS voices")
    ap.add_argument("--real-example", default="hum:5",
                    help="KIND:SNR of the spectrogram example, recorded "
                    "voices")
    args = ap.parse_args()
    if not args.testdirs and not args.real_testdirs:
        ap.error("no test folders")
    start = float(os.environ.get("QUALITY_START", time.time()))
    os.makedirs(args.work, exist_ok=True)
    sweeps = parse_sweeps(args.sweeps)
    if sweeps and not args.real_testdirs:
        ap.error("--sweep needs --real-testdir")
    band_limits = band_limits_of(ap, args)

    info = model_info(os.path.join(args.build, "dsp", "rnndenoise-model"),
                      args.model)
    EDGES[:] = [int(v) for v in info["band edges"].split()]
    hop = int(info["hop"].split()[0])
    if int(info["sample rate"].split()[0]) != RATE or hop != FRAME_HOP:
        sys.exit("evaluate: the model must be 48 kHz with 10 ms hops")

    dirs = {"real": args.real_testdirs, "tts": args.testdirs}
    by_set = {k: load_mixtures(dirs[k], k) for k in SETS if dirs[k]}
    mixtures = [m for k in by_set for m in by_set[k]]
    noise_free = [m for m in mixtures if m["snr"] == NOISE_FREE_SNR]
    sweep_mixtures = by_set.get("real", []) if sweeps else []
    for k, ms in by_set.items():
        print("evaluate: %s: %d mixtures (%d SNRs, %d noise kinds)"
              % (SETS[k][0], len(ms), len({m["snr"] for m in ms}),
                 len({m["kind"] for m in ms})), flush=True)
    band = []
    if band_limits:
        first = args.real_testdirs[:1]
        phone = (load_mixtures([args.phone_testdir], "real")
                 if args.phone_testdir else [])
        band = band_limited_mixtures(load_mixtures(first, "real"),
                                     band_limits, args.work, args.jobs, phone)
        print("evaluate: %d band-limited mixtures (%s Hz), %d of them of "
              "telephone voices" % (len(band), " ".join(
                  "%d" % hz for hz in band_limits), len(phone)), flush=True)
    runner = Runner(args)
    runner.check()
    runs = sweep_runs(sweeps, runner, info)
    print("evaluate: %d noise-free tracks, %d sweep runs (%s); model %s"
          % (len(noise_free), len(runs), ", ".join(
              "%s %s" % (p, " ".join(v)) for p, v in sweeps.items())
             or "none", info["model id"]), flush=True)
    t0 = time.time()
    n_runs = run_methods(args, runner, mixtures + band, noise_free,
                         sweep_mixtures, runs)
    t_run = time.time() - t0
    print("evaluate: %d method runs in %.0f s" % (n_runs, t_run), flush=True)
    lags, agree, rows, free_rows, sweep_rows, band_rows = score_all(
        args, mixtures, noise_free, sweep_mixtures, runs, band)
    print("evaluate: scored in %.0f s" % (time.time() - t0 - t_run),
          flush=True)
    write_scores(os.path.join(args.work, "scores.tsv"), rows,
                 sweep_rows + band_rows)

    sections, summary, all_goals = [], [], {}
    examples = {"real": args.real_example, "tts": args.example}
    for k in by_set:
        text, goal_rows = section(
            k, by_set[k], [r for r in rows if r["set"] == k],
            [r for r in free_rows if r["set"] == k], args.work, lags,
            args.docs, examples[k])
        sections.append(text)
        all_goals[k] = goal_rows
        summary.append("- **%s**: %d of %d goals met." % (
            SETS[k][0], sum(1 for g in goal_rows if g[3]), len(goal_rows)))

    first = next(iter(by_set.values()))
    seconds = np.mean([read_wav(m["clean"]).size for m in first[:3]]) / RATE
    counts = collections.Counter((m["set"], m["snr"], m["kind"])
                                 for m in mixtures)
    kinds = set_kinds(mixtures)
    data = []
    for k, ms in by_set.items():
        data.append(_bullet(
            "**%s**: %s; `%s/snrS/` of seeds %s, %d mixtures (%.0f min). "
            "Voices: %s." % (
                SETS[k][0], SETS[k][1],
                "test-real" if k == "real" else "test", seeds_of(dirs[k]),
                len(ms), len(ms) * seconds / 60,
                ", ".join(sorted({m["voice"] for m in ms})))))
    keys = list(all_goals)
    summary_table = md_table(
        ["goal", "target"] + [SETS[k][0] for k in keys],
        [[g[0], g[1]] + ["%s (%s)" % (all_goals[k][i][2], "met"
                                     if all_goals[k][i][3] else "**not met**")
                         for k in keys]
         for i, g in enumerate(all_goals[keys[0]])], numeric=False)
    values = {
        "model_name": args.model_name or os.path.basename(args.model),
        "model_id": info["model id"],
        "model_params": info.get("parameters", "?"),
        "model_layers": info.get("layers", "?"),
        "n_bands": str(len(EDGES) - 1),
        "goals_summary": "\n".join(summary),
        "goals_table": summary_table,
        "sets_data": "\n".join(data),
        "per_cell": str(min(counts.values())),
        "seconds": "%.0f" % seconds,
        "snrs": ", ".join("%d" % s for s in sorted(
            {m["snr"] for m in mixtures})).replace("-", "−"),
        "kinds": ", ".join(kinds),
        "heldout_kinds": ", ".join(sorted({m["kind"] for m in mixtures
                                           if m["heldout"]})),
        "groups": "; ".join("%s: %s" % (g, ", ".join(k)) for g, k in
                            GROUPS.items()),
        "noise_free_snr": str(NOISE_FREE_SNR),
        "speex_cmd": runner.describe("speexdsp"),
        "webrtc_cmd": runner.describe("webrtcdsp"),
        "rnn_cmd": runner.describe("rnndenoise"),
        "lags": ", ".join("%s %d samples (%.1f ms; %.0f %%)"
                          % (m, lags[m], 1000.0 * lags[m] / RATE,
                             100 * agree[m]) for m in METHODS[1:]),
        "lag_tolerance": str(LAG_TOLERANCE),
        "lost_fft": str(metrics.LOST_FFT),
        "lost_hop": str(metrics.LOST_HOP),
        "lost_floor": fmt(-metrics.LOST_FLOOR_DB, 0),
        "lost_cap": fmt(metrics.LOST_CAP_DB, 0),
        "cores": str(os.cpu_count()),
        "load": "%.1f" % os.getloadavg()[1],
        "sections": "\n\n".join(sections),
        "band_section": band_section(
            rows, band_rows, band_limits, seeds_of(args.real_testdirs[:1]))
        if band else band_not_run('BAND_LIMITS="16000 8000 4000"'),
        "sweep_sections": sweep_sections(sweep_rows, runs, runner.properties,
                                         args.docs, runner.describe(
                                             "rnndenoise")),
        "speech_protection": speech_protection_note(runner, info),
        "runtime": "%.0f" % ((time.time() - start) / 60.0),
        "data_note": data_note(float(os.environ.get(
            "QUALITY_DATA_SECONDS", "0"))),
    }
    with open(os.path.join(HERE, "quality.md.in")) as f:
        text = string.Template(f.read()).substitute(values)
    with open(os.path.join(args.docs, "quality.md"), "w") as f:
        f.write(text)
    print("evaluate: wrote %s in %.0f s" % (os.path.join(
        args.docs, "quality.md"), time.time() - start), flush=True)
    for k, goal_rows in all_goals.items():
        print("  %s:" % SETS[k][0])
        for g in goal_rows:
            print("    %-56s %-30s %s" % (g[0], g[2],
                                          "met" if g[3] else "NOT met"))
    for prop in sweeps:
        print("  %s: ΔSI-SDR −5…10, STOI −5…10, speech lost, NR where no "
              "one speaks" % prop)
        for s in sweep_summary(sweep_rows, [r for r in runs
                                            if r["prop"] == prop]):
            print("    %-22s %7s %7s %7s %7s" % (
                sweep_label(s[0], runner.properties[prop]),
                fmt(s[1], 1, True), fmt(s[2], 3), fmt(s[3], 2), fmt(s[4])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
