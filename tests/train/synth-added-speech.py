#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""synth.py --added-speech and the telephone voice it adds.

    synth-added-speech.py

split.txt's added-real-speech are speech sources of sources.py under a
licence the model can follow, in no held-out, selection or phone list;
without --added-speech their files belong to no subset and every pool is
what it was before they were found (the same recordings in the same
order), so the sets made before them come out the same; with it they are
split between training and validation as any other source. synth.py
refuses --added-speech with --selection or --phone. sources.py decodes a
raw GSM 06.10 file (through sox) to 8 kHz samples, says None for one that
does not decode, and gates a source at its own floor_max_db and
bandwidth_hz. Skipped (77) without numpy and scipy; the GSM checks without
sox.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from checks import Checks, need

np, sources, synth = need("numpy", "sources", "synth")

RATE = synth.RATE
check = Checks()
LICENCES = ("GPL-2", "GPL-2+", "CC0-1.0", "BSD-style")


def row(source, lang, name, seconds=0.5):
    """A kept speech file of the catalogue: a tone, its own per file."""
    t = np.arange(int(RATE * seconds)) / RATE
    hz = 200 + 10 * int(name[1:])
    audio = (0.1 * np.sin(2 * np.pi * hz * t)).astype(np.float32)
    return {"source": source, "lang": lang, "kind": "speech",
            "file": "%s/%s/%s.ogg" % (source, lang, name),
            "length": audio.size, "bandwidth_hz": 8000.0, "audio": audio}


def fake_split(added_speech):
    return {"real_select": ["chosen"], "real_test": ["tested"],
            "real_phone": ["called"],
            "real_added": [] if added_speech else ["late"]}


def fake_groups(with_late=True):
    groups = {}
    names = [("chosen", "aa"), ("tested", "xx"), ("trained", "zz"),
             ("called", "pp")]
    if with_late:
        names.append(("late", "fr"))
    for source, lang in names:
        for i in range(40):
            groups.setdefault(source, []).append(
                row(source, lang, "f%02d" % i))
    return groups


def check_shipped_split():
    lines = synth.parse_split()
    added = lines.get("added-real-speech", [])
    check(bool(added), "split.txt names added recorded speech (%s)" % added)
    for name in added:
        src = sources.SOURCES.get(name, {})
        check(src.get("kind") == "speech" and src.get("licence") in LICENCES,
              "%s: a speech source of sources.py, %s"
              % (name, src.get("licence")))
    late = synth.read_split(added_speech=True)
    plain = synth.read_split()
    check(plain["real_added"] == added and late["real_added"] == [],
          "read_split leaves the added speech out unless asked (%s, %s)"
          % (plain["real_added"], late["real_added"]))
    others = plain["real_select"] + plain["real_test"] + plain["real_phone"]
    check(not set(added) & set(others),
          "added speech in no held-out, selection or phone list")


def same_pool(a, b):
    return sorted(a) == sorted(b) and all(
        len(a[v]) == len(b[v]) and all(
            np.array_equal(x, y) and bx == by
            for (x, bx), (y, by) in zip(a[v], b[v])) for v in a)


def check_subsets():
    groups = fake_groups()
    for added in (False, True):
        split = fake_split(added)
        subsets = {synth.real_subset(r, split) for r in groups["late"]}
        want = {"train", "val"} if added else {"added"}
        check(subsets == want, "added source's files with --added-speech "
              "%s: %s" % (added, sorted(subsets)))
        for name in ("chosen", "tested", "trained", "called"):
            before = {synth.real_subset(r, fake_split(False))
                      for r in groups[name]}
            now = {synth.real_subset(r, split) for r in groups[name]}
            check(before == now, "%s keeps its subsets (%s)"
                  % (name, sorted(now)))
    # Without the flag every pool is the one made before the source was
    # catalogued; with it the training pool gains its voice.
    for subset in ("train", "val", "test"):
        old = synth.build_real_pool(fake_groups(False), fake_split(False),
                                    subset, 5, 4, 1e9)
        new = synth.build_real_pool(groups, fake_split(False), subset, 5, 4,
                                    1e9)
        check(same_pool(old, new), "%s pool unchanged without the flag "
              "(%s)" % (subset, sorted(new)))
    pool = synth.build_real_pool(groups, fake_split(True), "train", 5, 4, 1e9)
    check("real:late:fr" in pool, "with the flag the training pool holds "
          "the added voice (%s)" % sorted(pool))


def check_refused():
    for extra in (["--selection"], ["--phone"]):
        out = subprocess.run(
            [sys.executable, os.path.join(os.path.dirname(synth.__file__),
                                          "synth.py"), "/nonexistent",
             "--real", "/nonexistent", "--added-speech"] + extra,
            capture_output=True, text=True)
        check(out.returncode == 2 and "--added-speech" in out.stderr,
              "synth.py refuses --added-speech with %s (%d: %s)"
              % (extra[0], out.returncode, out.stderr.strip()[-80:]))


def check_gates():
    """A file whose pauses lie about 28 dB under its speech: dropped at
    the default floor gate, kept at -24 dB."""
    rng = np.random.default_rng(1)
    t = np.arange(2 * RATE) / RATE
    speech = 0.1 * np.sin(2 * np.pi * 220 * t) * (np.sin(np.pi * t) > 0.3)
    floor = 0.1 / np.sqrt(2) * 10 ** (-31 / 20) * rng.standard_normal(t.size)
    x = speech + floor
    _, stats, reason = sources.measure_speech(x)
    check(reason == "floor", "a floor near -28 dB fails the default gate (%s, "
          "%.1f dB)" % (reason or "kept", stats.get("floor_db", 0)))
    _, _, reason = sources.measure_speech(x, -24.0)
    check(reason == "", "and passes a -24 dB gate (%s)" % (reason or "kept"))
    src = sources.SOURCES["armelle"]
    check(src.get("floor_max_db", 0) <= -20 and
          3400 <= src.get("bandwidth_hz", 0) <= 4000,
          "the telephone voice's gate and bandwidth (%s, %s)"
          % (src.get("floor_max_db"), src.get("bandwidth_hz")))


def check_gsm(tmp):
    if shutil.which("sox") is None:
        print("skipped: the GSM checks (no sox)")
        return
    wav, gsm = os.path.join(tmp, "a.wav"), os.path.join(tmp, "a.gsm")
    subprocess.run(["sox", "-n", "-r", "8000", "-c", "1", "-b", "16", wav,
                    "synth", "1.5", "sine", "440", "vol", "0.3"], check=True)
    subprocess.run(["sox", wav, "-t", "gsm", gsm], check=True)
    audio = sources.read_audio(gsm)
    ok = audio is not None
    check(ok and audio[1] == 8000 and abs(audio[0].shape[0] - 12000) <= 160,
          "a raw GSM file decodes to 1.5 s at 8 kHz (%s)"
          % (str((audio[0].shape, audio[1])) if ok else "None"))
    if ok:
        peak = float(np.abs(audio[0]).max())
        check(0.15 < peak < 0.45, "its level survives the codec (peak %.2f)"
              % peak)
    x, band = sources.decode(gsm)
    check(x is not None and abs(x.size - 72000) <= 960,
          "decode() gives it at 48 kHz (%s samples)"
          % (None if x is None else x.size))
    bad = os.path.join(tmp, "bad.gsm")
    with open(bad, "wb") as f:
        f.write(b"not gsm")
    check(sources.read_audio(bad) is None or
          sources.read_audio(bad)[0].size == 0,
          "a file that does not decode gives nothing")
    check(sources.read_audio(os.path.join(tmp, "missing.gsm")) is None,
          "a missing file gives None")


def main():
    check_shipped_split()
    check_subsets()
    check_refused()
    check_gates()
    with tempfile.TemporaryDirectory() as tmp:
        check_gsm(tmp)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
