#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""synth.py --crowds and --babble-share: babble as crowds, and more of it.

    synth-crowds.py

Without either option a babble mixture comes out as the sets made before
them (pinned samples: the random draws are unchanged). With crowds, the
babble is unit RMS, finite, of the length asked, and its number of
talkers varies from draw to draw within 2..30; with white noise for every
talker, some draws are muffled (little left above 8 kHz) and the others
are not; with one click for every talker, about half the talkers are
put in a room of their own, and exactly the crowds with one have energy
50 ms after the clicks. With a babble share of 1 every mixture's main
noise is babble, with 0.5 about half of them over kinds that hold no
babble. synth.py refuses --crowds with --selection, a share with --phone,
and a share outside 0..1. Skipped (77) without numpy and scipy.
"""

import sys

from checks import Checks, need

np, synth, noises = need("numpy", "synth", "noises")

RATE = synth.RATE
SECONDS = 2
check = Checks()
# make_mixture(default_rng(1), tone_pool(), 2 s, ["babble", "white"], 5 dB)
# noise samples, as synth.py made them before --crowds existed.
BEFORE = (0.009449852630496025, 0.0038098241202533245, -0.008741873316466808)
AT = (100, 50001, 77777)


def tone_pool():
    """Two recorded voices, each one 0.5 s tone."""
    t = np.arange(RATE // 2) / RATE
    return {"real:tone:%s" % name: [
        (np.sin(2 * np.pi * f * t).astype(np.float32), 20000.0)]
        for name, f in (("xx", 300), ("yy", 500))}


def check_as_before():
    _, noise, info = synth.make_mixture(np.random.default_rng(1), tone_pool(),
                                        SECONDS * RATE, ["babble", "white"],
                                        5.0)
    check(info["noise"] == "babble" and
          np.allclose([noise[i] for i in AT], BEFORE, rtol=1e-9, atol=0),
          "without --crowds or a share: the babble mixture made before")


def crowd_draws(talker, seeds=40, before_each=None):
    """crowd() over seeds, calling before_each() (if given) before each
    draw; returns the draws and the talkers of each."""
    draws, counts = [], []
    for seed in range(seeds):
        if before_each:
            before_each()
        calls = []

        def speech(rng, n):
            calls.append(n)
            return talker(rng, n)
        draws.append(noises.make_noise("babble", np.random.default_rng(seed),
                                       SECONDS * RATE, speech, crowds=True))
        counts.append(len(calls))
    return draws, counts


def high_share(x):
    """The share of x's energy above 8 kHz."""
    power = np.abs(np.fft.rfft(x)) ** 2
    return power[np.fft.rfftfreq(x.size, 1.0 / RATE) > 8000].sum() / \
        power.sum()


def check_crowds():
    draws, counts = crowd_draws(lambda rng, n: rng.standard_normal(n))
    bad = [x for x in draws if x.size != SECONDS * RATE or
           not np.isfinite(x).all() or abs(np.sqrt(np.mean(x ** 2)) - 1) >
           1e-6]
    check(not bad, "%d crowd draws unit RMS, finite, %d s"
          % (len(draws), SECONDS))
    check(min(counts) >= 2 and max(counts) <= 30 and min(counts) <= 4 and
          max(counts) >= 12, "talkers from 2 to 30, varying (%d..%d)"
          % (min(counts), max(counts)))
    muffled = sum(high_share(x) < 0.05 for x in draws)
    check(0 < muffled < len(draws),
          "some crowds muffled, the others not (%d of %d with under 5 %% "
          "of their energy above 8 kHz)" % (muffled, len(draws)))


def check_reverberant_talkers():
    """Counts the rooms crowd() draws (noises.reverb_plan) against its
    talkers, each talker a click: about half the talkers in a room, and a
    tail 50 ms after the clicks exactly in the crowds with one."""
    plan = noises.reverb_plan
    rooms = []  # per draw

    def counted_plan(rng):
        rooms[-1] += 1
        return plan(rng)

    def click(rng, n):
        x = np.zeros(n)
        x[1000] = 1.0
        return x
    noises.reverb_plan = counted_plan
    try:
        draws, counts = crowd_draws(click, seeds=30,
                                    before_each=lambda: rooms.append(0))
    finally:
        noises.reverb_plan = plan
    wet, talkers = sum(rooms), sum(counts)
    agree = sum((float(np.abs(x[1000 + RATE // 20:]).max()) > 1e-3) ==
                (r > 0) for x, r in zip(draws, rooms))
    check(0.35 < wet / float(talkers) < 0.65,
          "about half the talkers in a room of their own (%d of %d)"
          % (wet, talkers))
    check(agree == 30, "a tail after the clicks in the crowds with a "
          "reverberant talker, none in the others (%d of 30 agree)" % agree)


def babble_share(share, kinds, draws=40):
    """The share of draws whose main noise is babble."""
    main = [synth.make_mixture(np.random.default_rng(seed), tone_pool(),
                               SECONDS * RATE, kinds, 5.0,
                               secondary=False,
                               babble_share=share)[2]["noise"]
            for seed in range(draws)]
    return sum(name == "babble" for name in main) / float(draws)


def check_babble_share():
    kinds = ["white", "pink", "brown"]
    everything = babble_share(1.0, kinds)
    half = babble_share(0.5, kinds)
    none = babble_share(0.0, kinds)
    check(everything == 1.0, "share 1: every mixture babble (%.2f)"
          % everything)
    check(0.3 < half < 0.7, "share 0.5: about half babble (%.2f)" % half)
    check(none == 0.0, "share 0: babble only when a kind (%.2f)" % none)


def check_refused():
    check.synth_refuses(["--selection", "--real", "/nonexistent",
                         "--crowds"], "--crowds")
    check.synth_refuses(["--phone", "--real", "/nonexistent",
                         "--babble-share", "0.1"], "--babble-share")
    check.synth_refuses(["--babble-share", "1.5"], "--babble-share")


def main():
    check_as_before()
    check_crowds()
    check_reverberant_talkers()
    check_babble_share()
    check_refused()
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
