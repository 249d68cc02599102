#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Speech-enhancement metrics of the quality report (numpy and scipy only).

    metrics.py --self-check      checks the metrics on synthetic signals

All functions take mono float arrays at RATE (48 kHz) unless they say
otherwise. Scores compare a processed signal with the clean reference after
align() has removed the method's constant delay.
"""

import sys

import numpy as np
from scipy.signal import (correlate, firwin, kaiser_beta, oaconvolve,
                          resample_poly)

RATE = 48000
FRAME = 480  # 10 ms, the activity frame
EPS = np.finfo(np.float64).eps
BAND_LIMIT_DB = 75.0  # band_limit()'s stop-band attenuation


# ---- delay compensation ---------------------------------------------------

def best_lag(reference, processed, max_lag=int(0.1 * RATE)):
    """The integer lag L (|L| <= max_lag samples) that maximises the
    cross-correlation sum_n reference[n] * processed[n + L]; a positive L
    means the processed signal is late."""
    n = min(reference.size, processed.size)
    c = correlate(processed[:n], reference[:n], mode="full", method="fft")
    mid = n - 1
    lo, hi = max(mid - max_lag, 0), min(mid + max_lag, c.size - 1)
    return int(np.argmax(c[lo:hi + 1]) + lo - mid)


def align(processed, lag, n):
    """processed advanced by lag samples, cut or zero-padded to n."""
    out = np.zeros(n)
    if lag >= 0:
        part = processed[lag:lag + n]
    else:
        part = np.concatenate([np.zeros(-lag), processed])[:n]
    out[:part.size] = part
    return out


# ---- SI-SDR ---------------------------------------------------------------

def si_sdr(reference, estimate):
    """Scale-invariant SDR in dB (Le Roux et al. 2019), on zero-mean
    signals."""
    s = reference - reference.mean()
    e = estimate - estimate.mean()
    alpha = np.dot(e, s) / (np.dot(s, s) + EPS)
    target = alpha * s
    noise = e - target
    return float(10 * np.log10((np.dot(target, target) + EPS)
                               / (np.dot(noise, noise) + EPS)))


# ---- activity -------------------------------------------------------------

def frame_energy(x, frame=FRAME):
    """Energy of each complete frame."""
    n = x.size // frame
    return np.sum(x[:n * frame].reshape(n, frame) ** 2, axis=1)


def activity(clean, floor_db=-50.0, margin_s=0.1):
    """Per 10 ms frame: 'speech' where the clean frame is within floor_db of
    the loudest one; 'free' where no frame within margin_s is. Frames in
    the margin belong to neither. Returns two boolean arrays."""
    e = frame_energy(clean)
    if e.size == 0 or e.max() <= 0:
        return np.zeros(e.size, bool), np.ones(e.size, bool)
    speech = e > e.max() * 10 ** (floor_db / 10)
    reach = int(round(margin_s * RATE / FRAME))
    near = np.convolve(speech.astype(float), np.ones(2 * reach + 1),
                       mode="same") > 0
    return speech, ~near


def _frames(x, mask, frame=FRAME):
    n = mask.size
    return x[:n * frame].reshape(n, frame)[mask]


def noise_reduction(noisy, processed, free):
    """dB by which the processed signal is quieter than the noisy input in
    the speech-free frames (nan if there are none)."""
    if not free.any():
        return float("nan")
    a = np.sum(_frames(noisy, free) ** 2)
    b = np.sum(_frames(processed, free) ** 2)
    return float(10 * np.log10((a + EPS) / (b + EPS)))


def speech_si_sdr(clean, processed, speech):
    """SI-SDR over the speech-active frames only (concatenated)."""
    if not speech.any():
        return float("nan")
    return si_sdr(_frames(clean, speech).ravel(),
                  _frames(processed, speech).ravel())


def log_spectral_distance(clean, processed, speech, n_fft=1024,
                          floor_db=-60.0):
    """Mean log-spectral distance in dB over the speech-active 10 ms frames:
    RMS over frequency of the difference of the log power spectra (Hann
    window of n_fft samples centred on the frame). Both spectra are floored
    floor_db below the clean signal's loudest bin, so that silence in both
    counts as equal."""
    idx = np.flatnonzero(speech)
    if idx.size == 0:
        return float("nan")
    win = np.hanning(n_fft)
    pad = n_fft // 2
    c = np.pad(clean, (pad, pad))
    p = np.pad(processed, (pad, pad))
    starts = idx * FRAME + FRAME // 2  # frame centre, shifted by pad
    seg = starts[:, None] + np.arange(n_fft)[None, :] - pad
    seg = np.clip(seg + pad, 0, c.size - 1)
    pc = np.abs(np.fft.rfft(c[seg] * win, axis=1)) ** 2
    pp = np.abs(np.fft.rfft(p[seg] * win, axis=1)) ** 2
    floor = pc.max() * 10 ** (floor_db / 10) + EPS
    d = 10 * np.log10(np.maximum(pc, floor)) - 10 * np.log10(
        np.maximum(pp, floor))
    return float(np.mean(np.sqrt(np.mean(d ** 2, axis=1))))


# ---- speech energy lost ---------------------------------------------------

LOST_FFT = 1024
LOST_HOP = 256
LOST_FLOOR_DB = -60.0  # bins this far below the loudest clean bin are left out
LOST_CAP_DB = 40.0  # one bin counts for at most this much, either way


def _power_spectrogram(x, n_fft=LOST_FFT, hop=LOST_HOP):
    """(frames, n_fft/2+1) power of Hann-windowed frames of x."""
    frames = max((x.size - n_fft) // hop + 1, 0)
    if frames == 0:
        return np.zeros((0, n_fft // 2 + 1))
    idx = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :]
    return np.abs(np.fft.rfft(x[idx] * np.hanning(n_fft), axis=1)) ** 2


def speech_dominated(clean, noise):
    """Boolean (frames, bins) mask of the time-frequency bins where the
    clean speech has more power than the noise and is within LOST_FLOOR_DB
    of the loudest clean bin; also returns the clean power."""
    pc = _power_spectrogram(clean)
    pn = _power_spectrogram(noise)
    if pc.size == 0:
        return np.zeros(pc.shape, bool), pc
    floor = pc.max() * 10 ** (LOST_FLOOR_DB / 10)
    return (pc > pn) & (pc > floor), pc


def _speech_lost_bins(clean, noise, processed):
    """Per (frame, bin), the weight speech_energy_lost() gives it (the clean
    power where the speech dominates, else 0) and its loss in dB, 10
    log10(clean power / output power) capped at +-LOST_CAP_DB (0 where it
    does not count)."""
    mask, pc = speech_dominated(clean, noise)
    pp = _power_spectrogram(processed)[:pc.shape[0]]
    loss = np.zeros(pc.shape)
    loss[mask] = np.clip(10 * np.log10((pc[mask] + EPS) / (pp[mask] + EPS)),
                         -LOST_CAP_DB, LOST_CAP_DB)
    return np.where(mask, pc, 0.0), loss


def speech_energy_lost(clean, noise, processed):
    """Speech energy lost in dB over the speech-dominated bins (see
    speech_dominated(); noise is the noisy input minus the clean speech,
    processed is delay-compensated): the mean over those bins of
    10 log10(clean power / output power), each bin capped at +-LOST_CAP_DB
    and weighted by its clean power, so that the bins holding the speech
    energy count and faint ones do not. Lower is better; 0 for an
    untouched signal, 20 log10(1/g) for a gain g. Where the speech
    dominates, the noise turns the phase of each bin at random, and the
    mean of log|1 + r e^(i phi)| over the phase is 0 for r < 1, so the
    noisy input itself scores about 0: what is counted is speech removed,
    not noise let through. nan if no bin qualifies."""
    weight, loss = _speech_lost_bins(clean, noise, processed)
    total = np.sum(weight)
    if total == 0:
        return float("nan")
    return float(np.sum(weight * loss) / total)


def speech_energy_lost_parts(clean, noise, processed, edges_hz):
    """speech_energy_lost() split by frequency: for each range [lo, hi) of
    consecutive edges_hz, (share, part), its share of the counted speech
    energy and its part of the dB lost; the parts add up to
    speech_energy_lost() when the edges span 0 to RATE / 2 (a part over its
    share is the mean loss of that range's bins). nan figures if no bin
    qualifies."""
    weight, loss = _speech_lost_bins(clean, noise, processed)
    total = np.sum(weight)
    freqs = np.fft.rfftfreq(LOST_FFT, 1.0 / RATE)
    parts = []
    for lo, hi in zip(edges_hz[:-1], edges_hz[1:]):
        sel = (freqs >= lo) & (freqs < hi) if hi < RATE / 2 else freqs >= lo
        if total == 0:
            parts.append((float("nan"), float("nan")))
            continue
        parts.append((float(np.sum(weight[:, sel]) / total),
                      float(np.sum(weight[:, sel] * loss[:, sel]) / total)))
    return parts


def speech_energy_lost_depths(clean, noise, processed, edges_db):
    """speech_energy_lost() split by how deep each counted bin was cut:
    the ranges below edges_db[0] (gains near or above 1 included), between
    consecutive edges and from the last edge on; for each (share, part) as
    speech_energy_lost_parts() gives them, so the parts add up to
    speech_energy_lost(). Says whether the speech is lost to many bins
    taken down a little (a hedge between voice and noise) or to few bins
    taken away (a confident error). nan figures if no bin qualifies."""
    weight, loss = _speech_lost_bins(clean, noise, processed)
    total = np.sum(weight)
    bounds = [-np.inf] + list(edges_db) + [np.inf]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sel = (loss >= lo) & (loss < hi)
        if total == 0:
            parts.append((float("nan"), float("nan")))
            continue
        parts.append((float(np.sum(weight[sel]) / total),
                      float(np.sum(weight[sel] * loss[sel]) / total)))
    return parts


# ---- STOI (Taal, Hendriks, Heusdens, Jensen 2011) --------------------------

STOI_RATE = 10000
STOI_FRAME = 256
STOI_FFT = 512
STOI_BANDS = 15
STOI_MIN_FREQ = 150.0
STOI_SEGMENT = 30  # frames: 384 ms
STOI_BETA = -15.0  # dB, lower SDR bound of the clipping
STOI_DYN_RANGE = 40.0  # dB, silent-frame removal


def _third_octave_matrix():
    """(STOI_BANDS, STOI_FFT/2+1) 0/1 matrix of the one-third octave bands
    with centres 150 Hz * 2^(k/3); each edge is the nearest FFT bin."""
    f = np.linspace(0, STOI_RATE, STOI_FFT + 1)[:STOI_FFT // 2 + 1]
    k = np.arange(STOI_BANDS)
    lo = STOI_MIN_FREQ * 2.0 ** ((2 * k - 1) / 6.0)
    hi = STOI_MIN_FREQ * 2.0 ** ((2 * k + 1) / 6.0)
    m = np.zeros((STOI_BANDS, f.size))
    for b in range(STOI_BANDS):
        i_lo = int(np.argmin((f - lo[b]) ** 2))
        i_hi = int(np.argmin((f - hi[b]) ** 2))
        m[b, i_lo:i_hi] = 1
    return m


_OCT = _third_octave_matrix()
_WIN = np.hanning(STOI_FRAME + 2)[1:-1]


def _frame_starts(n):
    """Starts of the 50 %-overlapped frames, as Taal's code counts them
    (the last start is below n - STOI_FRAME)."""
    return np.arange(0, max(n - STOI_FRAME, 0), STOI_FRAME // 2)


def _remove_silent_frames(x, y):
    """Drops the frames of both signals whose clean-frame energy is more
    than STOI_DYN_RANGE below the loudest, then overlap-adds the rest."""
    starts = _frame_starts(x.size)
    if starts.size == 0:
        return x, y
    idx = starts[:, None] + np.arange(STOI_FRAME)[None, :]
    xf, yf = x[idx] * _WIN, y[idx] * _WIN
    energy = 20 * np.log10(np.linalg.norm(xf, axis=1) + EPS)
    keep = energy > energy.max() - STOI_DYN_RANGE
    xf, yf = xf[keep], yf[keep]
    n = (xf.shape[0] - 1) * (STOI_FRAME // 2) + STOI_FRAME
    xo, yo = np.zeros(n), np.zeros(n)
    for i in range(xf.shape[0]):
        s = i * (STOI_FRAME // 2)
        xo[s:s + STOI_FRAME] += xf[i]
        yo[s:s + STOI_FRAME] += yf[i]
    return xo, yo


def _band_envelopes(x):
    """(STOI_BANDS, frames) one-third octave band magnitudes."""
    starts = _frame_starts(x.size)
    idx = starts[:, None] + np.arange(STOI_FRAME)[None, :]
    spec = np.fft.rfft(x[idx] * _WIN, n=STOI_FFT, axis=1)
    return np.sqrt(_OCT @ (np.abs(spec) ** 2).T)


def stoi(clean, processed, rate=RATE):
    """Short-time objective intelligibility (0..1) of processed against
    clean, both at `rate` (resampled to 10 kHz here). Returns nan when
    fewer than 30 non-silent frames remain."""
    if rate != STOI_RATE:
        g = np.gcd(int(rate), STOI_RATE)
        clean = resample_poly(clean, STOI_RATE // g, int(rate) // g)
        processed = resample_poly(processed, STOI_RATE // g, int(rate) // g)
    n = min(clean.size, processed.size)
    x, y = _remove_silent_frames(clean[:n], processed[:n])
    X, Y = _band_envelopes(x), _band_envelopes(y)
    frames = X.shape[1]
    if frames < STOI_SEGMENT:
        return float("nan")
    # All segments of 30 consecutive frames, hop 1: (segments, bands, 30).
    seg = np.arange(frames - STOI_SEGMENT + 1)[:, None] + np.arange(
        STOI_SEGMENT)[None, :]
    xs = X[:, seg].transpose(1, 0, 2)
    ys = Y[:, seg].transpose(1, 0, 2)
    # Normalise the processed envelope to the clean one, clip at beta.
    alpha = np.linalg.norm(xs, axis=2, keepdims=True) / (
        np.linalg.norm(ys, axis=2, keepdims=True) + EPS)
    clip = 10 ** (-STOI_BETA / 20)
    yp = np.minimum(alpha * ys, xs * (1 + clip))
    xs = xs - xs.mean(axis=2, keepdims=True)
    yp = yp - yp.mean(axis=2, keepdims=True)
    xs /= np.linalg.norm(xs, axis=2, keepdims=True) + EPS
    yp /= np.linalg.norm(yp, axis=2, keepdims=True) + EPS
    return float(np.mean(np.sum(xs * yp, axis=2)))


# ---- band-limited input ---------------------------------------------------

def band_limit(x, cutoff):
    """X at RATE with nothing above CUTOFF Hz, as audio recorded or sent
    at a lower rate and played at 48 kHz is: a linear-phase
    Kaiser-windowed FIR, BAND_LIMIT_DB down from CUTOFF on, its
    transition 1 kHz wide (a quarter of CUTOFF if narrower) below it, as
    rnndenoise-features' band limit; its delay taken out (the output stays
    aligned)."""
    width = min(1000.0, cutoff / 4)
    taps = int(np.ceil((BAND_LIMIT_DB - 7.95) / (14.36 * width / RATE)))
    taps |= 1
    h = firwin(taps, cutoff - width / 2,
               window=("kaiser", kaiser_beta(BAND_LIMIT_DB)), fs=RATE)
    return oaconvolve(x, h)[taps // 2:taps // 2 + x.size]


# ---- self-check -----------------------------------------------------------

def _speechlike(rng, seconds):
    """Harmonic bursts with syllable-rate envelopes and pauses: enough like
    speech for STOI's band envelopes."""
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    f0 = 120 + 30 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(f0) / RATE
    x = sum(np.sin(k * phase) / k for k in range(1, 30))
    env = np.clip(np.sin(2 * np.pi * 3.0 * t), 0, None) ** 2
    env *= (np.sin(2 * np.pi * 0.4 * t) > -0.3)
    return x * env * 0.1 + 1e-5 * rng.standard_normal(n)


def _lowpass(x, hz):
    """x with every FFT bin above hz set to zero."""
    spec = np.fft.rfft(x)
    spec[np.fft.rfftfreq(x.size, 1.0 / RATE) > hz] = 0
    return np.fft.irfft(spec, n=x.size)


def _stoi_loop(clean, processed):
    """STOI written as the paper's loops (one segment and band at a time),
    to check the vectorised version."""
    g = np.gcd(RATE, STOI_RATE)
    x = resample_poly(clean, STOI_RATE // g, RATE // g)
    y = resample_poly(processed, STOI_RATE // g, RATE // g)
    x, y = _remove_silent_frames(x, y)
    X, Y = _band_envelopes(x), _band_envelopes(y)
    clip = 10 ** (-STOI_BETA / 20)
    d = []
    for m in range(STOI_SEGMENT, X.shape[1] + 1):
        for j in range(STOI_BANDS):
            xs = X[j, m - STOI_SEGMENT:m]
            ys = Y[j, m - STOI_SEGMENT:m]
            yp = np.minimum(ys * np.linalg.norm(xs) / np.linalg.norm(ys),
                            xs * (1 + clip))
            d.append(np.corrcoef(xs, yp)[0, 1])
    return float(np.mean(d))


def self_check():
    """Checks the metrics on signals with known answers; returns 0 if all
    pass, prints each figure."""
    rng = np.random.default_rng(7)
    x = _speechlike(rng, 4.0)
    noise = rng.standard_normal(x.size) * np.std(x)
    checks = []

    def check(name, value, ok):
        checks.append(ok)
        print("  %-44s %8.3f  %s" % (name, value, "ok" if ok else "FAIL"))

    check("STOI(x, x)", stoi(x, x), abs(stoi(x, x) - 1) < 1e-6)
    check("STOI(x, 0.3 x) (scale invariant)", stoi(x, 0.3 * x),
          abs(stoi(x, 0.3 * x) - 1) < 1e-6)
    # Clipping at beta makes the envelope of unrelated noise follow the
    # clean envelope in its troughs, so noise scores well above 0.
    s_noise = stoi(x, noise)
    check("STOI(x, noise)", s_noise, s_noise < 0.45)
    s_mix = [stoi(x, x + noise * 10 ** (-snr / 20)) for snr in (-10, 0, 10)]
    check("STOI(x, x + noise) at -10 dB SNR", s_mix[0],
          s_noise < s_mix[0] < s_mix[1] < s_mix[2] < 1)
    check("STOI(x, x + noise) at 0 dB SNR", s_mix[1], 0.3 < s_mix[1] < 1)
    check("STOI(x, x + noise) at 10 dB SNR", s_mix[2], 0.6 < s_mix[2] < 1)
    short, short_noisy = x[:RATE], x[:RATE] + noise[:RATE]
    v = stoi(short, short_noisy) - _stoi_loop(short, short_noisy)
    check("STOI minus a per-segment loop", v, abs(v) < 1e-9)
    v = si_sdr(x, x)
    check("SI-SDR(x, x) dB", v, v > 100)
    v = si_sdr(x, 0.5 * x + noise * 0.1)
    want = 10 * np.log10(np.sum((0.5 * (x - x.mean())) ** 2)
                         / np.sum((0.1 * noise) ** 2))
    check("SI-SDR(x, 0.5 x + e) minus SNR, dB", v - want, abs(v - want) < 0.1)
    late = np.concatenate([np.zeros(240), x])[:x.size]
    lag = best_lag(x, late)
    check("best_lag of a copy 240 samples late", lag, lag == 240)
    check("SI-SDR after align, dB", si_sdr(x, align(late, lag, x.size)),
          si_sdr(x, align(late, lag, x.size)) > 40)
    speech, free = activity(x)
    nr = noise_reduction(x + noise, 0.1 * (x + noise), free)
    check("noise reduction of a 0.1 gain, dB", nr, abs(nr - 20) < 1e-6)
    lsd = log_spectral_distance(x, x, speech)
    check("LSD(x, x) dB", lsd, lsd < 1e-6)
    zero = np.zeros(x.size)
    v = speech_energy_lost(x, zero, x)
    check("speech lost, untouched speech, dB", v, abs(v) < 1e-6)
    v = speech_energy_lost(x, zero, 0.5 * x)
    check("speech lost, a 0.5 gain, dB", v, abs(v - 20 * np.log10(2)) < 1e-6)
    quiet = noise * 10 ** (-10 / 20)
    v = speech_energy_lost(x, quiet, x + quiet)
    check("speech lost, noisy input at 10 dB SNR, dB", v, abs(v) < 0.3)
    loud = noise * 10 ** (-3 / 20)
    v = speech_energy_lost(x, loud, x + loud)
    check("speech lost, noisy input at 3 dB SNR, dB", v, abs(v) < 0.3)
    # Speech above 500 Hz removed: those bins count LOST_CAP_DB each,
    # weighted by their share of the speech energy.
    mask, pc = speech_dominated(x, quiet)
    high = np.fft.rfftfreq(LOST_FFT, 1.0 / RATE)[None, :] > 500.0
    want = LOST_CAP_DB * np.sum(pc[mask & high]) / np.sum(pc[mask])
    v = speech_energy_lost(x, quiet, _lowpass(x, 500.0))
    print("  (share of the speech energy above 500 Hz: %.1f %%)"
          % (100 * want / LOST_CAP_DB))
    check("speech lost above 500 Hz, minus its share, dB", v - want,
          abs(v - want) < 0.1 * want)
    parts = speech_energy_lost_parts(x, quiet, _lowpass(x, 500.0),
                                     [0, 500, 2000, RATE / 2])
    v = sum(part for _, part in parts) - speech_energy_lost(
        x, quiet, _lowpass(x, 500.0))
    check("speech lost, parts by frequency minus total", v,
          abs(v) < 1e-9 and abs(sum(sh for sh, _ in parts) - 1) < 1e-9)
    v = parts[0][1]
    check("  its part below 500 Hz (kept), dB", v, abs(v) < 0.1)
    v = parts[1][1] + parts[2][1] - want
    check("  parts above 500 Hz minus cap x share", v,
          abs(v) < 0.1 * want)
    # Half the speech, nothing else: every counted bin loses 6.02 dB, so
    # all of it falls in the 3-10 dB range.
    depths = speech_energy_lost_depths(x, quiet, 0.5 * x, [3.0, 10.0])
    v = depths[1][1]
    check("speech lost by depth, gain 1/2: part 3-10 dB", v,
          abs(v - 6.02) < 0.01 and abs(depths[1][0] - 1) < 1e-9)
    depths = speech_energy_lost_depths(x, quiet, _lowpass(x, 500.0),
                                       [1.0, 10.0, 30.0])
    v = sum(part for _, part in depths) - speech_energy_lost(
        x, quiet, _lowpass(x, 500.0))
    check("speech lost, parts by depth minus total", v,
          abs(v) < 1e-9 and abs(sum(sh for sh, _ in depths) - 1) < 1e-9)
    # The removed bins are cut to the cap, but for the low-pass's
    # transition band, which the frequency check above allows for too.
    v = depths[2][1] + depths[3][1] - want
    check("  its parts cut 10 dB or more minus cap x share", v,
          abs(v) < 0.1 * want)
    impulse = np.zeros(RATE)
    impulse[RATE // 2] = 1.0
    gain_db = 20 * np.log10(np.abs(np.fft.rfft(band_limit(impulse, 8000.0)))
                            + 1e-12)
    hz = np.fft.rfftfreq(RATE, 1.0 / RATE)
    v = gain_db[hz >= 8000].max()
    check("band_limit 8 kHz: most from 8 kHz on, dB", v, v < -70)
    v = np.abs(gain_db[hz <= 7000]).max()
    check("band_limit 8 kHz: furthest from 0 dB up to 7 kHz", v, v < 0.1)
    ok = all(checks)
    print("metrics self-check: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-check"]:
        sys.exit(self_check())
    print(__doc__)
    sys.exit(2)
