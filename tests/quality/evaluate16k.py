#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run the 16 kHz comparison on the held-out test mixtures and write
docs/quality-16k.md: rnndenoise's 16 kHz model against its 48 kHz model
around audioresample, and both against speexdsp and webrtcdsp at 16 kHz.

    evaluate16k.py --build BUILD --speex SPEEX_DENOISE --work WORK
                   --docs DOCS [--jobs N] [--real-testdir DIR ...]
                   [TESTDIR ...]

The test folders are those of evaluate.py (TTS voices as TESTDIR,
recorded voices as --real-testdir). Each mixture's 48 kHz clean speech
and noise are decimated to 16 kHz and mixed again; every method runs on
that mix and on the clean speech of the 0 dB mixtures alone. Scores use
metrics.py on the 16 kHz signals upsampled to 48 kHz (see score_rate_note
for why). tests/quality/run.sh calls this after evaluate.py; the
environment's RNNDENOISE_PROPS, WEBRTCDSP_PROPS and SPEEX_SUPPRESS apply
as they do there.
"""

import argparse
import os
import shlex
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import get_context

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evaluate  # noqa: E402 (the 48 kHz report: data, runner, tables)
import metrics  # noqa: E402

SRC = os.path.dirname(os.path.dirname(HERE))
RATE16 = 16000
UP = metrics.RATE // RATE16  # 3: 16 kHz signals are scored at 48 kHz

R16, R48 = "rnndenoise-16k", "rnndenoise-48k"
PROCESSED = ["speexdsp", "webrtcdsp", R16, R48]
METHODS = ["noisy"] + PROCESSED
# Not a method: audioresample's 16 -> 48 -> 16 kHz round trip alone, run on
# the noise-free tracks, shows what the resampling costs the R48 column.
ROUNDTRIP = "audioresample"
LABELS = {"noisy": "noisy (input)", "speexdsp": "speexdsp",
          "webrtcdsp": "webrtcdsp", R16: "rnndenoise, 16 kHz model",
          R48: "rnndenoise, 48 kHz model around audioresample",
          ROUNDTRIP: "audioresample round trip alone"}
# Column headings, where the long labels would make tables too wide.
SHORT = {"noisy": "input", "speexdsp": "speexdsp", "webrtcdsp": "webrtcdsp",
         R16: "16 kHz model", R48: "48 kHz model",
         ROUNDTRIP: "round trip"}
# What the methods table adds to a method's command.
NOTES = {"speexdsp": " (`tests/quality/speex_denoise.c`): "
         "`speex_preprocess_run` on 160-sample (10 ms) frames of 16-bit "
         "audio, denoiser on, AGC, VAD and dereverberation off",
         "webrtcdsp": ": only the noise suppressor, as in quality.md",
         R16: ": the built-in 16 kHz model",
         R48: ": the built-in 48 kHz model, between two `audioresample` "
         "(default quality)",
         ROUNDTRIP: ": not a method; run on the noise-free tracks only, it "
         "shows what the resampling of the row above costs on its own"}
MODEL_FILES = {R16: "dsp/models/rnndenoise-16k.rnnm",
               R48: "dsp/models/rnndenoise-48k.rnnm"}


# ---- data -----------------------------------------------------------------

def decimate(x):
    """48 kHz -> 16 kHz, with resample_poly's anti-alias filter."""
    return resample_poly(x, 1, UP)


def upsample(x):
    """16 kHz -> 48 kHz for scoring; adds nothing above 8 kHz."""
    return resample_poly(x, UP, 1)


def read16(path):
    """A 16 kHz mono WAV file as float64."""
    return evaluate.read_wav(path, RATE16)


def noise_path(mixture):
    """The noise WAV that synth.py writes beside the clean speech."""
    return mixture["clean"][:-len("_clean.wav")] + "_noise.wav"


def with_16k_inputs(mixtures, work):
    """The mixtures with clean16 and noisy16: where their 16 kHz clean
    speech and mix go."""
    return [dict(m, clean16=os.path.join(work, "in", m["id"] + "_clean.wav"),
                 noisy16=os.path.join(work, "in", m["id"] + "_noisy.wav"))
            for m in mixtures]


def _make_inputs(m):
    """Decimates clean speech and noise apart and mixes them at 16 kHz,
    so the mix is exactly the 16 kHz speech plus the 16 kHz noise; a
    band-limited set's mixture is low-passed at its m["cutoff"] (Hz)
    first, at 48 kHz, as evaluate.py's band-limited set is."""
    clean = evaluate.read_wav(m["clean"])
    noise = evaluate.read_wav(noise_path(m))
    if m.get("cutoff"):
        clean = metrics.band_limit(clean, m["cutoff"])
        noise = metrics.band_limit(noise, m["cutoff"])
    clean, noise = decimate(clean), decimate(noise)
    os.makedirs(os.path.dirname(m["clean16"]), exist_ok=True)
    wavfile.write(m["clean16"], RATE16, clean.astype(np.float32))
    wavfile.write(m["noisy16"], RATE16, (clean + noise).astype(np.float32))


# ---- methods --------------------------------------------------------------

class Runner16(evaluate.Runner):
    """evaluate.Runner's GStreamer and speexdsp runs, at 16 kHz. Its
    pipeline, filesrc ! wavparse ! audioconvert ! audioresample ! ELEMENT
    ! audioconvert ! F32LE ! wavenc ! filesink, gets a caps filter in
    ELEMENT that holds each method at its rate."""

    def element(self, method):
        # No model property: the element runs its built-in model of the
        # negotiated rate, which is what is compared here.
        rnn = ["rnndenoise"] + shlex.split(self.rnn_props)
        back = ["audioresample", "!", "audio/x-raw,rate=%d" % RATE16]
        if method == R16:
            return ["audio/x-raw,rate=%d" % RATE16, "!"] + rnn
        if method == R48:
            return (["audio/x-raw,rate=%d" % metrics.RATE, "!"] + rnn
                    + ["!"] + back)
        if method == ROUNDTRIP:
            return ["audio/x-raw,rate=%d" % metrics.RATE, "!"] + back
        if method == "webrtcdsp":
            return (["audio/x-raw,rate=%d" % RATE16, "!", "webrtcdsp"]
                    + shlex.split(self.webrtc_props))
        raise ValueError("evaluate16k: no GStreamer method %s" % method)

    def describe(self, method):
        if method == "speexdsp":
            return "speex_denoise --rate %d%s IN.raw OUT.raw" % (
                RATE16, " --suppress " + self.speex_suppress
                if self.speex_suppress else "")
        return " ".join(self.element(method))

    def check(self):
        super().check()
        r = subprocess.run(["gst-inspect-1.0", "audioresample"],
                           env=self.env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            sys.exit("evaluate16k: GStreamer element audioresample not "
                     "found")

    def speex(self, inp, out, rate=RATE16):
        super().speex(inp, out, rate)


def run_methods(args, runner, mixtures, noise_free):
    """Every method on every 16 kHz mix and noise-free track, and the
    resampling round trip on the noise-free tracks; returns the number of
    runs."""
    jobs = [(method, m["noisy16"], evaluate.output_path(args.work, method, m))
            for m in mixtures for method in PROCESSED]
    jobs += [(method, m["clean16"], evaluate.output_path(args.work, method,
                                                         m, True))
             for m in noise_free for method in PROCESSED + [ROUNDTRIP]]
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        list(ex.map(runner.run, jobs))
    return len(jobs)


# ---- scoring --------------------------------------------------------------

def score_rate_note():
    """Why the scores are taken at 48 kHz, for the report."""
    return (
        "metrics.py counts its frames in 48 kHz samples: activity and noise "
        "reduction use 480-sample (10 ms) frames and a 100 ms margin, "
        "speech lost a %d-point spectrogram with a %d-sample hop, the delay "
        "search ±4800 samples. Fed 16 kHz signals, the same functions "
        "would use 30 ms frames, a 300 ms margin and other spectrogram "
        "bins. So every 16 kHz signal (clean reference, input and outputs) "
        "is upsampled ×3 to 48 kHz (`resample_poly(x, 3, 1)`, which adds "
        "nothing above 8 kHz) and scored with metrics.py unchanged, on "
        "the same frames and bins as docs/quality.md. SI-SDR and STOI "
        "(which works at 10 kHz) are those of the 16 kHz signals; the "
        "empty band above 8 kHz is empty in the reference and the outputs "
        "alike, so it neither adds nor removes speech lost." % (
            metrics.LOST_FFT, metrics.LOST_HOP))


def _read_up(path):
    return upsample(read16(path))


def _lags(job):
    """Per-file best lag (48 kHz samples) of each method against the
    clean speech, both upsampled."""
    m, work, methods, noise_free = job
    clean = _read_up(m["clean16"])
    return {method: metrics.best_lag(clean, _read_up(
        evaluate.output_path(work, method, m, noise_free)))
        for method in methods}


def constant_lags(per_file, methods):
    """As evaluate.constant_lags, for these methods: the most common
    per-file lag and the share of files within LAG_TOLERANCE of it."""
    lags, agree = {}, {}
    for method in methods:
        values = [d[method] for d in per_file]
        lags[method] = max(set(values), key=values.count)
        agree[method] = np.mean([abs(v - lags[method])
                                 <= evaluate.LAG_TOLERANCE for v in values])
    return lags, agree


def _score(job):
    """The figures of one mixture for the input and each method, as
    evaluate._score takes them (without the oracle and the speech-frame
    figures)."""
    m, work, lags = job
    clean, noisy = _read_up(m["clean16"]), _read_up(m["noisy16"])
    n = clean.size
    _, free = metrics.activity(clean)
    rows = []
    for method in METHODS:
        y = noisy if method == "noisy" else metrics.align(
            _read_up(evaluate.output_path(work, method, m)), lags[method], n)
        rows.append(dict(m, method=method,
                         **evaluate.output_figures(clean, noisy, y, free)))
    return rows


def _score_noise_free(job):
    """SI-SDR and speech lost of each method, and of the round trip, on
    clean speech alone."""
    m, work, lags = job
    clean = _read_up(m["clean16"])
    rows = []
    for method in PROCESSED + [ROUNDTRIP]:
        y = metrics.align(_read_up(evaluate.output_path(work, method, m,
                                                        True)),
                          lags[method], clean.size)
        rows.append(dict(m, method=method, si_sdr=metrics.si_sdr(clean, y),
                         lost=metrics.speech_energy_lost(
                             clean, np.zeros(clean.size), y)))
    return rows


def score_all(args, mixtures, noise_free, band=()):
    """Delays, per-mixture rows, noise-free rows and the rows of the
    band-limited mixtures (scored with the delays of the others)."""
    with get_context("fork").Pool(args.jobs) as pool:
        lags, agree = constant_lags(pool.map(_lags, [
            (m, args.work, PROCESSED, False) for m in mixtures]), PROCESSED)
        # The round trip only ran on the noise-free tracks.
        trip = constant_lags(pool.map(_lags, [
            (m, args.work, [ROUNDTRIP], True) for m in noise_free]),
            [ROUNDTRIP])
        lags.update(trip[0])
        agree.update(trip[1])
        print("evaluate16k: constant delays %s" % ", ".join(
            "%s %d samples at 48 kHz (%.0f %% of files within %d)"
            % (m, lags[m], 100 * agree[m], evaluate.LAG_TOLERANCE)
            for m in PROCESSED + [ROUNDTRIP]), flush=True)
        rows = [r for rs in pool.map(_score, [(m, args.work, lags)
                                              for m in mixtures]) for r in rs]
        free_rows = [r for rs in pool.map(_score_noise_free, [
            (m, args.work, lags) for m in noise_free]) for r in rs]
        band_rows = [r for rs in pool.map(_score, [(m, args.work, lags)
                                                  for m in band]) for r in rs]
    return lags, agree, rows, free_rows, band_rows


# ---- tables ---------------------------------------------------------------

LOW = evaluate.LOW_SNRS
fmt, mean, md_table = evaluate.fmt, evaluate.mean, evaluate.md_table


def summary(rows, free_rows, method):
    """(ΔSI-SDR −5…10 dB, STOI −5…10 dB, speech lost all SNRs, SI-SDR on
    noise-free speech, NR where no one speaks) of one method."""
    return (mean(rows, "d_si_sdr", method=method, snr=LOW),
            mean(rows, "stoi", method=method, snr=LOW),
            mean(rows, "lost", method=method),
            mean(free_rows, "si_sdr", method=method),
            mean(rows, "nr", method=method))


def summary_table(rows, free_rows):
    body = []
    for m in METHODS:
        d, s, lost, nf, nr = summary(rows, free_rows, m)
        body.append([LABELS[m], fmt(d, 1, True), fmt(s, 3), fmt(lost, 2),
                     fmt(nf), fmt(nr)])
    return md_table(["method", "ΔSI-SDR −5…10 dB", "STOI −5…10 dB",
                     "speech lost (dB)", "SI-SDR noise-free (dB)",
                     "NR where no one speaks (dB)"], body)


def per_snr_table(rows, snrs, key, methods, digits, plus=False, diffs=()):
    """Rows: SNRs and the mean over −5…10 dB; columns: methods, then each
    method of diffs minus the input."""
    header = (["SNR"] + [SHORT[m] for m in methods]
              + ["%s − input" % SHORT[m] for m in diffs])
    body = []
    for s in snrs + [LOW]:
        cells = [fmt(mean(rows, key, snr=s, method=m), digits, plus)
                 for m in methods]
        cells += [fmt(mean(rows, key, snr=s, method=m)
                      - mean(rows, key, snr=s, method="noisy"),
                      digits + 1, True) for m in diffs]
        if isinstance(s, list):
            body.append(["**−5…10 dB**"] + ["**%s**" % c for c in cells])
        else:
            body.append([evaluate.snr_label(s)] + cells)
    return md_table(header, body)


def kind_table(rows, kinds, heldout):
    """Per noise kind, means over every SNR: ΔSI-SDR of each method, then
    speech lost of the two rnndenoise runs."""
    header = (["noise kind"] + ["ΔSI-SDR " + SHORT[m] for m in PROCESSED]
              + ["lost " + SHORT[m] for m in (R16, R48)])
    body = []
    for k in kinds:
        body.append([k + (" (held out)" if k in heldout else "")]
                    + [fmt(mean(rows, "d_si_sdr", method=m, kind=k), 1, True)
                       for m in PROCESSED]
                    + [fmt(mean(rows, "lost", method=m, kind=k), 2)
                       for m in (R16, R48)])
    return md_table(header, body)


def verdict(rows):
    """One line: which rnndenoise run is better on mean ΔSI-SDR over
    −5…10 dB and on speech lost (both as shown, one decimal and two)."""
    d = {m: round(mean(rows, "d_si_sdr", method=m, snr=LOW), 1)
         for m in (R16, R48)}
    lost = {m: round(mean(rows, "lost", method=m), 2) for m in (R16, R48)}

    def better(values, higher):
        if values[R16] == values[R48]:
            return "neither (a tie)"
        best = max(values, key=values.get) if higher else min(
            values, key=values.get)
        return "the **%s**" % SHORT[best]

    return ("16 kHz model against the 48 kHz model around audioresample: "
            "%s is better on mean ΔSI-SDR over −5…10 dB (%s against %s dB) "
            "and %s on speech lost (%s against %s dB)."
            % (better(d, True), fmt(d[R16], 1, True), fmt(d[R48], 1, True),
               better(lost, False), fmt(lost[R16], 2), fmt(lost[R48], 2)))


def section(key, mixtures, rows, free_rows):
    """One test set's part of the report."""
    title = evaluate.SETS[key][0]
    snrs = sorted({m["snr"] for m in mixtures})
    heldout = sorted({m["kind"] for m in mixtures if m["heldout"]})
    kinds = evaluate.set_kinds(mixtures)
    n_free = len([r for r in free_rows if r["method"] == R16])
    trip = (mean(free_rows, "si_sdr", method=ROUNDTRIP),
            mean(free_rows, "si_sdr", method=R48))
    return "\n\n".join([
        "## %s" % title,
        "%d mixtures, %d noise-free tracks. Voices: %s." % (
            len(mixtures), n_free,
            ", ".join(sorted({m["voice"] for m in mixtures}))),
        verdict(rows),
        "Summary: ΔSI-SDR and STOI are means over −5, 0, 5 and 10 dB; "
        "speech lost (in speech-dominated bins, dB, lower is better) and "
        "noise reduction where no one speaks over all SNRs; SI-SDR "
        "noise-free over the clean tracks of the %d dB mixtures run alone."
        % evaluate.NOISE_FREE_SNR,
        summary_table(rows, free_rows),
        "audioresample's round trip alone (16 → 48 → 16 kHz, no denoiser), "
        "on the same noise-free tracks and aligned alike, scores %s dB "
        "SI-SDR: about the most the 48 kHz model's row can reach there (it "
        "scores %s dB)." % (fmt(trip[0]), fmt(trip[1])),
        "ΔSI-SDR (dB, higher is better):",
        per_snr_table(rows, snrs, "d_si_sdr", PROCESSED, 1, True),
        "STOI (the last columns: each rnndenoise run minus the input):",
        per_snr_table(rows, snrs, "stoi", METHODS, 3, diffs=(R16, R48)),
        "Per noise kind, means over all SNRs: ΔSI-SDR (dB) and speech lost "
        "(dB):",
        kind_table(rows, kinds, heldout)])


# ---- report ---------------------------------------------------------------

def rel(path):
    """path relative to the source tree when inside it."""
    path = os.path.abspath(path)
    return os.path.relpath(path, SRC) if path.startswith(SRC + os.sep) \
        else path


def command_line(args):
    """The command that remakes this page with the same arguments."""
    words = ["/usr/bin/python3", "tests/quality/evaluate16k.py", "--build",
             rel(args.build), "--speex", rel(args.speex), "--work",
             rel(args.work), "--docs", rel(args.docs), "--jobs",
             str(args.jobs)]
    for hz in args.band_limits:
        words += ["--band-limit", str(hz)]
    if args.phone_testdir:
        words += ["--phone-testdir", rel(args.phone_testdir)]
    for d in args.real_testdirs:
        words += ["--real-testdir", rel(d)]
    words += [rel(d) for d in args.testdirs]
    return textwrap.fill(" ".join(words), 72,
                                  initial_indent="    ",
                                  subsequent_indent="        ",
                                  break_on_hyphens=False,
                                  break_long_words=False).replace(
                                      "\n", " \\\n")


def models(args):
    """(method, file, model id) of the models built into the plugin, and
    a warning when a file is newer than the plugin (not yet rebuilt)."""
    tool = os.path.join(args.build, "dsp", "rnndenoise-model")
    plugin = os.path.join(args.build, "plugin", "libgstrnndenoise.so")
    out, stale = [], []
    for method in (R16, R48):
        path = os.path.join(SRC, MODEL_FILES[method])
        out.append((method, MODEL_FILES[method],
                    evaluate.model_info(tool, path)["model id"]))
        if os.path.getmtime(path) > os.path.getmtime(plugin):
            stale.append(MODEL_FILES[method])
    return out, stale


def wrap_prose(text):
    """text with each paragraph of prose filled to 76 columns; headings,
    tables, code and comments are left as they are."""
    keep = ("#", "|", "    ", "<!--")
    return "\n\n".join(
        p if p.startswith(keep) else textwrap.fill(
            " ".join(p.split()), 76, break_on_hyphens=False)
        for p in text.split("\n\n"))


def band_section(args, rows, band_rows, limits):
    """The band-limited part of the report, or how to run it."""
    if not band_rows:
        return evaluate.band_not_run('BAND_LIMITS16="7000 5512 3400"')
    return evaluate.band_section(
        [r for r in rows if r["set"] == "real"], band_rows, limits,
        evaluate.seeds_of(args.real_testdirs[:1]), PROCESSED, SHORT,
        "then decimated to 16 kHz, and every method runs on them as above")


def report(args, by_set, rows, free_rows, runner, lags, agree, seconds,
           band_rows=(), band_limits=()):
    model_rows, stale = models(args)
    stale_note = ("\n\n**Warning: %s is newer than the plugin that ran; "
                  "rebuild and run again.**" % ", ".join(stale)
                  if stale else "")
    first = next(iter(by_set.values()))
    clip = np.mean([evaluate.read_wav(m["clean"]).size
                    for m in first[:3]]) / metrics.RATE
    head = """# Quality at 16 kHz: the 16 kHz model against the 48 kHz model

<!-- Written by tests/quality/evaluate16k.py (run by tests/quality/run.sh);
     edit the script, not this page. -->

**These figures are for the models built into the plugin**: %s, as printed
by `rnndenoise-model info`. When a model changes, rebuild and run
`tests/quality/run.sh` again (`RATE16=0` skips this page), or only this
page:

%s

The run took %.0f min on a machine with %d cores (5-minute load average
%.1f at the end).%s

Does a 16 kHz stream (calls, VoIP) do better with the element's 16 kHz
model or with its 48 kHz model behind `audioresample`, and how do both
compare with speexdsp and webrtcdsp at 16 kHz? The 48 kHz report is
[quality.md](quality.md).

## Test data

The held-out test mixtures of quality.md (seeds %s, %.0f s each), made
16 kHz: the 48 kHz clean speech and the 48 kHz noise of each mixture are
decimated apart (`scipy.signal.resample_poly(x, 1, 3)`) and added. SNRs
are those of the 48 kHz mixtures: decimation drops the noise above 8 kHz,
so broadband noise is a few dB weaker in the 16 kHz mix than its label
says; every method gets the same mix, and ΔSI-SDR is against it.
Noise-free speech: the 16 kHz clean tracks of the %d dB mixtures, run
through each method alone.

## Methods

Every method reads and writes 16 kHz mono; the GStreamer ones run as
`gst-launch-1.0 filesrc ! wavparse ! audioconvert ! audioresample !
METHOD ! audioconvert ! audio/x-raw,format=F32LE ! wavenc ! filesink`
with the uninstalled plugin of the build directory.

| method | METHOD, or how it runs |
|---|---|
| noisy (input) | the 16 kHz mix itself, unprocessed |
%s

rnndenoise has no `model` property here: each stream runs the built-in
model of its negotiated rate. Its properties (none by default) come from
`RNNDENOISE_PROPS`, webrtcdsp's from `WEBRTCDSP_PROPS` and speexdsp's
`--suppress` from `SPEEX_SUPPRESS`, as in quality.md.

**Scoring.** The metrics of quality.md (see there). %s

**Delay compensation** as in quality.md: per file, the lag within ±100 ms
that best correlates the (upsampled) output with the clean speech; each
method's most common lag aligns all its files. Delays (in 16 kHz samples,
with the share of files within %d samples at 48 kHz of it): %s.
audioresample's round trip delays by a fraction of a 16 kHz sample, and
what aligning by whole 48 kHz samples leaves of it costs SI-SDR on clean
speech (the round-trip figure under each summary); at the SNRs of the
ΔSI-SDR figures it is well below the residual noise.""" % (
        "; ".join("`%s` (model id `%s`) for %s streams" % (
            f, mid, "16 kHz" if m == R16 else "48 kHz")
            for m, f, mid in model_rows),
        command_line(args), seconds / 60.0, os.cpu_count(),
        os.getloadavg()[1], stale_note,
        evaluate.seeds_of(args.real_testdirs or args.testdirs), clip,
        evaluate.NOISE_FREE_SNR,
        "\n".join("| %s | `%s`%s |" % (LABELS[m], runner.describe(m),
                                         NOTES.get(m, ""))
                  for m in PROCESSED + [ROUNDTRIP]),
        score_rate_note(),
        evaluate.LAG_TOLERANCE,
        ", ".join("%s %g (%.2f ms; %.0f %%)" % (
            SHORT[m], round(lags[m] / UP, 1),
            1000.0 * lags[m] / metrics.RATE, 100 * agree[m])
            for m in PROCESSED + [ROUNDTRIP]))
    sections = [section(k, by_set[k], [r for r in rows if r["set"] == k],
                        [r for r in free_rows if r["set"] == k])
                for k in by_set]
    sections.append(band_section(args, rows, band_rows, band_limits))
    return wrap_prose(head + "\n\n" + "\n\n".join(sections)) + "\n"


# ---- main -----------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    evaluate.add_common_arguments(ap)
    args = ap.parse_args()
    if not args.testdirs and not args.real_testdirs:
        ap.error("no test folders")
    band_limits = evaluate.band_limits_of(ap, args, RATE16)
    start = time.time()
    os.makedirs(args.work, exist_ok=True)

    dirs = {"real": args.real_testdirs, "tts": args.testdirs}
    by_set = {k: with_16k_inputs(evaluate.load_mixtures(dirs[k], k),
                                 args.work)
              for k in evaluate.SETS if dirs[k]}
    mixtures = [m for k in by_set for m in by_set[k]]
    noise_free = [m for m in mixtures if m["snr"] == evaluate.NOISE_FREE_SNR]
    phone = (evaluate.load_mixtures([args.phone_testdir], "real")
             if args.phone_testdir else [])
    band = with_16k_inputs([
        evaluate.band_record(m, limit) for limit in band_limits
        for m in evaluate.load_mixtures(args.real_testdirs[:1], "real")] + [
        evaluate.band_record(m, evaluate.PHONE) for m in phone], args.work)
    runner = Runner16(args)
    runner.check()
    with get_context("fork").Pool(args.jobs) as pool:
        pool.map(_make_inputs, mixtures + band)
    print("evaluate16k: %d mixtures and %d noise-free tracks at 16 kHz in "
          "%.0f s" % (len(mixtures), len(noise_free), time.time() - start),
          flush=True)
    t0 = time.time()
    n_runs = run_methods(args, runner, mixtures + band, noise_free)
    print("evaluate16k: %d method runs in %.0f s" % (n_runs,
                                                     time.time() - t0),
          flush=True)
    t0 = time.time()
    lags, agree, rows, free_rows, band_rows = score_all(
        args, mixtures, noise_free, band)
    print("evaluate16k: scored in %.0f s" % (time.time() - t0), flush=True)

    text = report(args, by_set, rows, free_rows, runner, lags, agree,
                  time.time() - start, band_rows, band_limits)
    path = os.path.join(args.docs, "quality-16k.md")
    with open(path, "w") as f:
        f.write(text)
    print("evaluate16k: wrote %s in %.0f s" % (path, time.time() - start))
    for k in by_set:
        set_rows = [r for r in rows if r["set"] == k]
        set_free = [r for r in free_rows if r["set"] == k]
        print("  %s: ΔSI-SDR −5…10, STOI −5…10, speech lost, SI-SDR "
              "noise-free, NR where no one speaks" % evaluate.SETS[k][0])
        for m in METHODS:
            s = summary(set_rows, set_free, m)
            print("    %-48s %7s %7s %7s %7s %7s" % (
                LABELS[m], fmt(s[0], 1, True), fmt(s[1], 3), fmt(s[2], 2),
                fmt(s[3]), fmt(s[4])))
        print("    " + verdict(set_rows).replace("**", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
