#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Synthesise the training, validation and test mixtures.

    synth.py OUT [--seed N] [--train-minutes M] [--val-minutes M]
                 [--test-seconds S] [--jobs J] [--real DIR]
                 [--real-speed LOW,HIGH] [--added-noises] [--added-speech]
                 [--noise-augment]
    synth.py OUT --selection --real DIR [--seed N] [--repeats R] [--jobs J]
    synth.py OUT --phone --real DIR [--seed N] [--test-seconds S] [--jobs J]

Writes, all deterministic from the seed:

  OUT/train/, OUT/val/   NNNN_clean.wav and NNNN_noise.wav pairs (mono
                         48 kHz float32), list.txt ("clean noise" per line,
                         for rnndenoise-features --list) and manifest.tsv
  OUT/test/snrS/         for each SNR of split.txt: one mixture per noise
                         kind, as clean, noise and noisy WAVs, with list.txt
                         and manifest.tsv; OUT/test/list.txt lists them all
  OUT/test-real/         the same with the held-out recorded voices (--real)
  OUT/select-real/       with --selection, only this: the same again with
                         the recorded voices split.txt keeps for selection,
                         over the training noise kinds only, R mixtures per
                         SNR and kind
  OUT/test-phone/        with --phone, only this: the test mixtures again
                         with the recorded telephone voices split.txt keeps
                         for the phone test (8 kHz recordings), over every
                         noise kind

Train and validation use the voices and noise kinds that split.txt does not
hold out (from separate utterance pools); the test mixtures use only the
held-out voices and every noise kind. The selection mixtures judge
training rounds against each other on voices that neither training nor the
test hears, so that the test stays unseen by every choice. Each training
mixture is a speech track (utterances with gaps, so some stretches hold
noise only; with --added-speech, split.txt's late recorded speech among
its voices) over one or two noise kinds (with --added-noises, split.txt's
late kinds among them; with --noise-augment, the recorded ones varied in
speed and colour, and sometimes cut into sudden events),
sometimes with the noise faded out for a few seconds
(speech only), at an SNR of -5..20 dB, a random level, a random microphone
colouring and sometimes reverberation.
"""

import argparse
import multiprocessing
import os
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.io import wavfile

import noises
import sources
import tts

RATE = 48000
FRAME = 480
HERE = os.path.dirname(os.path.abspath(__file__))
SPLIT_FILE = os.path.join(HERE, "split.txt")
SNR_RANGE = (-5.0, 20.0)
LEVEL_RANGE_DB = (-42.0, -12.0)  # active speech level, dBFS RMS
TEST_SECONDS = 10.0
MIXTURE_SECONDS = 30.0

# Stream tags that keep the random streams of the sets apart.
TAG_POOL, TAG_MIX = 1, 2
SETS = {"train": 1, "val": 2, "test": 3, "train-real": 4, "val-real": 5,
        "test-real": 6, "select-real": 7, "select-noise": 8,
        "test-phone": 9}
# Selection mixtures per SNR and kind over the selection noise kinds, for
# each one per training kind (few kinds: more mixtures of each).
SELECT_NOISE_REPEATS = 4
# Share of training and validation mixtures spoken by recorded voices
# (split.txt's real-speech-share; set in main before the workers fork).
REAL_SHARE = [0.0]

# Utterance pools, filled before the mixture workers fork.
POOLS = {}
# Speed range (low, high) for recorded training utterances, or None
# (--real-speed; set in main before the workers fork).
REAL_SPEED = [None]
# True: recorded noise in training mixtures is augmented (--noise-augment;
# set in main before the workers fork).
NOISE_AUGMENT = [False]
# Babble in training mixtures (--crowds, --babble-share; set in main before
# the workers fork): drawn as noises.crowd() draws it, and the share of
# mixtures whose main noise is babble whatever the other kinds (0: one
# kind among the others).
CROWDS = [False]
BABBLE_SHARE = [0.0]


# ---- split ----------------------------------------------------------------

def parse_split(path=SPLIT_FILE):
    """split.txt's lines as they are: key -> list of values."""
    split = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                key, values = line.split(":", 1)
                split[key.strip()] = values.split()
    return split


def read_split(path=SPLIT_FILE, added_noises=False, added_speech=False):
    """The held-out voices, noise kinds and test SNRs of split.txt. The
    kinds split.txt adds late (added-noises) take part only if
    `added_noises`, the recorded speech it adds late (added-real-speech)
    only if `added_speech`: the sets made before them, the test and the
    selection mixtures stay as they were."""
    split = parse_split(path)
    voices, kinds = tts.all_voices(), noises.all_kinds()
    for v in split["heldout-voices"]:
        if v not in voices:
            raise ValueError("split.txt: unknown voice %s" % v)
    added = split.get("added-noises", [])
    select = split.get("selection-noises", [])
    for k in split["heldout-noises"] + added + select:
        if k not in kinds:
            raise ValueError("split.txt: unknown noise kind %s" % k)
    # Recorded kinds take part only when their recordings are loaded.
    available = noises.available_kinds()
    select = [k for k in select if k in available]
    kinds = [k for k in kinds if k in available and k not in select
             and (added_noises or k not in added)]
    return {"test_voices": split["heldout-voices"],
            "train_voices": [v for v in voices
                             if v not in split["heldout-voices"]],
            "test_noises": split["heldout-noises"],
            "train_noises": [k for k in kinds
                             if k not in split["heldout-noises"]],
            "all_noises": kinds,
            "snrs": [float(s) for s in split["test-snrs"]],
            "real_test": split.get("heldout-real-speech", []),
            "real_select": split.get("selection-real-speech", []),
            "real_phone": split.get("phone-real-speech", []),
            "real_added": [] if added_speech
            else split.get("added-real-speech", []),
            "select_noises": select,
            "real_share": float(split.get("real-speech-share", ["0"])[0])}


def is_heldout_real(name, lang, heldout):
    """Whether a real speech file (source, language) is held out: split.txt
    names whole sources (SOURCE) or languages of one (SOURCE:LANG)."""
    return name in heldout or "%s:%s" % (name, lang) in heldout


# ---- speech ---------------------------------------------------------------

# Utterances are (samples, bandwidth in Hz). TTS utterances carry a
# synthetic band up to the Nyquist frequency; recorded ones their measured
# bandwidth, above which the band targets are masked.
FULL_BAND = RATE / 2


def _synth_one(job):
    spec, seed = job
    return spec["voice"], tts.synthesize(spec, seed)


def real_subset(row, split):
    """Which set a recorded speech file belongs to: "select" if split.txt
    keeps its source or language for selection, "phone" if for the phone
    test, "test" if it holds it out, "added" (no set) if it adds it late
    and this run does not take it, else "val" for one file in 20 (by a
    checksum of its path, so the choice never changes) and "train"."""
    if is_heldout_real(row["source"], row["lang"], split["real_select"]):
        return "select"
    if is_heldout_real(row["source"], row["lang"], split["real_phone"]):
        return "phone"
    if is_heldout_real(row["source"], row["lang"], split["real_test"]):
        return "test"
    if is_heldout_real(row["source"], row["lang"], split["real_added"]):
        return "added"
    return "val" if zlib.crc32(row["file"].encode()) % 20 == 0 else "train"


def build_real_pool(groups, split, subset, seed, tag, minutes):
    """About `minutes` of recorded utterances, drawn without replacement from
    the kept speech files of `subset` (see real_subset()); returns a dict
    voice -> list of (samples, bandwidth), where a voice is
    real:SOURCE:LANG."""
    rng = np.random.default_rng([seed, TAG_POOL, tag, 7])
    items = [row for name in sorted(groups) for row in groups[name]
             if row["kind"] == "speech" and real_subset(row, split)
             == subset]
    pool, seconds = {}, 0.0
    for i in rng.permutation(len(items)):
        if seconds >= minutes * 60:
            break
        row = items[i]
        voice = "real:%s:%s" % (row["source"], row["lang"])
        pool.setdefault(voice, []).append(
            (np.asarray(row["audio"], dtype=np.float32),
             row["bandwidth_hz"]))
        seconds += row["length"] / RATE
    print("  real pool: %d recordings, %.1f min, %d voices"
          % (sum(len(u) for u in pool.values()), seconds / 60, len(pool)),
          flush=True)
    return pool


def build_pool(seed, tag, voices, minutes, jobs):
    """Synthesise about `minutes` of utterances from `voices`; returns a
    dict voice -> list of 48 kHz arrays."""
    rng = np.random.default_rng([seed, TAG_POOL, tag])
    weights = tts.engine_weights(voices)
    count = max(int(minutes * 60 / 3.0), len(voices))
    specs = []
    for i in range(count):
        voice = voices[i] if i < len(voices) else voices[
            rng.choice(len(voices), p=weights)]
        specs.append((tts.utterance_spec(rng, voice),
                      [seed, TAG_POOL, tag, i]))
    pool = {v: [] for v in voices}
    seconds = 0.0
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for voice, x in ex.map(_synth_one, specs):
            if x.size:
                pool[voice].append((x.astype(np.float32), FULL_BAND))
                seconds += x.size / RATE
    print("  pool: %d utterances, %.1f min, %d voices"
          % (sum(len(u) for u in pool.values()), seconds / 60,
             sum(1 for u in pool.values() if u)), flush=True)
    return {v: u for v, u in pool.items() if u}


def change_speed(x, band, speed):
    """x played `speed` times faster (pitch and formants move with it, as
    a new voice's would); returns the samples and the bandwidth, which
    moves with them."""
    step = int(round(speed * 100))
    return (noises.faster(x, step), min(band * step / 100.0, FULL_BAND))


def _utterance(rng, pool, voice=None, speed=None):
    """One utterance of `voice` (or of a random one) as float64, at a speed
    drawn from the range `speed` when given."""
    if voice is None:
        voices = sorted(pool)
        voice = voices[rng.integers(len(voices))]
    items = pool[voice]
    x, band = items[rng.integers(len(items))]
    x = x.astype(np.float64)
    if speed is not None:
        x, band = change_speed(x, band, rng.uniform(*speed))
    return voice, x, band


def _gap(rng):
    """Seconds of silence after an utterance: mostly short, sometimes long
    enough to leave a stretch of noise only."""
    u = rng.random()
    if u < 0.6:
        return rng.uniform(0.1, 0.8)
    if u < 0.9:
        return rng.uniform(0.8, 2.5)
    return rng.uniform(3.0, 7.0)


def speech_track(rng, pool, n, voice=None, gaps=True, speed=None):
    """n samples of utterances with gaps; one voice, or random voices if
    voice is None, each utterance at a speed drawn from `speed` if given.
    Returns the track, the voices used and the narrowest bandwidth among
    its utterances (Hz)."""
    x = np.zeros(n)
    used = set()
    band = FULL_BAND
    pos = int(rng.uniform(0.0, 2.0) * RATE) if gaps else 0
    while pos < n:
        v, u, b = _utterance(rng, pool, voice, speed)
        used.add(v)
        band = min(band, b)
        u = u[:n - pos] * 10 ** (rng.uniform(-3, 3) / 20)
        x[pos:pos + u.size] += u
        pos += u.size + int((_gap(rng) if gaps else rng.uniform(0.05, 0.4))
                            * RATE)
    return x, sorted(used), band


def active_rms(x, rel_db=-40.0):
    """RMS over the 10 ms frames within rel_db of the loudest frame."""
    n = x.size // FRAME * FRAME
    e = np.mean(x[:n].reshape(-1, FRAME) ** 2, axis=1)
    if n == 0 or e.max() <= 0:
        return 0.0
    return float(np.sqrt(e[e >= e.max() * 10 ** (rel_db / 10)].mean()))


# ---- mixtures -------------------------------------------------------------

def _fade_out_segments(rng, n):
    """A gain curve that mutes the noise for 1-2 stretches of 1.5-5 s."""
    g = np.ones(n)
    ramp = int(0.03 * RATE)
    for _ in range(int(rng.integers(1, 3))):
        length = int(rng.uniform(1.5, 5.0) * RATE)
        start = int(rng.uniform(0, max(n - length, 1)))
        end = min(start + length, n)
        g[start:end] = 0
        g[max(start - ramp, 0):start] *= np.linspace(1, 0, start - max(
            start - ramp, 0))
        g[end:end + ramp] *= np.linspace(0, 1, ramp)[:max(min(ramp, n - end),
                                                          0)]
    return g


def _voice_weights(voices):
    """Draw weights: the TTS engines' own weights for TTS voices, and each
    recorded voice (source and language) equally."""
    tts_voices = [v for v in voices if not v.startswith("real:")]
    w = dict(zip(tts_voices, tts.engine_weights(tts_voices))) \
        if tts_voices else {}
    p = np.array([w.get(v, 1.0 / max(len(voices), 1)) for v in voices])
    return p / p.sum()


def make_mixture(rng, pool, n, kinds, snr, fade=True, secondary=True,
                 voice=None, babble_pool=None, speed=None,
                 augment=False, crowds=False, babble_share=0.0):
    """Draw one mixture; returns clean, noise (float32) and a description.

    The speech is one voice of the pool (70 %, or `voice` if given) or a
    random voice per utterance, at speeds drawn from `speed` if given;
    babble talkers come from `babble_pool` (or the whole pool); augment:
    recorded noise varied, crowds: babble as a crowd (noises.make_noise);
    babble_share: the share of mixtures whose main noise is babble.
    """
    voices = sorted(pool)
    if voice is None and rng.random() < 0.7:
        voice = voices[rng.choice(len(voices), p=_voice_weights(voices))]
    speech, used, band = speech_track(rng, pool, n, voice, speed=speed)

    # (No draw without a babble share: the earlier sets stay as they were.)
    if babble_share > 0 and rng.random() < babble_share:
        kind = "babble"
    else:
        kind = kinds[rng.integers(len(kinds))]
    talkers = babble_pool if babble_pool is not None else pool
    talker = (lambda r, m: speech_track(r, talkers, m, gaps=False)[0])
    noise = noises.make_noise(kind, rng, n, talker, augment, crowds)
    names = [kind]
    if secondary and rng.random() < 0.3:
        other = kinds[rng.integers(len(kinds))]
        noise += 10 ** (-rng.uniform(3, 12) / 20) * noises.make_noise(
            other, rng, n, talker, augment, crowds)
        names.append(other)
    faded = fade and rng.random() < 0.35
    if faded:
        noise *= _fade_out_segments(rng, n)

    sos = noises.colour_plan(rng)
    rir, rt60 = noises.reverb_plan(rng) if rng.random() < 0.3 else (None, 0)
    speech = noises.apply_reverb(rir, noises.apply_colour(sos, speech))
    noise = noises.apply_colour(sos, noise)

    level = rng.uniform(*LEVEL_RANGE_DB)
    s_rms, n_rms = active_rms(speech), active_rms(noise)
    speech *= 10 ** (level / 20) / s_rms
    noise *= 10 ** ((level - snr) / 20) / n_rms if n_rms > 0 else 0.0
    peak = np.abs(speech + noise).max()
    if peak > 0.99:
        speech *= 0.99 / peak
        noise *= 0.99 / peak
        level += 20 * np.log10(0.99 / peak)
    info = {"snr": "%.1f" % snr, "noise": "+".join(names),
            "bandwidth_hz": "%d" % band,
            "voices": ",".join(used), "level_dbfs": "%.1f" % level,
            "colour": "yes" if sos is not None else "no",
            "rt60": "%.2f" % rt60, "noise_fade": "yes" if faded else "no"}
    return speech.astype(np.float32), noise.astype(np.float32), info


# ---- writing --------------------------------------------------------------

def _train_job(job):
    """Worker: one training or validation mixture."""
    seed, name, index, outdir, kinds = job
    rng = np.random.default_rng([seed, TAG_MIX, SETS[name], index])
    snr = rng.uniform(*SNR_RANGE)
    real = POOLS.get(name + "-real")
    pool = real if real and rng.random() < REAL_SHARE[0] else POOLS[name]
    # Babble talkers: recorded voices half of the time, when there are any.
    talkers = real if real and rng.random() < 0.5 else POOLS[name]
    # Recorded training voices at other speeds are more voices; validation
    # stays as recorded, and so does its noise.
    speed = REAL_SPEED[0] if pool is real and name == "train" else None
    clean, noise, info = make_mixture(rng, pool, int(MIXTURE_SECONDS * RATE),
                                      kinds, snr, babble_pool=talkers,
                                      speed=speed, augment=NOISE_AUGMENT[0]
                                      and name == "train",
                                      crowds=CROWDS[0] and name == "train",
                                      babble_share=BABBLE_SHARE[0]
                                      if name == "train" else 0.0)
    stem = "%04d" % index
    wavfile.write(os.path.join(outdir, stem + "_clean.wav"), RATE, clean)
    wavfile.write(os.path.join(outdir, stem + "_noise.wav"), RATE, noise)
    return stem, info


def _test_job(job):
    """Worker: one test mixture at a given SNR and noise kind."""
    seed, index, outdir, snr, kind, voice, seconds, pool = job
    rng = np.random.default_rng([seed, TAG_MIX, SETS[pool], index])
    clean, noise, info = make_mixture(rng, POOLS[pool], int(seconds * RATE),
                                      [kind], snr, fade=False,
                                      secondary=False, voice=voice)
    stem = "%03d_%s" % (index, kind)
    for part, x in (("clean", clean), ("noise", noise),
                    ("noisy", clean + noise)):
        wavfile.write(os.path.join(outdir, "%s_%s.wav" % (stem, part)), RATE,
                      x.astype(np.float32))
    return stem, info


def _write_lists(outdir, rows, columns):
    """list.txt for rnndenoise-features ("CLEAN NOISE BANDWIDTH_HZ") and
    manifest.tsv."""
    with open(os.path.join(outdir, "list.txt"), "w") as f:
        for stem, info in rows:
            f.write("%s_clean.wav %s_noise.wav %s\n" % (
                stem, stem, info["bandwidth_hz"]))
    with open(os.path.join(outdir, "manifest.tsv"), "w") as f:
        f.write("\t".join(["name"] + columns) + "\n")
        for stem, info in rows:
            f.write("\t".join([stem] + [info[c] for c in columns]) + "\n")


COLUMNS = ["snr", "noise", "voices", "level_dbfs", "colour", "rt60",
           "noise_fade", "bandwidth_hz"]


def write_train_set(seed, name, outdir, minutes, kinds, jobs):
    """The training or validation mixtures."""
    os.makedirs(outdir, exist_ok=True)
    count = max(int(round(minutes * 60 / MIXTURE_SECONDS)), 1)
    work = [(seed, name, i, outdir, kinds) for i in range(count)]
    with multiprocessing.get_context("fork").Pool(jobs) as p:
        rows = p.map(_train_job, work, chunksize=1)
    _write_lists(outdir, rows, COLUMNS)
    print("  %s: %d mixtures, %.1f min" % (name, count,
                                            count * MIXTURE_SECONDS / 60),
          flush=True)


def write_test_set(seed, outdir, split, seconds, jobs, pool="test",
                   kinds=None, repeats=1):
    """`repeats` mixtures per (SNR, noise kind of `kinds`, every kind if
    None), held-out voices only (the TTS ones for pool "test", the recorded
    ones for "test-real", the selection ones for "select-real", the
    telephone ones for "test-phone")."""
    work = []
    voices = sorted(POOLS[pool]) if pool != "test" else split["test_voices"]
    for snr in split["snrs"]:
        sub = os.path.join(outdir, "snr%d" % snr)
        os.makedirs(sub, exist_ok=True)
        for kind in (kinds or split["all_noises"]) * repeats:
            index = len(work)
            voice = voices[index % len(voices)]
            work.append((seed, index, sub, snr, kind, voice, seconds, pool))
    with multiprocessing.get_context("fork").Pool(jobs) as p:
        rows = p.map(_test_job, work, chunksize=1)
    columns = ["heldout_noise"] + COLUMNS
    top = []
    for snr in split["snrs"]:
        sub = "snr%d" % snr
        mine = [(stem, dict(info, heldout_noise="yes" if job[4] in
                            split["test_noises"] else "no"))
                for (stem, info), job in zip(rows, work) if job[3] == snr]
        _write_lists(os.path.join(outdir, sub), mine, columns)
        top += [(os.path.join(sub, stem), info) for stem, info in mine]
    _write_lists(outdir, top, columns)
    print("  %s: %d mixtures of %.0f s at SNR %s dB" % (
        pool, len(rows), seconds, " ".join("%g" % s for s in split["snrs"])),
        flush=True)


def fill_real_pool(args, groups, split, subset, pool, split_key):
    """POOLS[pool]: every kept recording of `subset` ("select" or "phone",
    see real_subset()); False, after saying so, if split.txt's `split_key`
    (read into split["real_" + subset]) leaves it empty."""
    POOLS[pool] = build_real_pool(groups, split, subset, args.seed,
                                  SETS[pool], 1e9)
    if not POOLS[pool]:
        print("synth: no recorded voices for %s (split.txt's %s: %s)"
              % (pool, split_key,
                 " ".join(split["real_" + subset]) or "none"),
              file=sys.stderr)
    return bool(POOLS[pool])


def write_selection_set(args, groups, split, start):
    """OUT/select-real/: split.txt's selection voices over the training
    noise kinds (the held-out kinds stay for the test); OUT/select-noise/:
    the same voices over split.txt's selection-noises, kinds no round
    trains on."""
    if not fill_real_pool(args, groups, split, "select", "select-real",
                          "selection-real-speech"):
        return 1
    write_test_set(args.seed, os.path.join(args.out, "select-real"), split,
                   args.test_seconds, args.jobs, pool="select-real",
                   kinds=split["train_noises"], repeats=args.repeats)
    # Noise no round has heard, in a folder of its own (the mixtures above
    # stay as they were); more of them, there being few kinds.
    if split["select_noises"]:
        POOLS["select-noise"] = POOLS["select-real"]
        write_test_set(args.seed, os.path.join(args.out, "select-noise"),
                       split, args.test_seconds, args.jobs,
                       pool="select-noise", kinds=split["select_noises"],
                       repeats=SELECT_NOISE_REPEATS * args.repeats)
    print("synth: done in %.0f s" % (time.time() - start), flush=True)
    return 0


def write_phone_set(args, groups, split, start):
    """OUT/test-phone/: split.txt's telephone voices over every noise kind,
    as the test mixtures are made."""
    if not fill_real_pool(args, groups, split, "phone", "test-phone",
                          "phone-real-speech"):
        return 1
    write_test_set(args.seed, os.path.join(args.out, "test-phone"), split,
                   args.test_seconds, args.jobs, pool="test-phone")
    print("synth: done in %.0f s" % (time.time() - start), flush=True)
    return 0


def parse_speed_range(ap, text):
    """--real-speed's LOW,HIGH, or an argparse error (exit 2)."""
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        low, high = 0.0, -1.0
    if not 0.5 <= low <= high <= 2.0:
        ap.error("--real-speed %s: want LOW,HIGH with 0.5 <= LOW <= HIGH "
                 "<= 2" % text)
    return low, high


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train-minutes", type=float, default=90.0)
    ap.add_argument("--val-minutes", type=float, default=8.0)
    ap.add_argument("--test-seconds", type=float, default=TEST_SECONDS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--real", metavar="DIR",
                    help="recorded speech and noise made by sources.py")
    ap.add_argument("--real-speed", metavar="LOW,HIGH",
                    help="play each recorded training utterance at a speed "
                    "drawn from LOW..HIGH (e.g. 0.9,1.1; default: as "
                    "recorded)")
    ap.add_argument("--selection", action="store_true",
                    help="write only OUT/select-real/, the selection "
                    "mixtures (needs --real)")
    ap.add_argument("--phone", action="store_true",
                    help="write only OUT/test-phone/, the telephone "
                    "voices' test mixtures (needs --real)")
    ap.add_argument("--repeats", type=int, default=2,
                    help="selection mixtures per SNR and noise kind "
                    "(default 2)")
    ap.add_argument("--added-noises", action="store_true",
                    help="train and validate on split.txt's added-noises "
                    "kinds too (the later fine-tune rounds' sets)")
    ap.add_argument("--added-speech", action="store_true",
                    help="train and validate on split.txt's "
                    "added-real-speech recordings too")
    ap.add_argument("--noise-augment", action="store_true",
                    help="vary the recorded noise of the training mixtures: "
                    "each piece at a speed of 0.7..1.4 through a random "
                    "equaliser, a third of them cut into sudden events")
    ap.add_argument("--crowds", action="store_true",
                    help="make the babble of the training mixtures as "
                    "crowds: 2-30 talkers, half of them reverberant, "
                    "sometimes muffled (default: 4-8 dry talkers)")
    ap.add_argument("--babble-share", type=float, default=0.0,
                    metavar="P",
                    help="share of training mixtures whose main noise is "
                    "babble (default 0: babble is one kind among the "
                    "others)")
    args = ap.parse_args()
    NOISE_AUGMENT[0] = args.noise_augment
    CROWDS[0] = args.crowds
    BABBLE_SHARE[0] = args.babble_share
    if args.real_speed:
        REAL_SPEED[0] = parse_speed_range(ap, args.real_speed)
    if args.selection and not args.real:
        ap.error("--selection needs --real DIR")
    if args.phone and not args.real:
        ap.error("--phone needs --real DIR")
    if args.phone and args.selection:
        ap.error("--phone and --selection: one set at a time")
    if args.selection and args.added_noises:
        ap.error("--added-noises: the selection mixtures keep the noise "
                 "kinds every round was trained on")
    if (args.selection or args.phone) and args.added_speech:
        ap.error("--added-speech: the selection and phone mixtures are "
                 "spoken by voices no round trains on")
    if args.selection and args.noise_augment:
        ap.error("--noise-augment: the selection mixtures keep the noise "
                 "as recorded")
    if not 0 <= args.babble_share <= 1:
        ap.error("--babble-share %g: want a share in 0..1" %
                 args.babble_share)
    if (args.selection or args.phone) and (args.crowds or args.babble_share):
        ap.error("--crowds, --babble-share: the selection and phone "
                 "mixtures keep the noise every round was trained on")
    if args.repeats < 1:
        ap.error("--repeats %d: want at least 1" % args.repeats)

    groups = sources.read_catalogue(args.real) if args.real else {}
    noises.set_recorded(groups)
    split = read_split(added_noises=args.added_noises,
                       added_speech=args.added_speech)
    start = time.time()
    print("synth: seed %d, %d training voices, held out: %s; noises %s, "
          "held out: %s" % (args.seed, len(split["train_voices"]),
                            " ".join(split["test_voices"]),
                            " ".join(split["train_noises"]),
                            " ".join(split["test_noises"])), flush=True)
    if args.selection:
        return write_selection_set(args, groups, split, start)
    if args.phone:
        return write_phone_set(args, groups, split, start)
    print("synth: speech pools", flush=True)
    # With recorded speech, TTS speaks only part of the mixtures and needs a
    # smaller pool.
    tts_share = max(1.0 - split["real_share"], 0.3) if groups else 1.0
    POOLS["train"] = build_pool(args.seed, SETS["train"],
                                split["train_voices"],
                                0.5 * tts_share * args.train_minutes,
                                args.jobs)
    POOLS["val"] = build_pool(args.seed, SETS["val"], split["train_voices"],
                              0.7 * tts_share * args.val_minutes, args.jobs)
    POOLS["test"] = build_pool(args.seed, SETS["test"], split["test_voices"],
                               max(3.0, 0.25 * len(split["snrs"])
                                   * len(split["all_noises"])
                                   * args.test_seconds / 60), args.jobs)
    if groups:
        REAL_SHARE[0] = split["real_share"]
        # Every kept recording of its subset (they are memory-mapped).
        for name in ("train", "val"):
            POOLS[name + "-real"] = build_real_pool(
                groups, split, name, args.seed,
                SETS[name + "-real"], 1e9)
        POOLS["test-real"] = build_real_pool(
            groups, split, "test", args.seed, SETS["test-real"], 1e9)
    print("synth: mixtures", flush=True)
    write_train_set(args.seed, "train", os.path.join(args.out, "train"),
                    args.train_minutes, split["train_noises"], args.jobs)
    write_train_set(args.seed, "val", os.path.join(args.out, "val"),
                    args.val_minutes, split["train_noises"], args.jobs)
    write_test_set(args.seed, os.path.join(args.out, "test"), split,
                   args.test_seconds, args.jobs)
    if groups:
        write_test_set(args.seed, os.path.join(args.out, "test-real"), split,
                       args.test_seconds, args.jobs, pool="test-real")
    print("synth: done in %.0f s" % (time.time() - start), flush=True)


if __name__ == "__main__":
    sys.exit(main())
