# SPDX-License-Identifier: LGPL-2.1-or-later
"""Noise generators and recording effects for the training mixtures.

Every generator takes (rng, n) and returns n samples at 48 kHz with unit
RMS; babble also takes a function that returns speech. The effects
(microphone colouring, reverberation) are drawn once per mixture as a plan
and then applied to the speech and the noise alike.
"""

from math import gcd

import numpy as np
from scipy.signal import fftconvolve, sosfilt, butter, resample_poly

RATE = 48000


def _unit(x):
    rms = np.sqrt(np.mean(x ** 2))
    return x / rms if rms > 0 else x


def _coloured(rng, n, exponent, floor_hz=20.0):
    """Gaussian noise with a power spectrum falling as 1 / f^exponent."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.maximum(np.fft.rfftfreq(n, 1.0 / RATE), floor_hz)
    spec *= f ** (-exponent / 2.0)
    spec[0] = 0
    return _unit(np.fft.irfft(spec, n))


def _smooth_random(rng, n, rate_hz, lo, hi):
    """A slowly varying curve between lo and hi (knots every 1/rate_hz s)."""
    knots = max(int(n / RATE * rate_hz) + 2, 2)
    values = rng.uniform(lo, hi, knots)
    return np.interp(np.linspace(0, knots - 1, n), np.arange(knots), values)


def white(rng, n):
    """White Gaussian noise."""
    return _unit(rng.standard_normal(n))


def pink(rng, n):
    """Pink (1/f) noise."""
    return _coloured(rng, n, 1.0)


def brown(rng, n):
    """Brown (1/f^2) noise, high-passed at 20 Hz."""
    return _coloured(rng, n, 2.0)


def hum(rng, n):
    """Mains hum: 50 or 60 Hz (or a rectifier's 100/120 Hz) with from one to
    forty harmonics (odd ones stronger in transformer buzz), a falling
    spectrum that may end anywhere from 150 Hz to 4 kHz, a slow level
    wobble and a little hiss: what is learnt is "a steady tone series",
    not one hum's spectrum."""
    f0 = (50.0 if rng.random() < 0.5 else 60.0) * rng.uniform(0.997, 1.003)
    if rng.random() < 0.2:
        f0 *= 2
    t = np.arange(n) / RATE
    x = np.zeros(n)
    decay, odd_boost = rng.uniform(0.3, 2.5), rng.uniform(1.0, 4.0)
    top = np.exp(rng.uniform(np.log(150), np.log(4000)))
    for k in range(1, int(max(min(40, top / f0), 1)) + 1):
        amp = k ** -decay * (odd_boost if k % 2 else 1.0)
        amp *= rng.uniform(0.3, 1.0)
        x += amp * np.sin(2 * np.pi * k * f0 * t + rng.uniform(0, 2 * np.pi))
    x *= _smooth_random(rng, n, 0.5, 0.8, 1.2)
    x = _unit(x) + 10 ** (-rng.uniform(25, 45) / 20) * white(rng, n)
    return _unit(x)


def _harmonics(rng, freq, n_harm, decay):
    """Sum of harmonics of a (possibly time-varying) fundamental."""
    phase = 2 * np.pi * np.cumsum(freq) / RATE
    x = np.zeros(freq.size)
    for k in range(1, n_harm + 1):
        x += k ** -decay * rng.uniform(0.3, 1.0) * np.sin(
            k * phase + rng.uniform(0, 2 * np.pi))
    return x


def fan(rng, n):
    """Fan or air conditioner: low-passed noise with a blade-pass tone and
    its harmonics, slightly amplitude-modulated."""
    sos = butter(2, rng.uniform(300, 3000), "low", fs=RATE, output="sos")
    x = _unit(sosfilt(sos, _coloured(rng, n, rng.uniform(0.0, 1.0))))
    blade = np.full(n, rng.uniform(20, 150)) * _smooth_random(rng, n, 0.2,
                                                               0.99, 1.01)
    tone = _unit(_harmonics(rng, blade, int(rng.integers(2, 8)), 1.0))
    x += 10 ** (-rng.uniform(0, 15) / 20) * tone
    return _unit(x * _smooth_random(rng, n, rng.uniform(0.1, 0.5), 0.8, 1.2))


def room(rng, n):
    """Low-frequency room noise (ventilation, traffic through a wall):
    brown-ish noise low-passed at 80-600 Hz, a few room-mode resonances,
    sometimes a faint tone, slowly changing level."""
    sos = butter(2, rng.uniform(80, 600), "low", fs=RATE, output="sos")
    x = _unit(sosfilt(sos, _coloured(rng, n, rng.uniform(0.5, 2.0))))
    modes = [_peaking(rng.uniform(30, 300), rng.uniform(4, 15),
                      rng.uniform(2, 8)) for _ in range(rng.integers(1, 4))]
    x = _unit(sosfilt(np.concatenate(modes), x))
    if rng.random() < 0.3:
        t = np.arange(n) / RATE
        x += 10 ** (-rng.uniform(6, 20) / 20) * np.sqrt(2) * np.sin(
            2 * np.pi * rng.uniform(40, 250) * t)
    x += 10 ** (-rng.uniform(30, 50) / 20) * pink(rng, n)
    return _unit(x * _smooth_random(rng, n, 0.2, 0.7, 1.3))


def engine(rng, n):
    """Engine: a firing frequency sweeping with the revs, its harmonics and
    half-orders, pulsing at the firing rate, over low rumble."""
    firing = _smooth_random(rng, n, rng.uniform(0.1, 0.4), 20, 120)
    x = _harmonics(rng, firing, 24, rng.uniform(0.7, 1.5))
    x += 0.5 * _harmonics(rng, firing / 2, 12, 1.2)
    pulse = 1 + 0.5 * np.sin(2 * np.pi * np.cumsum(firing) / RATE)
    sos = butter(2, rng.uniform(150, 800), "low", fs=RATE, output="sos")
    rumble = _unit(sosfilt(sos, white(rng, n)))
    return _unit(_unit(x) * pulse + 10 ** (-rng.uniform(0, 12) / 20)
                 * rumble)


def babble(rng, n, speech):
    """Several talkers at once; speech(rng, n) returns one talker."""
    x = np.zeros(n)
    for _ in range(int(rng.integers(4, 9))):
        x += 10 ** (rng.uniform(-6, 6) / 20) * _unit(speech(rng, n))
    return _unit(x)


def crowd(rng, n, speech):
    """Babble as crowds sound: 2-30 talkers (log-uniform), each at its own
    level, half of them in a room of their own (farther talkers reach the
    microphone through more reverberation than the one we keep), and the
    crowd muffled a third of the time (heard through a wall or from afar).
    babble() is the four to eight dry talkers of the earlier sets."""
    x = np.zeros(n)
    for _ in range(int(round(np.exp(rng.uniform(np.log(2), np.log(30)))))):
        talker = 10 ** (rng.uniform(-8, 8) / 20) * _unit(speech(rng, n))
        if rng.random() < 0.5:
            talker = apply_reverb(reverb_plan(rng)[0], talker)
        x += talker
    if rng.random() < 0.3:
        x = sosfilt(butter(2, rng.uniform(1500, 6000), "low", fs=RATE,
                           output="sos"), x)
    return _unit(x)


def _bursts(rng, n, rate_hz, lo_ms, hi_ms, source):
    """Place enveloped copies of source(length) at Poisson times."""
    x = np.zeros(n)
    t = 0
    while True:
        t += int(rng.exponential(1.0 / rate_hz) * RATE)
        if t >= n:
            return x
        length = int(rng.uniform(lo_ms, hi_ms) * RATE / 1000)
        seg = source(length)[:n - t]
        x[t:t + seg.size] += seg


def bursts(rng, n):
    """Noise bursts of 50-800 ms with soft edges over a quiet floor."""
    def burst(length):
        env = np.hanning(length) ** rng.uniform(0.3, 2.0)
        colour = rng.uniform(0.0, 2.0)
        return env * _coloured(rng, length, colour) * rng.uniform(0.3, 1.0)
    x = _bursts(rng, n, rng.uniform(0.3, 2.0), 50, 800, burst)
    return _unit(x + 10 ** (-rng.uniform(20, 40) / 20) * pink(rng, n))


def clicks(rng, n):
    """Clicks and crackle: sparse impulses and 1-3 ms decaying snaps."""
    def click(length):
        env = np.exp(-np.arange(length) / (length / 4.0))
        return env * rng.standard_normal(length) * rng.uniform(0.1, 1.0)
    x = _bursts(rng, n, rng.uniform(1.0, 20.0), 0.05, 3.0, click)
    return _unit(x + 10 ** (-rng.uniform(25, 45) / 20) * white(rng, n))


def keyboard(rng, n):
    """Typing: key-down and key-up transients (short resonant ticks) in
    words of 3-8 keys, with pauses between words."""
    x = np.zeros(n)
    t = int(rng.uniform(0, 0.5) * RATE)
    centres = rng.uniform(1000, 6000, 3)
    resonances = [butter(2, [f / 1.3, f * 1.3], "band", fs=RATE,
                         output="sos") for f in centres]
    while t < n:
        for _ in range(int(rng.integers(3, 9))):
            for offset in (0, int(rng.uniform(0.05, 0.12) * RATE)):
                length = int(rng.uniform(0.003, 0.015) * RATE)
                env = np.exp(-np.arange(length) / (length / 5.0))
                tick = sosfilt(resonances[rng.integers(3)],
                               env * rng.standard_normal(length))
                at = t + offset
                seg = tick[:max(n - at, 0)] * rng.uniform(0.3, 1.0)
                x[at:at + seg.size] += seg
            t += int(rng.uniform(0.08, 0.25) * RATE)
        t += int(rng.uniform(0.3, 1.5) * RATE)
    return _unit(x + 10 ** (-rng.uniform(30, 45) / 20) * pink(rng, n))


def amnoise(rng, n):
    """Amplitude-modulated noise: coloured noise under a sine or square
    envelope of 0.5-10 Hz."""
    base = _coloured(rng, n, rng.uniform(0.0, 2.0))
    t = np.arange(n) / RATE
    wave = np.sin(2 * np.pi * rng.uniform(0.5, 10.0) * t
                  + rng.uniform(0, 2 * np.pi))
    if rng.random() < 0.4:
        wave = np.sign(wave)
    depth = rng.uniform(0.5, 1.0)
    return _unit(base * (1 + depth * wave))


GENERATORS = {"white": white, "pink": pink, "brown": brown, "hum": hum,
              "fan": fan, "room": room, "engine": engine, "babble": babble,
              "bursts": bursts, "clicks": clicks, "keyboard": keyboard,
              "amnoise": amnoise}

# Recorded noise kinds: kind -> the sources of sources.py it draws from.
RECORDED_KINDS = {
    "ambience": ["widelands-effects", "tuxpaint-effects", "sonicpi"],
    "music": ["widelands-music"],
    # Engines, traffic, trains, industry, crowds, rain and wind (split.txt
    # adds it to training only from the fourth fine-tune round on).
    "city": ["flightgear", "lincity"],
    # Game sound effects and ambiences: only the selection mixtures use
    # them (split.txt's selection-noises), noise no round has heard.
    "effects": ["colobot-effects", "wesnoth-effects"],
    "slides": ["etr-slides"],
    "typing": ["keys"],
}
# kind -> list of recordings (float32 arrays), set by set_recorded() before
# the mixture workers fork.
RECORDED = {}


def set_recorded(groups):
    """Takes the recorded noises from sources.read_catalogue()'s groups."""
    RECORDED.clear()
    for kind, names in RECORDED_KINDS.items():
        files = [row["audio"] for name in names for row in groups.get(name, [])
                 if row["kind"] == "noise"]
        if files:
            RECORDED[kind] = files


def all_kinds():
    """Every noise kind: the generators, then the recorded kinds (whether or
    not their recordings are loaded)."""
    return list(GENERATORS) + list(RECORDED_KINDS)


def available_kinds():
    """The kinds make_noise() can make now: the generators and the recorded
    kinds whose recordings set_recorded() loaded."""
    return list(GENERATORS) + [k for k in RECORDED_KINDS if k in RECORDED]


def _recorded(kind, rng, n, augment=False):
    """n samples pieced together from random recordings of one kind, each
    at its own level, with 20 ms cross-fades; typing places single key
    sounds in words instead. augment: each piece at another speed and
    through a random equaliser, and a third of the time the kind as
    sudden events (see _recorded_events)."""
    files = RECORDED[kind]
    if kind == "typing":
        return _typing(rng, files, n)
    if augment and rng.random() < 1.0 / 3:
        return _recorded_events(rng, files, n)
    x = np.zeros(n)
    fade = int(0.02 * RATE)
    pos = 0
    while pos < n:
        seg = _piece(rng, files, n - pos, augment)
        seg *= 10 ** (rng.uniform(-6, 6) / 20)
        if seg.size > 2 * fade:
            seg[:fade] *= np.linspace(0, 1, fade)
            seg[-fade:] *= np.linspace(1, 0, fade)
        x[pos:pos + seg.size] += seg
        pos += max(seg.size - fade, 1)
    return _unit(x)


def _typing(rng, files, n):
    """Single key sounds placed in words of 3-8 keys, with pauses."""
    x = np.zeros(n)
    t = int(rng.uniform(0, 0.5) * RATE)
    while t < n:
        for _ in range(int(rng.integers(3, 9))):
            key = np.asarray(files[rng.integers(len(files))])[:n - t]
            x[t:t + key.size] += key * rng.uniform(0.5, 1.0)
            t += int(rng.uniform(0.08, 0.25) * RATE)
            if t >= n:
                break
        t += int(rng.uniform(0.3, 1.5) * RATE)
    return _unit(x + 10 ** (-rng.uniform(35, 50) / 20) * pink(rng, n))


def faster(x, step):
    """x played step/100 times faster (resampled by 100/step: pitch, tempo
    and spectrum move together)."""
    g = gcd(100, step)
    return resample_poly(x, 100 // g, step // g)


def _piece(rng, files, length, augment):
    """At most `length` samples (float64) of a random recording from a
    random place; augmented: played at a speed of 0.7-1.4 (pitch, tempo
    and spectrum move together) through a random equaliser, so that a kind
    teaches sounds like its recordings rather than their exact spectra."""
    rec = files[rng.integers(len(files))]
    if not augment:
        start = int(rng.integers(max(rec.size - RATE, 1)))
        return np.asarray(rec[start:start + length], dtype=np.float64)
    step = int(round(np.exp(rng.uniform(np.log(0.7), np.log(1.4))) * 100))
    need = length * step // 100 + 64
    start = int(rng.integers(max(rec.size - min(need, rec.size), 0) + 1))
    seg = faster(np.asarray(rec[start:start + need], np.float64),
                 step)[:length]
    return _equalise(rng, seg)


def _equalise(rng, x):
    """x through one to three peaking filters of +-10 dB at 60 Hz-14 kHz,
    and sometimes a high-pass or a low-pass."""
    sections = [_peaking(np.exp(rng.uniform(np.log(60), np.log(14000))),
                         rng.uniform(-10, 10), rng.uniform(0.4, 2.5))
                for _ in range(int(rng.integers(1, 4)))]
    if rng.random() < 0.25:
        sections.append(butter(2, rng.uniform(100, 1500), "high", fs=RATE,
                               output="sos"))
    if rng.random() < 0.25:
        sections.append(butter(2, rng.uniform(2000, 12000), "low", fs=RATE,
                               output="sos"))
    return sosfilt(np.concatenate(sections), x)


def _recorded_events(rng, files, n):
    """Sudden sounds made of a kind's recordings: augmented pieces of
    0.05-1.5 s that start within 1-10 ms and die away, at Poisson times
    (0.3-3 per second) and levels 20 dB apart, over a faint bed of the same
    kind: impacts, machines starting, doors, calls, whatever the kind
    holds, where the network has so far heard it only as a steady stream."""
    def event(length):
        seg = _piece(rng, files, length, True)
        attack = min(int(rng.uniform(0.001, 0.01) * RATE), seg.size)
        env = np.exp(-np.arange(seg.size) / (seg.size * rng.uniform(0.1, 1)))
        env[:attack] *= np.linspace(0, 1, attack)
        return _unit(seg) * env * 10 ** (rng.uniform(-20, 0) / 20)
    x = _bursts(rng, n, rng.uniform(0.3, 3.0), 50, 1500, event)
    bed = np.zeros(n)
    pos = 0
    while pos < n:
        seg = _piece(rng, files, n - pos, True)
        bed[pos:pos + seg.size] = seg
        pos += max(seg.size, 1)
    return _unit(_unit(x) + 10 ** (-rng.uniform(15, 40) / 20) * _unit(bed))


def make_noise(kind, rng, n, speech=None, augment=False, crowds=False):
    """n samples of the given kind at unit RMS; augment: recorded kinds
    varied (see _recorded); crowds: babble drawn as crowd() draws it."""
    if kind == "babble":
        return (crowd if crowds else babble)(rng, n, speech)
    if kind in RECORDED_KINDS:
        if kind not in RECORDED:
            raise ValueError("noise kind %s needs recordings (synth.py "
                             "--real)" % kind)
        return _recorded(kind, rng, n, augment)
    return GENERATORS[kind](rng, n)


# ---- recording effects ----------------------------------------------------

def _peaking(f0, gain_db, q):
    """RBJ peaking equaliser as one second-order section."""
    a = 10 ** (gain_db / 40)
    w = 2 * np.pi * f0 / RATE
    alpha = np.sin(w) / (2 * q)
    b = [1 + alpha * a, -2 * np.cos(w), 1 - alpha * a]
    den = [1 + alpha / a, -2 * np.cos(w), 1 - alpha / a]
    return np.array([b + den]) / den[0]


def colour_plan(rng):
    """A random microphone and channel colouring, as second-order sections:
    high-pass, sometimes a low-pass, resonances and dips."""
    sections = []
    if rng.random() < 0.8:
        sections.append(butter(2, rng.uniform(40, 250), "high", fs=RATE,
                               output="sos"))
    if rng.random() < 0.3:
        sections.append(butter(2, rng.uniform(5000, 20000), "low", fs=RATE,
                               output="sos"))
    for _ in range(int(rng.integers(0, 3))):
        sections.append(_peaking(rng.uniform(200, 12000), rng.uniform(-6, 6),
                                 rng.uniform(0.5, 2.0)))
    return np.concatenate(sections) if sections else None


def reverb_plan(rng):
    """A synthetic room impulse response (RT60 0.15-0.8 s): a direct path,
    a few early reflections and an exponentially decaying diffuse tail."""
    rt60 = rng.uniform(0.15, 0.8)
    n = int(rt60 * 1.2 * RATE)
    t = np.arange(n) / RATE
    tail = rng.standard_normal(n) * np.exp(-6.9 * t / rt60)
    sos = butter(1, rng.uniform(3000, 12000), "low", fs=RATE, output="sos")
    tail = sosfilt(sos, tail)
    onset = int(rng.uniform(0.002, 0.01) * RATE)
    tail[:onset] = 0
    rir = tail * 10 ** (-rng.uniform(0, 12) / 20) / np.sqrt(np.sum(tail ** 2))
    rir[0] += 1.0
    for _ in range(int(rng.integers(2, 6))):
        at = int(rng.uniform(0.002, 0.03) * RATE)
        rir[at] += rng.uniform(-0.6, 0.6)
    return rir, rt60


def apply_colour(sos, x):
    return x if sos is None else sosfilt(sos, x)


def apply_reverb(rir, x):
    return x if rir is None else fftconvolve(x, rir)[:x.size]
