/* rnndenoise — the plugins' quality controls (speech protection,
 * stationary suppression, harmonic lift, speech hold, level
 * normalization) as a host sees them. Loads the LADSPA and LV2 modules
 * with dlopen, as a host does, and checks:
 *  - the LADSPA descriptors: the ports of the earlier layouts keep their
 *    numbers, names and kinds; the five controls follow with their names,
 *    hints and ranges, and the default a host computes from the hints is
 *    the library's (dsp/dsp_processor.h), the speech protection's the one
 *    both built-in models name (read from their files, which the library
 *    embeds);
 *  - through each plugin (LADSPA and LV2, mono and stereo, at 48 and at
 *    16 kHz), against librnndenoise fed the same 100 ms buffers, bit for
 *    bit: the new ports at their defaults, or unconnected, give a new
 *    stream's output; a value other than the default gives the library's
 *    output with that setting, which differs from the defaults' in every
 *    buffer from FIRST_DIFFERENT on, also when the port changes
 *    mid-stream (the buffers before the change keep the defaults');
 *    infinities and out-of-range values give the library's output at the
 *    clamped value, NaN that of the value before (off for the switch),
 *    and the output stays finite.
 * The LV2 ports' indices, ranges and defaults are rnndenoise.ttl's, which
 * hosts-test.py checks through lv2info; the defaults used here are the
 * library's, the same.
 * Usage: test_host_ports LADSPA_MODULE LV2_MODULE MODEL_48K MODEL_16K
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ladspa.h>
#include <lv2/core/lv2.h>

#include "lib/rnndenoise.h"
#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"

#define N_BUF 8                     /* buffers per run */
#define MAX_BUF 4800                /* frames per buffer: 100 ms */
#define MAX_TOTAL (N_BUF * MAX_BUF) /* frames per run */
#define N_OLD_CONTROLS 6            /* control ports before this layout */
/* The first buffer that must differ from the defaults' output: the speech
 * hold acts only in frames the network is sure hold speech, which at
 * 16 kHz it is from about 0.3 s into the test signal. */
#define FIRST_DIFFERENT 3
#define N_CONTROLS (N_OLD_CONTROLS + N_NEW)

/* The new input controls, in port order after the older controls. */
typedef struct
{
  const char *ladspa_name;
  LADSPA_PortRangeHintDescriptor ladspa_hints;
  float ladspa_lo, ladspa_hi;
  float lo, hi; /* the library's range */
  float other;  /* a value other than the default, in both ports' ranges */
  int (*set) (RnnDenoise *st, float value);
  int is_switch;
} NewControl;

static int
set_level_normalization (RnnDenoise *st, float on)
{
  return rnndenoise_set_level_normalization (st, on >= 0.5f);
}

#define BOUNDED (LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE)

/* clang-format off */
static const NewControl new_controls[] = {
  { "Speech protection (0..2)",
    BOUNDED | LADSPA_HINT_DEFAULT_MIDDLE, 0.0f, 2.0f,
    0.0f, DSP_MAX_SPEECH_PROTECTION, 0.0f,
    rnndenoise_set_speech_protection, 0 },
  { "Stationary suppression (0..4)",
    BOUNDED | LADSPA_HINT_DEFAULT_1, 0.0f, 4.0f,
    0.0f, DSP_MAX_STATIONARY_SUPPRESSION, 3.0f,
    rnndenoise_set_stationary_suppression, 0 },
  { "Harmonic lift (0..2)",
    BOUNDED | LADSPA_HINT_DEFAULT_LOW, 0.0f, 2.0f,
    0.0f, DSP_MAX_HARMONIC_LIFT, 2.0f,
    rnndenoise_set_harmonic_lift, 0 },
  { "Speech hold (0.2..1)",
    BOUNDED | LADSPA_HINT_DEFAULT_HIGH, 0.2f, 1.0f,
    0.0f, 1.0f, 0.2f,
    rnndenoise_set_speech_hold, 0 },
  { "Level normalization (0 = off, 1 = on)",
    BOUNDED | LADSPA_HINT_INTEGER | LADSPA_HINT_DEFAULT_1, 0.0f, 1.0f,
    0.0f, 1.0f, 0.0f,
    set_level_normalization, 1 },
};
/* clang-format on */

#define N_NEW (sizeof new_controls / sizeof new_controls[0])

/* The library's defaults of the new controls; the speech protection's is
 * filled in from the built-in models. */
static float defaults[N_NEW] = { NAN, DSP_DEFAULT_STATIONARY_SUPPRESSION,
  DSP_DEFAULT_HARMONIC_LIFT, DSP_DEFAULT_SPEECH_HOLD,
  DSP_DEFAULT_LEVEL_NORMALIZATION ? 1.0f : 0.0f };

/* The ports of the first layouts, after the audio ports, as LADSPA
 * numbers them (hosts/ladspa/rnndenoise-ladspa.c). */
static const char *const old_names[N_OLD_CONTROLS] = {
  "Attenuation limit (dB, 0 = none)",
  "VAD threshold",
  "VAD probability",
  "latency",
  "VAD hold (ms)",
  "Hum removal (0 = off, 1 = on)",
};

static const LADSPA_PortDescriptor old_kinds[N_OLD_CONTROLS] = {
  LADSPA_PORT_INPUT,
  LADSPA_PORT_INPUT,
  LADSPA_PORT_OUTPUT,
  LADSPA_PORT_OUTPUT,
  LADSPA_PORT_INPUT,
  LADSPA_PORT_INPUT,
};

/* The older input controls' defaults, by control port: LADSPA's order
 * (limit, threshold, VAD, latency, hold, hum) and LV2's (limit,
 * threshold, hold, VAD, latency, hum); the outputs' slots are written by
 * run(). */
static const float ladspa_old_defaults[N_OLD_CONTROLS]
    = { 0.0f, 0.0f, -1.0f, -1.0f, 200.0f, 1.0f };
static const float lv2_old_defaults[N_OLD_CONTROLS]
    = { 0.0f, 0.0f, 200.0f, -1.0f, -1.0f, 1.0f };

/* One plugin of either kind. */
typedef struct
{
  const char *name;
  const LADSPA_Descriptor *ladspa; /* or */
  const LV2_Descriptor *lv2;
  unsigned channels;
} Plugin;

static float input[2][MAX_TOTAL];

/* The formants (Hz) of the vowels the voice says in turn. */
static const double vowels[][3] = {
  { 700, 1200, 2600 },
  { 300, 2300, 3000 },
  { 500, 900, 2500 },
  { 400, 1900, 2600 },
};

/* A speech-like signal in noise, per channel: a voice on a fundamental
 * of 125..155 Hz (165..195 Hz on the right) with vibrato, harmonics up
 * to 3.8 kHz shaped by the formants of a vowel per syllable of 0.25 s, in
 * white noise at about -45 dBFS and a 50 Hz hum. The network takes most
 * frames for speech (voice probability 0.8 and more, where the speech
 * hold acts), at 16 kHz too. */
static void
fill (unsigned long rate, unsigned long total)
{
  const double *formant;
  unsigned long i;
  unsigned c, x = 12345;
  int k, f;
  double t, f0, base, phase, env, v, a;

  for (c = 0; c < 2; c++) {
    base = 140.0 + 40.0 * c;
    for (i = 0; i < total; i++) {
      t = (double) i / rate;
      formant = vowels[(int) (4.0 * t) % 4];
      f0 = base + 15.0 * sin (2.0 * M_PI * 3.0 * t);
      phase = 2.0 * M_PI
          * (base * t
              + 15.0 / (2.0 * M_PI * 3.0) * (1.0 - cos (2.0 * M_PI * 3.0 * t)));
      env = 0.5 * (1.0 - cos (2.0 * M_PI * 4.0 * t));
      v = 0.0;
      for (k = 1; k * f0 < 3800.0; k++) {
        for (a = 0.0, f = 0; f < 3; f++)
          a += 1.0 / (1.0 + pow ((k * f0 - formant[f]) / 100.0, 2.0));
        v += a * sin (k * phase);
      }
      x = x * 1103515245u + 12345u;
      v = 0.05 * env * v + 0.02 * ((x >> 8) / 16777216.0 - 0.5)
          + 0.02 * sin (2.0 * M_PI * 50.0 * t);
      input[c][i] = (float) v;
    }
  }
}

/* The default a host computes from @h (the LADSPA SDK's rules), or NAN if
 * it names none. */
static float
ladspa_default (const LADSPA_PortRangeHint *h, unsigned long rate)
{
  LADSPA_PortRangeHintDescriptor d = h->HintDescriptor;
  double lo = h->LowerBound, hi = h->UpperBound;
  int lg = LADSPA_IS_HINT_LOGARITHMIC (d);

  if (LADSPA_IS_HINT_SAMPLE_RATE (d)) {
    lo *= rate;
    hi *= rate;
  }
  switch (d & LADSPA_HINT_DEFAULT_MASK) {
    case LADSPA_HINT_DEFAULT_MINIMUM:
      return (float) lo;
    case LADSPA_HINT_DEFAULT_LOW:
      return (float) (lg ? exp (0.75 * log (lo) + 0.25 * log (hi))
                         : 0.75 * lo + 0.25 * hi);
    case LADSPA_HINT_DEFAULT_MIDDLE:
      return (float) (lg ? sqrt (lo * hi) : 0.5 * (lo + hi));
    case LADSPA_HINT_DEFAULT_HIGH:
      return (float) (lg ? exp (0.25 * log (lo) + 0.75 * log (hi))
                         : 0.25 * lo + 0.75 * hi);
    case LADSPA_HINT_DEFAULT_MAXIMUM:
      return (float) hi;
    case LADSPA_HINT_DEFAULT_0:
      return 0.0f;
    case LADSPA_HINT_DEFAULT_1:
      return 1.0f;
    case LADSPA_HINT_DEFAULT_100:
      return 100.0f;
    case LADSPA_HINT_DEFAULT_440:
      return 440.0f;
    default:
      return NAN;
  }
}

/* The older ports of @d keep their numbers, names and kinds. */
static int
check_old_ports (const LADSPA_Descriptor *d, unsigned channels)
{
  static const char *const audio[2][4] = {
    { "Input", "Output" },
    { "Input L", "Input R", "Output L", "Output R" },
  };
  unsigned long p, n_audio = 2 * channels;
  LADSPA_PortDescriptor kind;
  int failed = 0;

  for (p = 0; p < n_audio + N_OLD_CONTROLS; p++) {
    const char *want
        = p < n_audio ? audio[channels - 1][p] : old_names[p - n_audio];
    kind = p < n_audio ? LADSPA_PORT_AUDIO
            | (p < channels ? LADSPA_PORT_INPUT : LADSPA_PORT_OUTPUT)
                       : LADSPA_PORT_CONTROL | old_kinds[p - n_audio];
    if (strcmp (d->PortNames[p], want) != 0 || d->PortDescriptors[p] != kind) {
      printf ("LADSPA %s: port %lu is \"%s\" (%d), was \"%s\" (%d)\n", d->Label,
          p, d->PortNames[p], (int) d->PortDescriptors[p], want, (int) kind);
      failed = 1;
    }
  }
  return failed;
}

/* @d's ports: the older ones unchanged, then the new controls with their
 * names, hints, ranges and defaults. */
static int
check_ladspa_descriptor (const LADSPA_Descriptor *d, unsigned channels)
{
  const LADSPA_PortRangeHint *h;
  const NewControl *nc;
  unsigned long p, first = 2 * channels + N_OLD_CONTROLS;
  unsigned k;
  float def;
  int failed;

  if (d->PortCount != 2 * channels + N_CONTROLS) {
    printf ("LADSPA %s: %lu ports, expected %lu\n", d->Label, d->PortCount,
        (unsigned long) (2 * channels + N_CONTROLS));
    return 1;
  }
  failed = check_old_ports (d, channels);
  for (k = 0; k < N_NEW; k++) {
    p = first + k;
    nc = &new_controls[k];
    h = &d->PortRangeHints[p];
    def = ladspa_default (h, 48000);
    printf ("LADSPA %s port %lu: \"%s\", %g..%g, default %g (library %g)\n",
        d->Label, p, d->PortNames[p], h->LowerBound, h->UpperBound, def,
        defaults[k]);
    if (strcmp (d->PortNames[p], nc->ladspa_name) != 0
        || d->PortDescriptors[p] != (LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL)
        || h->HintDescriptor != nc->ladspa_hints
        || h->LowerBound != nc->ladspa_lo || h->UpperBound != nc->ladspa_hi
        || def != defaults[k]) {
      printf ("LADSPA %s port %lu: expected \"%s\", hints %#x, %g..%g, "
              "default %g\n",
          d->Label, p, nc->ladspa_name, (unsigned) nc->ladspa_hints,
          nc->ladspa_lo, nc->ladspa_hi, defaults[k]);
      failed = 1;
    }
  }
  return failed;
}

static void *
plugin_new (const Plugin *p, unsigned long rate)
{
  const LV2_Feature *none[] = { NULL };

  if (p->ladspa != NULL)
    return p->ladspa->instantiate (p->ladspa, rate);
  return p->lv2->instantiate (p->lv2, (double) rate, "", none);
}

static void
plugin_connect (const Plugin *p, void *h, unsigned long port, float *data)
{
  if (p->ladspa != NULL)
    p->ladspa->connect_port (h, port, data);
  else
    p->lv2->connect_port (h, (uint32_t) port, data);
}

static void
plugin_run (const Plugin *p, void *h, unsigned long n)
{
  if (p->ladspa != NULL)
    p->ladspa->run (h, n);
  else
    p->lv2->run (h, (uint32_t) n);
}

static void
plugin_free (const Plugin *p, void *h)
{
  if (p->ladspa != NULL)
    p->ladspa->cleanup (h);
  else
    p->lv2->cleanup (h);
}

/* A run: before buffer b the new control @k (none if negative) holds
 * value[b], the others their defaults. */
typedef struct
{
  int k;
  float value[N_BUF];
} Run;

/* @p on the test signal in N_BUF buffers of @buf frames, @run's values on
 * its ports (the new ports left unconnected if !@connect_new), planar
 * output to @out (channel c at c * N_BUF * buf). */
static int
plugin_run_signal (const Plugin *p, unsigned long rate, unsigned long buf,
    const Run *run, int connect_new, float *out)
{
  static float ctl[N_CONTROLS];
  unsigned long total = N_BUF * buf, first = 2 * p->channels;
  unsigned b, c, i;
  void *h = plugin_new (p, rate);

  if (h == NULL) {
    printf ("%s at %lu Hz: instantiate() failed\n", p->name, rate);
    return 0;
  }
  for (i = 0; i < N_CONTROLS; i++) {
    ctl[i] = i < N_OLD_CONTROLS
        ? (p->ladspa != NULL ? ladspa_old_defaults : lv2_old_defaults)[i]
        : defaults[i - N_OLD_CONTROLS];
    if (i < N_OLD_CONTROLS || connect_new)
      plugin_connect (p, h, first + i, &ctl[i]);
  }
  if (p->ladspa != NULL)
    p->ladspa->activate (h);
  else
    p->lv2->activate (h);
  for (b = 0; b < N_BUF; b++) {
    for (c = 0; c < p->channels; c++) {
      plugin_connect (p, h, c, &input[c][b * buf]);
      plugin_connect (p, h, p->channels + c, &out[c * total + b * buf]);
    }
    if (run->k >= 0)
      ctl[N_OLD_CONTROLS + run->k] = run->value[b];
    plugin_run (p, h, buf);
  }
  plugin_free (p, h);
  return 1;
}

/* A new stream of the library on the test signal in the same buffers,
 * output as plugin_run_signal()'s: before buffer b, the setter of new
 * control @k (none if negative) is called with set[b], or not at all
 * where set[b] is NaN. */
static void
lib_run_signal (unsigned long rate, unsigned channels, unsigned long buf, int k,
    const float *set, float *out)
{
  static float inter[2 * MAX_BUF];
  unsigned long total = N_BUF * buf, i;
  RnnDenoiseModel *model = rnndenoise_model_new_default_for_rate (rate, NULL);
  RnnDenoise *st = rnndenoise_new (model, (int) channels, NULL);
  unsigned b, c;

  rnndenoise_model_unref (model);
  for (b = 0; b < N_BUF; b++) {
    if (k >= 0 && !isnan (set[b]))
      new_controls[k].set (st, set[b]);
    for (i = 0; i < buf; i++)
      for (c = 0; c < channels; c++)
        inter[i * channels + c] = input[c][b * buf + i];
    rnndenoise_process_float (st, inter, inter, (int) buf);
    for (i = 0; i < buf; i++)
      for (c = 0; c < channels; c++)
        out[c * total + b * buf + i] = inter[i * channels + c];
  }
  rnndenoise_free (st);
}

/* Samples of frames [from, to) whose bits differ between @a and @b. */
static unsigned long
n_differ (const float *a, const float *b, unsigned channels,
    unsigned long total, unsigned long from, unsigned long to)
{
  unsigned long i, n = 0;
  unsigned c;

  for (c = 0; c < channels; c++)
    for (i = from; i < to; i++)
      n += memcmp (&a[c * total + i], &b[c * total + i], sizeof (float)) != 0;
  return n;
}

static int
all_finite (const float *a, unsigned long n)
{
  unsigned long i;

  for (i = 0; i < n; i++)
    if (!isfinite (a[i]))
      return 0;
  return 1;
}

static float ref[2 * MAX_TOTAL], got[2 * MAX_TOTAL], want[2 * MAX_TOTAL];

/* @p's output for @run (in got) against the library's given @set (in
 * want), bit for bit, and finite; returns nonzero on failure. */
static int
expect (const Plugin *p, unsigned long rate, unsigned long buf, const Run *run,
    int connect_new, const float *set, const char *what)
{
  unsigned long total = N_BUF * buf, n;
  int finite;

  if (!plugin_run_signal (p, rate, buf, run, connect_new, got))
    return 1;
  lib_run_signal (rate, p->channels, buf, run->k, set, want);
  n = n_differ (got, want, p->channels, total, 0, total);
  finite = all_finite (got, p->channels * total);
  printf ("%s %lu Hz, %s: %lu of %lu samples differ from the library's%s\n",
      p->name, rate, what, n, p->channels * total,
      finite ? "" : ", NOT FINITE");
  return n != 0 || !finite;
}

/* The buffers of got from FIRST_DIFFERENT on differ from ref's (each in
 * at least one sample), and the first @n_equal are equal. */
static int
differs_from (const Plugin *p, unsigned long buf, unsigned n_equal,
    const char *what)
{
  unsigned long total = N_BUF * buf, n, least = total * p->channels;
  unsigned b;
  int failed = 0;

  for (b = 0; b < N_BUF; b++) {
    n = n_differ (got, ref, p->channels, total, b * buf, (b + 1) * buf);
    if (b >= FIRST_DIFFERENT && n < least)
      least = n;
    if ((b >= FIRST_DIFFERENT && n == 0) || (b < n_equal && n > 0)) {
      printf ("  %s: buffer %u %s the defaults'\n", what, b,
          n > 0 ? "differs from" : "equals");
      failed = 1;
    }
  }
  printf ("  %s: buffers %d..%d differ from the defaults' (at least %lu "
          "samples each)",
      what, FIRST_DIFFERENT, N_BUF - 1, least);
  if (n_equal > 0)
    printf (", buffers 0..%u do not", n_equal - 1);
  printf ("\n");
  return failed;
}

/* The new ports at their defaults, and unconnected, give a new stream's
 * output (into ref). */
static int
test_defaults (const Plugin *p, unsigned long rate, unsigned long buf)
{
  const Run run = { -1, { 0 } };
  int failed;

  lib_run_signal (rate, p->channels, buf, -1, NULL, ref);
  failed = expect (p, rate, buf, &run, 1, NULL, "new ports at their defaults");
  failed |= expect (p, rate, buf, &run, 0, NULL, "new ports unconnected");
  return failed;
}

/* Control @k at another value from the start, and from buffer 2 on (the
 * port changed mid-stream): the library's output with that setting,
 * unlike the defaults' (which the buffers before the change keep). */
static int
test_other (const Plugin *p, unsigned long rate, unsigned long buf, int k)
{
  const NewControl *nc = &new_controls[k];
  char what[96];
  float set[N_BUF];
  Run run = { k, { 0 } };
  unsigned b;
  int failed;

  for (b = 0; b < N_BUF; b++) {
    run.value[b] = nc->other;
    set[b] = b == 0 ? nc->other : NAN;
  }
  snprintf (what, sizeof what, "%s = %g", nc->ladspa_name, nc->other);
  failed = expect (p, rate, buf, &run, 1, set, what);
  failed |= differs_from (p, buf, 0, what);

  run.value[0] = run.value[1] = defaults[k];
  set[0] = NAN;
  set[2] = nc->other;
  snprintf (what, sizeof what, "%s = %g from buffer 2", nc->ladspa_name,
      nc->other);
  failed |= expect (p, rate, buf, &run, 1, set, what);
  failed |= differs_from (p, buf, 2, what);
  return failed;
}

/* Control @k at values a host should not send: the library's output at
 * the clamped value; NaN leaves the value before (off for a switch). */
static int
test_bad (const Plugin *p, unsigned long rate, unsigned long buf, int k)
{
  static const float bad[]
      = { NAN, INFINITY, -INFINITY, 1e30f, -1e30f, -0.5f, 100.0f };
  const NewControl *nc = &new_controls[k];
  float set[N_BUF], nan_as;
  char what[96];
  Run run = { k, { 0 } };
  unsigned b, i;
  int failed = 0;

  nan_as = nc->is_switch ? nc->lo : NAN;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    for (b = 0; b < N_BUF; b++) {
      run.value[b] = bad[i];
      set[b] = NAN;
    }
    set[0] = isnan (bad[i]) ? nan_as : bad[i] < nc->lo ? nc->lo : nc->hi;
    snprintf (what, sizeof what, "%s = %g", nc->ladspa_name, bad[i]);
    failed |= expect (p, rate, buf, &run, 1, set, what);
  }
  /* NaN after a valid value. */
  for (b = 0; b < N_BUF; b++) {
    run.value[b] = b < 3 ? nc->other : NAN;
    set[b] = b == 0 ? nc->other : b == 3 ? nan_as : NAN;
  }
  snprintf (what, sizeof what, "%s = %g, then NaN from buffer 3",
      nc->ladspa_name, nc->other);
  failed |= expect (p, rate, buf, &run, 1, set, what);
  return failed;
}

static int
test_plugin (const Plugin *p, unsigned long rate)
{
  unsigned long buf = rate / 10;
  unsigned k;
  int failed;

  failed = test_defaults (p, rate, buf);
  for (k = 0; k < N_NEW; k++) {
    failed |= test_other (p, rate, buf, (int) k);
    failed |= test_bad (p, rate, buf, (int) k);
  }
  return failed;
}

/* The speech protection both built-in models name (their files, as the
 * library embeds them), or NAN if they name different ones. */
static float
models_speech_protection (const char *path_48k, const char *path_16k)
{
  const char *paths[] = { path_48k, path_16k };
  float p[2] = { NAN, NAN };
  GError *err = NULL;
  DspModel *model;
  unsigned i;

  for (i = 0; i < 2; i++) {
    model = dsp_model_new_from_file (paths[i], &err);
    if (model == NULL) {
      printf ("%s: %s\n", paths[i], err->message);
      g_clear_error (&err);
      return NAN;
    }
    p[i] = dsp_model_get_speech_protection (model);
    printf ("%s: speech protection %g\n", paths[i], p[i]);
    dsp_model_unref (model);
  }
  return p[0] == p[1] ? p[0] : NAN;
}

static const unsigned long rates[] = { 48000, 16000 };

static int
test_plugins (const Plugin *plugins, unsigned n)
{
  unsigned i, r;
  int failed = 0;

  for (r = 0; r < sizeof rates / sizeof rates[0]; r++) {
    fill (rates[r], N_BUF * (rates[r] / 10));
    for (i = 0; i < n; i++)
      failed |= test_plugin (&plugins[i], rates[r]);
  }
  return failed;
}

int
main (int argc, char **argv)
{
  LADSPA_Descriptor_Function ladspa_get;
  LV2_Descriptor_Function lv2_get;
  Plugin plugins[4] = { { 0 } };
  void *ladspa_mod, *lv2_mod;
  unsigned i;
  int failed = 0;

  if (argc != 5) {
    fprintf (stderr, "usage: %s LADSPA_MODULE LV2_MODULE MODEL_48K MODEL_16K\n",
        argv[0]);
    return 2;
  }
  defaults[0] = models_speech_protection (argv[3], argv[4]);
  ladspa_mod = dlopen (argv[1], RTLD_NOW);
  lv2_mod = dlopen (argv[2], RTLD_NOW);
  if (isnan (defaults[0]) || ladspa_mod == NULL || lv2_mod == NULL) {
    fprintf (stderr, "%s\n", isnan (defaults[0]) ? "models" : dlerror ());
    return 1;
  }
  ladspa_get
      = (LADSPA_Descriptor_Function) dlsym (ladspa_mod, "ladspa_descriptor");
  lv2_get = (LV2_Descriptor_Function) dlsym (lv2_mod, "lv2_descriptor");
  for (i = 0; i < 2; i++) {
    plugins[i].ladspa = ladspa_get (i);
    plugins[2 + i].lv2 = lv2_get (i);
    if (plugins[i].ladspa == NULL || plugins[2 + i].lv2 == NULL)
      return 1;
    plugins[i].name = plugins[i].ladspa->Label;
    plugins[2 + i].name = plugins[2 + i].lv2->URI;
    plugins[i].channels = plugins[2 + i].channels = i + 1;
    failed |= check_ladspa_descriptor (plugins[i].ladspa, i + 1);
  }
  failed |= test_plugins (plugins, 4);
  return failed ? 1 : 0;
}
