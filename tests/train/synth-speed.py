#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""synth.py --real-speed: recorded utterances at other speeds.

    synth-speed.py

A 1 kHz tone stands for a recorded utterance. change_speed() at 1.1 and
0.9 must move it to 1.1 and 0.9 kHz, make it 1/1.1 and 1/0.9 as long, and
move the utterance's bandwidth with it (never above the Nyquist
frequency); a speech track drawn with a speed range of 1.2..1.2 must hold
the tone at 1.2 kHz and report the moved bandwidth; a speed range outside
0.5..2 or upside down is refused. Skipped (77) without numpy and scipy.
"""

import sys

from checks import Checks, need

np, synth = need("numpy", "synth")

RATE = synth.RATE
check = Checks()


def tone(freq, seconds=1.0):
    t = np.arange(int(RATE * seconds)) / RATE
    return np.sin(2 * np.pi * freq * t)


def peak_hz(x):
    """The frequency of the strongest bin of x (Hann window)."""
    spectrum = np.abs(np.fft.rfft(x * np.hanning(x.size)))
    return np.argmax(spectrum) * RATE / x.size


def check_change_speed():
    x = tone(1000.0)
    for speed in (1.1, 0.9):
        y, band = synth.change_speed(x, 10000.0, speed)
        check(abs(y.size - x.size / speed) <= 1,
              "speed %.1f: %d samples, expected %.0f" % (
                  speed, y.size, x.size / speed))
        f = peak_hz(y)
        check(abs(f - 1000.0 * speed) < 5,
              "speed %.1f: the tone at %.0f Hz" % (speed, f))
        check(abs(band - 10000.0 * speed) < 1e-6,
              "speed %.1f: bandwidth %.0f Hz" % (speed, band))
    _, band = synth.change_speed(x, 23000.0, 1.1)
    check(band == synth.FULL_BAND,
          "a full-band utterance stays at the Nyquist frequency (%.0f)"
          % band)


def check_speech_track():
    pool = {"real:tone:xx": [(tone(1000.0, 0.5).astype(np.float32),
                              8000.0)]}
    rng = np.random.default_rng(3)
    track, voices, band = synth.speech_track(
        rng, pool, RATE * 2, gaps=False, speed=(1.2, 1.2))
    f = peak_hz(track)
    check(abs(f - 1200.0) < 5, "speech track at speed 1.2: tone at %.0f Hz"
          % f)
    check(abs(band - 9600.0) < 1e-6,
          "speech track at speed 1.2: bandwidth %.0f Hz" % band)
    check(voices == ["real:tone:xx"], "speech track voices %s" % voices)


def check_refused():
    for value in ("0.4,1.0", "1.1,0.9", "fast"):
        check.synth_refuses(["--real-speed", value], "--real-speed")


def main():
    check_change_speed()
    check_speech_track()
    check_refused()
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
