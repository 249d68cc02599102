# SPDX-License-Identifier: LGPL-2.1-or-later
"""Speech for training: sentences, voices and Debian's TTS engines.

Three engines are used: espeak-ng (many language voices and variants, rate
and pitch varied), flite (its 16 kHz general voices, not the clock-only
awb_time nor the 8 kHz kal) and festival (two diphone voices and one HTS
voice). Every utterance is resampled to 48 kHz with a small speed change
and given a synthetic high band (the engines stop at 8, 11 or 16 kHz), so
that the network does not learn that speech has no energy above those
frequencies.
"""

import os
import subprocess
import tempfile
from math import gcd

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

RATE = 48000

# ---- sentences ------------------------------------------------------------

NOUNS = """apple river window garden doctor teacher engine bottle kitchen
letter market island pocket silver table morning evening station basket
candle ladder mirror pencil rabbit saddle thunder village wallet yellow
blanket cabinet dinner feather harbour jacket lantern meadow notebook orange
picture question rocket shadow ticket umbrella violin weather zebra bridge
castle forest hammer jungle kettle mountain planet sandwich tractor vessel
captain lawyer farmer sister brother neighbour student pilot singer driver
cousin painter baker nurse coffee sugar paper music water number minute
office school hospital airport museum library theatre bakery factory""".split()

ADJECTIVES = """quick quiet bright heavy gentle narrow ancient frozen golden
hollow lucky modern noisy purple rapid silent tiny wooden yellow careful
clever empty famous hungry little massive nervous polite rusty shiny smooth
strange sudden tender useful wild broken dusty early fresh green""".split()

VERBS_PAST = """carried opened painted counted watched followed answered
borrowed cleaned covered delivered discovered finished gathered handled
measured noticed ordered packed pushed repaired started visited washed
wrapped dropped fixed helped joined lifted moved played pulled""".split()

VERBS = """carry open paint count watch follow answer borrow clean cover
deliver discover finish gather measure order pack push repair start visit
wash wrap fix help lift move play pull bring check find keep read send
take""".split()

NAMES = """Anna Boris Clara Daniel Elena Felix Grace Hugo Irene James Karen
Louis Maria Nathan Olga Peter Rosa Simon Tina Victor Wendy Oscar Julia
Martin Sofia Thomas Laura Henry""".split()

PLACES = ["in the morning", "at noon", "after dinner", "before lunch",
          "on Monday", "on Friday", "last week", "next year",
          "at the station", "near the bridge", "by the river",
          "behind the house", "under the table", "over the hill"]

PREPOSITIONS = "to from into behind under beside towards across near".split()
NUMBERS = """zero one two three four five six seven eight nine ten eleven
twelve twenty thirty forty fifty hundred""".split()
SYLLABLES = """ba be bi bo bu ka ke ki ko ku la le li lo lu ma me mi mo mu na
ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va
ve vi vo vu za ze zi zo zu sha shi cho chu tra tri plo gra fle""".split()


def _place(rng):
    """A short phrase of time or place."""
    return PLACES[rng.integers(len(PLACES))]


def _pick(rng, words):
    return words[rng.integers(len(words))]


def _nonsense(rng):
    """A made-up word of two to four syllables."""
    return "".join(_pick(rng, SYLLABLES) for _ in range(rng.integers(2, 5)))


def sentence(rng):
    """One random English sentence (4 to 25 words)."""
    n, a, v = (lambda: _pick(rng, NOUNS)), (lambda: _pick(rng, ADJECTIVES)), \
        (lambda: _pick(rng, VERBS_PAST))
    kind = rng.integers(9)
    if kind == 0:
        s = "The %s %s %s the %s %s." % (a(), n(), v(), a(), n())
    elif kind == 1:
        s = "%s said that the %s %s a %s %s." % (_pick(rng, NAMES), n(), v(),
                                                   a(), n())
    elif kind == 2:
        s = "Please %s the %s %s." % (_pick(rng, VERBS), n(), _place(rng))
    elif kind == 3:
        s = "Did you %s the %s %s %s?" % (_pick(rng, VERBS), a(), n(),
                                          _place(rng))
    elif kind == 4:
        digits = " ".join(_pick(rng, NUMBERS[:10]) for _ in range(
            rng.integers(4, 9)))
        s = "My number is %s, call me %s." % (digits, _place(rng))
    elif kind == 5:
        s = "We need %s, %s, %s and a %s %s." % (n(), n(), n(), a(), n())
    elif kind == 6:
        s = "%s and %s %s the %s %s the %s, and then they %s it %s." % (
            _pick(rng, NAMES), _pick(rng, NAMES), v(), n(),
            _pick(rng, PREPOSITIONS), n(), v(), _place(rng))
    elif kind == 7:
        s = "It costs %s %s and %s cents." % (_pick(rng, NUMBERS),
                                              "dollars", _pick(rng, NUMBERS))
    else:
        words = [_nonsense(rng) for _ in range(rng.integers(3, 8))]
        s = "The %s is %s." % (n(), " ".join(words))
    return s[0].upper() + s[1:]


# ---- voices ---------------------------------------------------------------

ESPEAK_ENGLISH = ["en", "en-us", "en-gb-x-rp", "en-029", "en-gb-x-gbclan",
                  "en-gb-x-gbcwmd", "en-us-nyc", "en-gb-scotland"]
ESPEAK_OTHER = ["de", "fr", "es", "it", "nl", "pt", "pl", "sv", "cs", "fi"]
ESPEAK_VARIANTS = (["m%d" % i for i in range(1, 9)]
                   + ["f%d" % i for i in range(1, 6)]
                   + ["klatt", "klatt2", "klatt3", "klatt4", "croak",
                      "whisper", "Alex", "Annie", "Andy", "Gene", "Jacky",
                      "Mike", "adam", "anika", "aunty", "belinda", "boris",
                      "david", "edward", "grandpa", "iven", "john", "linda",
                      "max", "michel", "norbert", "paul", "quincy", "rob",
                      "robert", "steph", "travis", "victor", "zac"])
FLITE_VOICES = ["kal16", "awb", "rms", "slt"]
FESTIVAL_VOICES = ["kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"]


def all_voices():
    """Every voice identity as "engine:name"."""
    return (["espeak-ng:" + v for v in ESPEAK_ENGLISH + ESPEAK_OTHER]
            + ["flite:" + v for v in FLITE_VOICES]
            + ["festival:" + v for v in FESTIVAL_VOICES])


def engine_weights(voices):
    """Sampling weights: espeak-ng 60 %, flite 25 %, festival 15 %, shared
    among the voices of each engine; English espeak-ng voices 3x others."""
    share = {"espeak-ng": 0.60, "flite": 0.25, "festival": 0.15}
    raw = []
    for v in voices:
        engine, name = v.split(":")
        raw.append(3.0 if name in ESPEAK_ENGLISH else 1.0)
    raw = np.array(raw)
    w = np.zeros(len(voices))
    for engine, s in share.items():
        idx = [i for i, v in enumerate(voices) if v.startswith(engine + ":")]
        if idx:
            w[idx] = s * raw[idx] / raw[idx].sum()
    return w / w.sum()


def utterance_spec(rng, voice):
    """A fully drawn TTS request: voice, text and engine parameters."""
    engine, name = voice.split(":")
    spec = {"voice": voice, "engine": engine, "name": name,
            "text": sentence(rng), "speed": float(rng.uniform(0.92, 1.08))}
    if engine == "espeak-ng":
        spec["variant"] = ESPEAK_VARIANTS[rng.integers(len(ESPEAK_VARIANTS))]
        spec["rate"] = int(rng.integers(110, 230))
        spec["pitch"] = int(rng.integers(15, 85))
        spec["gap"] = int(rng.integers(0, 4))
    elif engine == "flite":
        spec["stretch"] = float(rng.uniform(0.8, 1.3))
        spec["f0"] = float(rng.uniform(80, 220))
    else:
        spec["stretch"] = float(rng.uniform(0.85, 1.25))
    return spec


def _run_engine(spec, path):
    """Synthesise spec["text"] into the WAV file path."""
    e, text = spec["engine"], spec["text"]
    if e == "espeak-ng":
        cmd = ["espeak-ng", "-v", "%s+%s" % (spec["name"], spec["variant"]),
               "-s", str(spec["rate"]), "-p", str(spec["pitch"]),
               "-g", str(spec["gap"]), "-w", path, text]
    elif e == "flite":
        cmd = ["flite", "-voice", spec["name"],
               "--setf", "duration_stretch=%.3f" % spec["stretch"],
               "--setf", "int_f0_target_mean=%.1f" % spec["f0"],
               "-t", text, "-o", path]
    else:
        txt = path + ".txt"
        with open(txt, "w") as f:
            f.write(text + "\n")
        cmd = ["text2wave", "-eval", "(voice_%s)" % spec["name"],
               "-eval", "(Parameter.set 'Duration_Stretch %.3f)"
               % spec["stretch"], txt, "-o", path]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def _to_float(x):
    if x.dtype == np.int16:
        return x.astype(np.float64) / 32768.0
    return x.astype(np.float64)


def _trim(x, rate, threshold=1e-4, keep=0.05):
    """Cut leading and trailing near-silence, keeping `keep` seconds."""
    idx = np.flatnonzero(np.abs(x) > threshold)
    if idx.size == 0:
        return x[:0]
    pad = int(keep * rate)
    return x[max(idx[0] - pad, 0):idx[-1] + pad]


def _resample(x, rate, speed):
    """Resample from rate to RATE / speed: playing the result at RATE makes
    the speech `speed` times faster (pitch and formants move with it)."""
    target = int(round(RATE / speed / 10.0)) * 10
    g = gcd(target, rate)
    return resample_poly(x, target // g, rate // g)


def extend_band(x, native_rate, rng):
    """Add a synthetic band above the engine's bandwidth.

    Noise shaped to fall off above the engine's cutoff is modulated by the
    envelope of the top octave the engine does produce, and scaled to
    continue its spectral level 2-10 dB lower: fricatives get a plausible
    high band, voiced sounds little.
    """
    cutoff = 0.45 * native_rate
    if cutoff >= 0.45 * RATE:
        return x
    n = x.size
    freqs = np.fft.rfftfreq(n, 1.0 / RATE)
    spec = np.fft.rfft(x)
    top = (freqs > cutoff / 2) & (freqs < cutoff)
    band = np.fft.irfft(np.where(top, spec, 0), n)
    win = int(0.004 * RATE)
    env = np.sqrt(np.convolve(band ** 2, np.ones(win) / win, mode="same"))
    noise = np.fft.rfft(rng.standard_normal(n) * env)
    slope = rng.uniform(1.0, 2.5)
    shape = np.where(freqs > cutoff, (np.maximum(freqs, 1) / cutoff)
                     ** -slope, 0.0)
    ext = np.fft.irfft(noise * shape, n)
    ref = np.abs(spec[(freqs > 0.8 * cutoff) & (freqs < cutoff)])
    got = np.abs(np.fft.rfft(ext)[(freqs > cutoff) & (freqs < 1.2 * cutoff)])
    if ref.size == 0 or got.size == 0 or got.mean() == 0:
        return x
    gain = np.sqrt((ref ** 2).mean() / (got ** 2).mean())
    gain *= 10 ** (-rng.uniform(2, 10) / 20)
    return x + gain * ext


def synthesize(spec, seed):
    """Run one TTS request; returns 48 kHz float64 speech (may be empty)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "u.wav")
        _run_engine(spec, path)
        rate, x = wavfile.read(path)
    x = _trim(_to_float(x), rate)
    if x.size < rate // 10:
        return np.zeros(0)
    rng = np.random.default_rng(seed)
    y = _resample(x, rate, spec["speed"])
    y = extend_band(y, rate / spec["speed"], rng)
    peak = np.abs(y).max()
    return (y / peak * 0.5) if peak > 0 else y
