#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Recorded speech and noise from Debian data packages.

    sources.py DIR [--jobs J]

Fetches the packages below with `apt-get download` into DIR/debs, unpacks
them with `dpkg -x` into DIR/pkgs (never installed, never committed),
decodes every file a source names, resamples it to 48 kHz mono float32 and
measures it. Speech files are gated before they may serve as clean
targets; what is kept goes into DIR/cache/SOURCE.f32 (one raw float32 file
per source, the kept files one after another) and the catalogue
DIR/catalogue.tsv lists every file with its measures, whether it was kept
and why not:

  source kind lang licence file offset length seconds level_db floor_db
  bandwidth_hz clipped kept reason

Speech gates (each file on its own), then a downward expander that pushes
what is left of its floor further down where nobody speaks:
  - its noise floor (the energy of its quietest 30 ms, relative to its
    active speech level) at most FLOOR_MAX_DB (a source may name its own
    floor_max_db): a target with a -35 dB floor teaches the network to
    keep that noise (what is left is expanded down, below);
  - no more than CLIP_MAX of its samples at or above CLIP_LEVEL;
  - at least MIN_SECONDS long after trimming leading and trailing frames
    more than TRIM_DB below its active level.
Its bandwidth (at its own rate, before resampling: the highest 250 Hz band
whose long-term level is more than BANDWIDTH_ABOVE_MIN_DB above the
quietest band, unless the source gives its own bandwidth_hz) is kept: the
feature tool masks the band targets above it, so band-limited recordings
teach only the bands they cover.

Noise files are kept whole (no gate), only resampled and normalised.

Which sources are held out (never used in training or validation) is in
split.txt.
"""

import argparse
import glob
import io
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import soundfile
from scipy.signal import resample_poly

RATE = 48000
FRAME = 480
FLOOR_MAX_DB = -34.0
EXPAND_BELOW_DB = -40.0
EXPAND_ABOVE_FLOOR_DB = 6.0
EXPAND_MAX_DB = 30.0
CLIP_LEVEL = 0.99
CLIP_MAX = 1e-4
MIN_SECONDS = 0.4
TRIM_DB = -50.0
BANDWIDTH_ABOVE_MIN_DB = 12.0

# A source: the Debian package, the files (globs under the unpacked tree,
# less those whose path holds one of the strings of "exclude"),
# kind (speech or noise), how to read the language from a path, licence.
# clang-format does not apply; kept as a table.
SOURCES = {
    # Speech: people reading descriptions of pictures, many languages.
    "tuxpaint": {
        "package": "tuxpaint-stamps-default", "kind": "speech",
        "globs": ["usr/share/tuxpaint/stamps/**/*_desc_*.ogg"],
        "lang": lambda p: p.rsplit("_desc_", 1)[1].split(".")[0],
        "licence": "GPL-2"},
    # Acted dialogue, Czech and Dutch (the English package holds grunts).
    "fillets-cs": {
        "package": "fillets-ng-data-cs", "kind": "speech",
        "globs": ["usr/share/games/fillets-ng/sound/*/cs/*.ogg"],
        "lang": lambda p: "cs", "licence": "GPL-2+"},
    "fillets-nl": {
        "package": "fillets-ng-data-nl", "kind": "speech",
        "globs": ["usr/share/games/fillets-ng/sound/*/nl/*.ogg"],
        "lang": lambda p: "nl", "licence": "GPL-2+"},
    # Words (a toy's parts: eye, hat, nose...) spoken in about thirty
    # languages, English among them. split.txt keeps it for checkpoint
    # selection only: voices no training round hears.
    "ktuberling": {
        "package": "ktuberling-data", "kind": "speech",
        "globs": ["usr/share/ktuberling/sounds/*/*.ogg"],
        "lang": lambda p: p.split("/sounds/", 1)[1].split("/")[0],
        "licence": "GPL-2+"},
    # Letters and syllables spoken in about twenty languages.
    "klettres": {
        "package": "klettres-data", "kind": "speech",
        "globs": ["usr/share/klettres/*/*/*.ogg"],
        "lang": lambda p: p.split("/klettres/", 1)[1].split("/")[0],
        "licence": "GPL-2+"},
    # Noise. Only sources whose licence lets the trained model be
    # distributed under the GPL (so not megaglest-data's CC-BY-SA-3.0
    # ambiences, nor hedgewars-data's GFDL sounds).
    # Workshop, farm and animal sounds of a strategy game.
    "widelands-effects": {
        "package": "widelands-data", "kind": "noise",
        "globs": ["usr/share/games/widelands/data/sound/**/*.ogg"],
        "lang": None, "licence": "GPL-2+"},
    # Instrumental game music.
    "widelands-music": {
        "package": "widelands-data", "kind": "noise",
        "globs": ["usr/share/games/widelands/data/music/*.ogg"],
        "lang": None, "licence": "GPL-2+"},
    # Sound effects of a drawing program (everything but the speech).
    "tuxpaint-effects": {
        "package": "tuxpaint-stamps-default", "kind": "noise",
        "globs": ["usr/share/tuxpaint/stamps/**/*.ogg"],
        "exclude": ("_desc",), "lang": None, "licence": "GPL-2"},
    # Ambiences, vinyl hiss and loops of a live-coding synth (the CC0 ones;
    # ambi_choir is CC-BY-SA-4.0 and a choir besides).
    "sonicpi": {
        "package": "sonic-pi-samples", "kind": "noise",
        "globs": ["usr/share/sonic-pi/samples/ambi_*.flac",
                  "usr/share/sonic-pi/samples/vinyl_*.flac",
                  "usr/share/sonic-pi/samples/misc_*.flac",
                  "usr/share/sonic-pi/samples/loop_*.flac"],
        "exclude": ("ambi_choir",), "lang": None, "licence": "CC0-1.0"},
    # Engines (piston, turbine, propeller), rain, wind, thunder, tyres,
    # water and cockpit mechanics of a flight simulator (not its spoken
    # callouts, which live in folders of their own, nor the checklist
    # voice).
    "flightgear": {
        "package": "flightgear-data-base", "kind": "noise",
        "globs": ["usr/share/games/flightgear/Sounds/*.wav",
                  "usr/share/games/flightgear/Aircraft/c172p/Sounds/*.wav"],
        "exclude": ("checklist",), "lang": None, "licence": "GPL-2+"},
    # A city's sounds: traffic, trains, industry, markets, a sports crowd,
    # a school yard, water, wind mills, substations.
    "lincity": {
        "package": "lincity-ng-data", "kind": "noise",
        "globs": ["usr/share/games/lincity-ng/sounds/*.wav"],
        "lang": None, "licence": "GPL-2+"},
    # For the selection mixtures only (split.txt's selection-noises; never
    # in training or the test, so their licences do not reach the model):
    # a strategy game's robots, motors, machines and impacts, and another
    # one's combat sounds, horn signals and ambiences (birds, a camp fire,
    # night, a ship).
    "colobot-effects": {
        "package": "colobot-common-sounds", "kind": "noise",
        "globs": ["usr/share/games/colobot/sounds/*.wav"],
        "lang": None, "licence": "GPL-3+"},
    "wesnoth-effects": {
        "package": "wesnoth-1.16-data", "kind": "noise",
        "globs": ["usr/share/games/wesnoth/1.16/data/core/sounds/**/*.ogg",
                  "usr/share/games/wesnoth/1.16/data/core/sounds/**/*.wav"],
        "lang": None, "licence": "GPL-2+"},
    # Held out: a skier's slides on snow, ice, mud, leaves and rock.
    "etr-slides": {
        "package": "extremetuxracer-data", "kind": "noise",
        "globs": ["usr/share/games/etr/sounds/*_slide.wav"],
        "lang": None, "licence": "GPL-2+"},
    # Held out: single key presses of a real keyboard, made into typing.
    "keys": {
        "package": "bucklespring-data", "kind": "noise",
        "globs": ["usr/share/buckle/wav/*.wav"],
        "lang": None, "licence": "GPL-2+"},
}

# Telephone prompts recorded by professional speakers at 8 kHz (four
# voices, five languages), CC-BY-SA-3.0: for split.txt's phone test only,
# so they never reach training and their licence not the model. The
# beeps, tones, monkeys and silences among them are left out.
for _lang, _voice in (("en", "en_US_f_Allison"), ("es", "es_MX_f_Allison"),
                      ("fr", "fr_CA_f_June"), ("it", "it_IT_m_Carlo"),
                      ("ru", "ru_RU_f_IvrvoiceRU")):
    SOURCES["asterisk-" + _lang] = {
        "package": "asterisk-core-sounds-%s-wav" % _lang, "kind": "speech",
        "globs": ["usr/share/asterisk/sounds/%s/**/*.wav" % _voice],
        "exclude": ("/silence/", "beep", "2tone", "tt-monkeys"),
        "lang": lambda p, lang=_lang: lang, "licence": "CC-BY-SA-3.0"}

# Telephone prompts read by one French voice (Armelle Desjardins), as a
# call carries them: 8 kHz, coded with GSM 06.10 (raw .gsm files, decoded
# by sox). A BSD-style licence (its notice kept: docs/model-data.md), so
# unlike the prompts above they may teach the model; split.txt adds them
# late (added-real-speech), so only the sets made with synth.py
# --added-speech hear them. A call's recordings come with a call's floor
# (the quietest 30 ms of most of them lie 21-29 dB under the speech, where
# FLOOR_MAX_DB would keep 3 of 327): the floor gate is -24 dB here, and the
# expander still pushes the pauses down. Their bandwidth is given, not
# measured: their spectrum stays within 10-20 dB of its peak up to 3.75 kHz,
# so no band of it is quiet enough for bandwidth_hz() to find the edge
# (it finds 1-2 kHz, which would mask the targets of most of the voice).
SOURCES["armelle"] = {
    "package": "asterisk-prompt-fr-armelle", "kind": "speech",
    "globs": ["usr/share/asterisk/sounds/fr/**/*.gsm"],
    "lang": lambda p: "fr", "licence": "BSD-style", "floor_max_db": -24.0,
    "bandwidth_hz": 3750.0}


def fetch(outdir, packages):
    """apt-get download + dpkg -x each package not yet unpacked."""
    debs = os.path.join(outdir, "debs")
    os.makedirs(debs, exist_ok=True)
    # dpkg -x makes its target folder but not the folders above it.
    os.makedirs(os.path.join(outdir, "pkgs"), exist_ok=True)
    for pkg in sorted(set(packages)):
        tree = os.path.join(outdir, "pkgs", pkg)
        if os.path.isdir(tree):
            continue
        found = glob.glob(os.path.join(debs, pkg + "_*.deb"))
        if not found:
            subprocess.run(["apt-get", "download", pkg], cwd=debs,
                           check=True)
            found = glob.glob(os.path.join(debs, pkg + "_*.deb"))
        subprocess.run(["dpkg", "-x", found[0], tree + ".part"], check=True)
        os.rename(tree + ".part", tree)


def source_files(outdir, name):
    """The files of one source, sorted (so the catalogue is stable)."""
    src = SOURCES[name]
    tree = os.path.join(outdir, "pkgs", src["package"])
    files = set()
    for pattern in src["globs"]:
        files.update(glob.glob(os.path.join(tree, pattern), recursive=True))
    files = {f for f in files
             if not any(e in f for e in src.get("exclude", ()))}
    return sorted(os.path.relpath(f, tree) for f in files)


def read_audio(path):
    """(samples as float64 with a channel axis, rate) of a file libsndfile
    reads, or of a raw GSM 06.10 file (8 kHz mono, no header: libsndfile
    reads GSM only inside a WAV file), which sox decodes; None if it
    cannot be read."""
    try:
        if path.endswith(".gsm"):
            wav = subprocess.run(
                ["sox", "-t", "gsm", "-r", "8000", "-c", "1", path,
                 "-t", "wav", "-e", "signed-integer", "-b", "16", "-"],
                check=True, capture_output=True).stdout
            return soundfile.read(io.BytesIO(wav), dtype="float64",
                                  always_2d=True)
        return soundfile.read(path, dtype="float64", always_2d=True)
    except (RuntimeError, soundfile.LibsndfileError,
            subprocess.CalledProcessError):
        return None


def decode(path):
    """The file as 48 kHz mono float64 and its bandwidth in Hz measured at
    its own rate ((None, 0) if it cannot be read)."""
    audio = read_audio(path)
    if audio is None:
        return None, 0.0
    x, rate = audio
    x = x.mean(axis=1)
    band = bandwidth_hz(x, rate)
    if rate != RATE:
        g = np.gcd(RATE, rate)
        x = resample_poly(x, RATE // g, rate // g)
    return x, band


def frame_energies_db(x):
    n = x.size // FRAME * FRAME
    e = np.mean(x[:n].reshape(-1, FRAME) ** 2, axis=1)
    return 10 * np.log10(e + 1e-20)


def bandwidth_hz(x, rate):
    """Upper end of the highest 250 Hz band of x's long-term spectrum that
    stands more than BANDWIDTH_ABOVE_MIN_DB above its quietest band (rate /
    2 if x is too short to tell)."""
    n = int(2 ** np.ceil(np.log2(rate / 250 * 8)))
    if x.size < n:
        return rate / 2
    frames = x[: x.size // n * n].reshape(-1, n) * np.hanning(n)
    psd = np.mean(np.abs(np.fft.rfft(frames, axis=1)) ** 2, axis=0)
    width = max(int(round(250 * n / rate)), 1)
    bands = psd[: psd.size // width * width].reshape(-1, width).mean(axis=1)
    db = 10 * np.log10(bands + 1e-30)
    above = np.nonzero(db > db.min() + BANDWIDTH_ABOVE_MIN_DB)[0]
    if above.size == 0:
        return rate / 2
    return float(min((above[-1] + 1) * 250, rate / 2))


def measure_speech(x, floor_max_db=FLOOR_MAX_DB):
    """Trim, measure and gate one speech file: (trimmed, stats, reason)."""
    db = frame_energies_db(x)
    if db.size == 0 or db.max() < -100:
        return None, {}, "silent"
    active = db[db >= db.max() - 40]
    level = 10 * np.log10(np.mean(10 ** (active / 10)))
    keep = np.nonzero(db >= level + TRIM_DB)[0]
    x = x[keep[0] * FRAME:(keep[-1] + 1) * FRAME]
    # The quietest 30 ms anywhere in the file (pauses, stop closures).
    smooth = np.convolve(10 ** (db / 10), np.ones(3) / 3, mode="valid")
    floor = float(10 * np.log10(smooth.min() + 1e-20) - level) \
        if smooth.size else 0.0
    stats = {"level_db": level, "floor_db": floor,
             "clipped": float(np.mean(np.abs(x) >= CLIP_LEVEL))}
    if floor > floor_max_db:
        return None, stats, "floor"
    if stats["clipped"] > CLIP_MAX:
        return None, stats, "clipped"
    if x.size < MIN_SECONDS * RATE:
        return None, stats, "short"
    return expand_floor(x, level, floor), stats, ""


def expand_floor(x, level, floor):
    """Push the file's own noise down where nobody speaks: frames below a
    threshold (EXPAND_BELOW_DB under the active level, or
    EXPAND_ABOVE_FLOOR_DB above the file's floor if that is higher) are
    attenuated by twice their distance below it (a 1:3 downward expander),
    at most EXPAND_MAX_DB, with the gain smoothed over 30 ms. Under speech
    the floor is masked and left."""
    db = frame_energies_db(x)
    rel = db - level
    threshold = max(EXPAND_BELOW_DB, floor + EXPAND_ABOVE_FLOOR_DB)
    g_db = np.clip(2.0 * (rel - threshold), -EXPAND_MAX_DB, 0.0)
    g_db = np.minimum(g_db, np.convolve(np.pad(g_db, 1, mode="edge"),
                                        np.ones(3) / 3, mode="valid"))
    gain = np.repeat(10 ** (g_db / 20), FRAME)
    gain = np.convolve(np.pad(gain, FRAME // 2, mode="edge"),
                       np.ones(FRAME) / FRAME, mode="valid")[:gain.size]
    out = x.copy()
    out[:gain.size] *= gain
    return out


def _measure_job(job):
    name, tree, rel = job
    src = SOURCES[name]
    x, band = decode(os.path.join(tree, rel))
    if x is None or x.size < FRAME:
        return rel, None, {}, "unreadable"
    if src["kind"] == "speech":
        y, stats, reason = measure_speech(
            x, src.get("floor_max_db", FLOOR_MAX_DB))
        stats["bandwidth_hz"] = src.get("bandwidth_hz", band)
    else:
        db = frame_energies_db(x)
        y, reason = (x, "") if db.max() > -100 else (None, "silent")
        stats = {"level_db": float(db.max()) if db.size else -200.0,
                 "floor_db": 0.0, "bandwidth_hz": band,
                 "clipped": 0.0}
        if y is not None:
            y = y / max(np.abs(y).max(), 1e-9) * 0.5
    return rel, None if y is None else y.astype(np.float32), stats, reason


COLUMNS = ["source", "kind", "lang", "licence", "file", "offset", "length",
           "seconds", "level_db", "floor_db", "bandwidth_hz", "clipped",
           "kept", "reason"]


def build_source(outdir, name, jobs):
    """Decode, gate and cache one source; returns its catalogue rows (kept
    in cache/NAME.tsv too, so an interrupted run resumes)."""
    done = os.path.join(outdir, "cache", name + ".tsv")
    if os.path.exists(done):
        with open(done) as f:
            header = f.readline().rstrip("\n").split("\t")
            return [dict(zip(header, line.rstrip("\n").split("\t")))
                    for line in f]
    src = SOURCES[name]
    tree = os.path.join(outdir, "pkgs", src["package"])
    files = source_files(outdir, name)
    cache = os.path.join(outdir, "cache", name + ".f32")
    rows, offset = [], 0
    with open(cache + ".part", "wb") as out, \
            ProcessPoolExecutor(max_workers=jobs) as ex:
        for rel, y, stats, reason in ex.map(
                _measure_job, [(name, tree, f) for f in files], chunksize=8):
            row = {"source": name, "kind": src["kind"],
                   "lang": src["lang"](rel) if src["lang"] else "-",
                   "licence": src["licence"], "file": rel,
                   "offset": offset, "length": 0,
                   "seconds": 0.0, "kept": "no", "reason": reason}
            row.update({k: stats.get(k, 0.0) for k in
                        ("level_db", "floor_db", "bandwidth_hz", "clipped")})
            if y is not None:
                out.write(y.tobytes())
                row.update(length=y.size, seconds=y.size / RATE, kept="yes")
                offset += y.size
            rows.append(row)
    os.rename(cache + ".part", cache)
    write_catalogue(done + ".part", rows)
    os.rename(done + ".part", done)
    kept = [r for r in rows if r["kept"] == "yes"]
    print("  %-18s %5d files, kept %5d (%.1f min)%s" % (
        name, len(rows), len(kept), sum(r["seconds"] for r in kept) / 60,
        "".join(" %s %d" % (k, sum(1 for r in rows if r["reason"] == k))
                for k in ("floor", "clipped", "short", "unreadable",
                          "silent"))), flush=True)
    return rows


def write_catalogue(path, rows):
    with open(path, "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(
                "%.2f" % r[c] if isinstance(r[c], float) else str(r[c])
                for c in COLUMNS) + "\n")


def read_catalogue(outdir):
    """The kept files as dicts (typed), grouped by source; each item gets
    a memory-mapped view `audio` of its cached samples."""
    groups = {}
    maps = {}
    with open(os.path.join(outdir, "catalogue.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            if row["kept"] != "yes":
                continue
            name = row["source"]
            if name not in maps:
                maps[name] = np.memmap(os.path.join(outdir, "cache",
                                                    name + ".f32"),
                                       dtype=np.float32, mode="r")
            off, n = int(row["offset"]), int(row["length"])
            row.update(offset=off, length=n,
                       bandwidth_hz=float(row["bandwidth_hz"]),
                       floor_db=float(row["floor_db"]),
                       audio=maps[name][off:off + n])
            groups.setdefault(name, []).append(row)
    return groups


def catalogued_sources(outdir):
    """The sources DIR/catalogue.tsv lists (empty if there is none)."""
    path = os.path.join(outdir, "catalogue.tsv")
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        f.readline()
        return {line.split("\t", 1)[0] for line in f}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(os.path.join(args.dir, "cache"), exist_ok=True)
    listed = catalogued_sources(args.dir)
    if listed >= set(SOURCES):
        print("sources: %s/catalogue.tsv lists every source, kept"
              % args.dir)
        return 0
    # A source added since: the ones already built come back from their
    # caches, so only the new ones are fetched and decoded.
    fetch(args.dir, [s["package"] for s in SOURCES.values()])
    rows = []
    for name in SOURCES:
        rows += build_source(args.dir, name, args.jobs)
    write_catalogue(os.path.join(args.dir, "catalogue.tsv.part"), rows)
    os.rename(os.path.join(args.dir, "catalogue.tsv.part"),
              os.path.join(args.dir, "catalogue.tsv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
