/* rnndenoise — benchmark of the dsp core: ns per frame for each stage, the
 * real-time factor of one stream, the cost of the state pipeline, and
 * speexdsp's preprocessor on the same audio for a ratio.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
  * Prints "name value unit" lines.
 * Usage: bench_dsp [MODEL_FILE] [SECONDS] [INT8_MODEL_FILE]
 * The frames, the audio and speexdsp run at the float model's rate (16 kHz
 * for dsp/models/rnndenoise-16k.rnnm).
 * Without model files it builds fixed-seed random models (float and int8)
 * of the first shipped model's shape (dense 36->32, GRU 64, GRU 96, gain
 * and VAD heads): the speed does not depend on the weights. With a float
 * model file and no int8 one, the int8 figures come from the float model
 * quantised here (same shape).
 *
 * Every figure is the median of REPEATS timed runs, each after an untimed
 * warm-up run over the same buffers: buffers are pre-faulted (written once
 * before timing), so no run pays for first-touch page faults, and the
 * float, int8 and speexdsp stream runs take turns, so that their ratios
 * come from the same moments of a shared, noisy machine.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_SPEEXDSP
#include <speex/speex_preprocess.h>
#endif

#include "dsp/dsp_features.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_pitch.h"
#include "dsp/dsp_processor.h"
#include "dsp/dsp_stft.h"
#include "tests/unit/model_helper.h"

#define REPEATS 5

/* The frame layout of the float model under test (48 kHz and 480 samples
 * for the built-in shape and the 48 kHz model, 16 kHz and 160 for the
 * 16 kHz one); set once in main(). */
static guint rate = 48000;
static guint hop = 480;

static gdouble
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static GBytes *
shipped_shape_model (DspWeightType type)
{
  ModelHelperSpec spec;
  guint nf;

  model_helper_spec_init_default (&spec, type, 77);
  nf = dsp_feature_layout_n_features (spec.config.feature_layout_id,
      spec.config.n_bands);
  spec.n_layers = 5;
  /* clang-format off */
  spec.layers[0] = (ModelHelperLayer) { DSP_LAYER_DENSE, 0, nf, 32,
      DSP_ACTIVATION_TANH };
  spec.layers[1] = (ModelHelperLayer) { DSP_LAYER_GRU, 1, 32, 64,
      DSP_ACTIVATION_LINEAR };
  spec.layers[2] = (ModelHelperLayer) { DSP_LAYER_GRU, 2, 64, 96,
      DSP_ACTIVATION_LINEAR };
  spec.layers[3] = (ModelHelperLayer) { DSP_LAYER_DENSE, 3, 96,
      spec.config.n_bands, DSP_ACTIVATION_SIGMOID };
  spec.layers[4] = (ModelHelperLayer) { DSP_LAYER_DENSE, 3, 96, 1,
      DSP_ACTIVATION_SIGMOID };
  /* clang-format on */
  spec.gain_layer = 3;
  spec.vad_layer = 4;
  return model_helper_build (&spec);
}

static DspModel *
load_model (const gchar *path, DspWeightType type)
{
  GError *error = NULL;
  DspModel *model;
  GBytes *bytes;

  if (path != NULL) {
    model = dsp_model_new_from_file (path, &error);
  } else {
    bytes = shipped_shape_model (type);
    model = dsp_model_new_from_bytes (bytes, &error);
    g_bytes_unref (bytes);
  }
  if (model == NULL) {
    fprintf (stderr, "bench_dsp: %s\n", error->message);
    exit (1);
  }
  return model;
}

/* Noisy speech-like audio, deterministic. */
static gfloat *
make_audio (guint n)
{
  gfloat *x = g_new (gfloat, n);
  GRand *rand = g_rand_new_with_seed (42);
  guint i;

  for (i = 0; i < n; i++) {
    gdouble t = (gdouble) i / rate;
    gdouble env = 0.5 + 0.5 * sin (2 * G_PI * 2.0 * t);
    x[i] = (gfloat) (env * 0.3 * sin (2 * G_PI * 150.0 * t)
        + 0.05 * g_rand_double_range (rand, -1.0, 1.0));
  }
  g_rand_free (rand);
  return x;
}

static void
print_figure (const gchar *name, gdouble value, const gchar *unit)
{
  printf ("%s %.6g %s\n", name, value, unit);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* The median of @n values (sorts them). */
static gdouble
median (gdouble *v, guint n)
{
  qsort (v, n, sizeof (gdouble), compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One stage of bench_stages(), run over every frame. */
typedef void (*StageFunc) (gpointer data, guint frame);

/* ns per frame of @stage: one untimed warm-up pass, then the median of
 * REPEATS timed passes. */
static gdouble
time_stage (StageFunc stage, gpointer data, guint n_frames)
{
  gdouble runs[REPEATS], t0;
  guint r, f;

  for (f = 0; f < n_frames; f++)
    stage (data, f);
  for (r = 0; r < REPEATS; r++) {
    t0 = cpu_seconds ();
    for (f = 0; f < n_frames; f++)
      stage (data, f);
    runs[r] = (cpu_seconds () - t0) / n_frames * 1e9;
  }
  return median (runs, REPEATS);
}

typedef struct
{
  DspModel *model;
  DspStft *stft;
  DspFeatures *feat;
  DspPitch *pitch; /* feature layout 3 only */
  const gfloat *x;
  guint bins;
  gfloat *spectra;  /* n_frames spectra, pre-faulted */
  gfloat *features; /* n_frames * DSP_MAX_FEATURES, pre-faulted */
  gfloat *hidden;
  gfloat *scratch;
  gfloat *work; /* one spectrum: the gains stage must not compound */
  gfloat *pitch_spectrum;
} StageData;

static void
stage_analysis (gpointer data, guint f)
{
  StageData *d = data;

  dsp_stft_analyze (d->stft, d->x + (gsize) f * hop,
      d->spectra + (gsize) f * d->bins * 2);
}

static void
stage_features (gpointer data, guint f)
{
  StageData *d = data;

  dsp_features_compute (d->feat, d->spectra + (gsize) f * d->bins * 2,
      d->features + (gsize) f * DSP_MAX_FEATURES, NULL);
}

/* Layout 3's pitch part: the period search, the spectrum one period back
 * and the bands' correlations (the band energies come from the features
 * stage, as in the processor). */
static void
stage_pitch (gpointer data, guint f)
{
  StageData *d = data;
  const gfloat *spectrum = d->spectra + (gsize) f * d->bins * 2;
  gfloat energies[DSP_MAX_BANDS];

  dsp_features_band_energies (d->feat, spectrum, energies);
  dsp_pitch_analyze (d->pitch, d->x + (gsize) f * hop, d->pitch_spectrum);
  dsp_pitch_features (d->pitch, d->feat, energies, spectrum, d->pitch_spectrum,
      d->features + (gsize) f * DSP_MAX_FEATURES);
}

static void
stage_network (gpointer data, guint f)
{
  StageData *d = data;
  gfloat gains[DSP_MAX_BANDS], vad;

  dsp_model_forward (d->model, d->features + (gsize) f * DSP_MAX_FEATURES,
      d->hidden, 1, gains, &vad, d->scratch);
}

/* The processor's gain path at its defaults: the noise-floor limit, the
 * floor distances the speech protection weighs its lift by, the bins'
 * gains and their application. */
static void
stage_gains (gpointer data, guint f)
{
  StageData *d = data;
  gfloat gains[DSP_MAX_BANDS], bin_gains[DSP_MAX_BINS];
  gfloat above[DSP_MAX_BANDS];
  guint b;

  for (b = 0; b < DSP_MAX_BANDS; b++)
    gains[b] = 0.5f + 0.001f * (gfloat) ((f + b) % 100);
  memcpy (d->work, d->spectra + (gsize) f * d->bins * 2,
      sizeof (gfloat) * d->bins * 2);
  dsp_features_limit_to_noise_floor (d->feat,
      DSP_DEFAULT_STATIONARY_SUPPRESSION, gains);
  if (dsp_features_smoothed_above_floor (d->feat, above)) {
    for (b = 0; b < DSP_MAX_BANDS; b++)
      gains[b] = MIN (gains[b]
              * (1.0f + 0.5f * MIN (above[b], 2.0f) * (1.0f - gains[b])),
          1.0f);
  }
  dsp_features_interpolate_gains (d->feat, gains, bin_gains);
  dsp_features_apply_gains (d->feat, bin_gains, 0.0f, d->work);
}

static void
stage_synthesis (gpointer data, guint f)
{
  StageData *d = data;
  gfloat out[DSP_MAX_HOP];

  dsp_stft_synthesize (d->stft, d->spectra + (gsize) f * d->bins * 2, out);
}

/* Per-stage cost on one channel, each stage timed on its own (median of
 * REPEATS passes after a warm-up pass). */
static void
bench_stages (DspModel *f32, DspModel *s8, const gfloat *x, guint n_frames)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (f32);
  StageData d;
  gsize scratch
      = MAX (dsp_model_scratch_size (f32, 1), dsp_model_scratch_size (s8, 1));

  d.model = f32;
  d.stft = dsp_stft_new (cfg);
  d.feat = dsp_features_new (cfg);
  d.x = x;
  d.bins = dsp_frame_config_get_n_bins (cfg);
  /* g_new0 writes every page: no first-touch faults inside the timing. */
  d.spectra = g_new0 (gfloat, (gsize) n_frames * d.bins * 2);
  d.features = g_new0 (gfloat, (gsize) n_frames * DSP_MAX_FEATURES);
  d.hidden = g_new0 (gfloat, dsp_model_state_size (f32, 1));
  d.scratch = g_new0 (gfloat, scratch + 1);
  d.work = g_new0 (gfloat, d.bins * 2);
  d.pitch_spectrum = g_new0 (gfloat, d.bins * 2);
  d.pitch = cfg->feature_layout_id == DSP_FEATURE_LAYOUT_PITCH_V3
      ? dsp_pitch_new (cfg)
      : NULL;

  print_figure ("analysis_ns_per_frame",
      time_stage (stage_analysis, &d, n_frames), "ns");
  print_figure ("features_ns_per_frame",
      time_stage (stage_features, &d, n_frames), "ns");
  if (d.pitch != NULL)
    print_figure ("pitch_ns_per_frame", time_stage (stage_pitch, &d, n_frames),
        "ns");
  print_figure ("network_f32_ns_per_frame",
      time_stage (stage_network, &d, n_frames), "ns");
  d.model = s8;
  memset (d.hidden, 0, dsp_model_state_size (s8, 1) * sizeof (gfloat));
  print_figure ("network_s8_ns_per_frame",
      time_stage (stage_network, &d, n_frames), "ns");
  print_figure ("gains_ns_per_frame", time_stage (stage_gains, &d, n_frames),
      "ns");
  print_figure ("synthesis_ns_per_frame",
      time_stage (stage_synthesis, &d, n_frames), "ns");

  dsp_stft_free (d.stft);
  dsp_features_free (d.feat);
  dsp_pitch_free (d.pitch);
  g_free (d.pitch_spectrum);
  g_free (d.spectra);
  g_free (d.features);
  g_free (d.hidden);
  g_free (d.scratch);
  g_free (d.work);
}

/* One stream under test: the whole processor on one mono stream in 10 ms
 * buffers, its output and side buffers allocated and written once. */
typedef struct
{
  const gchar *label;
  DspProcessor *processor;
  const RnnStateDescriptor *desc; /* borrowed from the processor's slot */
  gboolean side_linked;
  gsize side_size;
  gpointer side;
  gfloat *y;
} StreamRun;

static void
stream_run_init (StreamRun *run, DspModel *model, const gchar *label,
    gboolean side_linked, guint n_samples)
{
  RnnStateSlot *slot;

  run->label = label;
  run->processor = dsp_processor_new (model, 1, NULL);
  slot = dsp_processor_get_slot (run->processor);
  run->desc = rnn_state_slot_get_descriptor (slot);
  run->side_linked = side_linked;
  run->side_size = rnn_state_descriptor_hidden_bytes (run->desc);
  run->side = g_malloc0 (run->side_size);
  run->y = g_new0 (gfloat, n_samples);
}

/* CPU seconds to process @n_samples of @x. */
static gdouble
stream_run_once (StreamRun *run, const gfloat *x, guint n_samples)
{
  gdouble t0 = cpu_seconds ();
  guint done;

  for (done = 0; done + hop <= n_samples; done += hop)
    dsp_processor_process (run->processor, x + done, run->y + done, hop,
        run->side_linked ? run->desc : NULL,
        run->side_linked ? run->side : NULL, run->side_size, NULL);
  return cpu_seconds () - t0;
}

/* Prints the run's figures from the median CPU time of its runs. */
static void
stream_run_report (StreamRun *run, gdouble cpu, guint n_samples)
{
  RnnStateSlot *slot = dsp_processor_get_slot (run->processor);
  guint calls = n_samples / hop;
  gdouble rtf = cpu / ((gdouble) calls * hop / rate);
  RnnStateCounters c;
  gchar *name;

  name = g_strdup_printf ("stream_%s_realtime_factor", run->label);
  print_figure (name, rtf, "cpu_s/audio_s");
  g_free (name);
  name = g_strdup_printf ("stream_%s_speed", run->label);
  print_figure (name, 1.0 / rtf, "x_realtime");
  g_free (name);
  name = g_strdup_printf ("stream_%s_ns_per_frame", run->label);
  print_figure (name, cpu / calls * 1e9, "ns");
  g_free (name);

  rnn_state_slot_get_counters (slot, &c);
  name = g_strdup_printf ("state_%s_bytes_written_per_invocation", run->label);
  print_figure (name, (gdouble) c.bytes_written_back / c.invocations, "bytes");
  g_free (name);
  name = g_strdup_printf ("state_%s_bytes_side_per_invocation", run->label);
  print_figure (name, (gdouble) c.bytes_side_copied / c.invocations, "bytes");
  g_free (name);
  name = g_strdup_printf ("state_%s_copies_per_invocation", run->label);
  print_figure (name, (gdouble) c.copies / c.invocations, "copies");
  g_free (name);
}

static void
stream_run_clear (StreamRun *run)
{
  g_free (run->side);
  g_free (run->y);
  dsp_processor_free (run->processor);
}

#ifdef HAVE_SPEEXDSP
/* CPU seconds for speexdsp's denoiser over @n_samples of @x. */
static gdouble
speex_run_once (SpeexPreprocessState *st, const gfloat *x, guint n_samples)
{
  spx_int16_t frame[DSP_MAX_HOP];
  gdouble t0 = cpu_seconds ();
  guint done, i;

  for (done = 0; done + hop <= n_samples; done += hop) {
    for (i = 0; i < hop; i++)
      frame[i] = (spx_int16_t) CLAMP (x[done + i] * 32767.0f, -32768, 32767);
    speex_preprocess_run (st, frame);
  }
  return cpu_seconds () - t0;
}
#endif

/* The float, int8 (side pad linked and not) and speexdsp streams, taking
 * turns: a warm-up run each, then REPEATS timed rounds; medians. */
static void
bench_streams (DspModel *f32, DspModel *s8, const gfloat *x, guint n)
{
  StreamRun runs[3];
  gdouble cpu[3][REPEATS], med[3];
  guint k, r;
#ifdef HAVE_SPEEXDSP
  SpeexPreprocessState *st
      = speex_preprocess_state_init ((gint) hop, (gint) rate);
  gdouble speex_cpu[REPEATS], speex_rtf;
  gint on = 1;

  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_DENOISE, &on);
  speex_run_once (st, x, n);
#endif

  stream_run_init (&runs[0], f32, "f32", TRUE, n);
  stream_run_init (&runs[1], s8, "s8", TRUE, n);
  stream_run_init (&runs[2], s8, "s8_unlinked", FALSE, n);
  for (k = 0; k < 3; k++)
    stream_run_once (&runs[k], x, n);
  for (r = 0; r < REPEATS; r++) {
    for (k = 0; k < 3; k++)
      cpu[k][r] = stream_run_once (&runs[k], x, n);
#ifdef HAVE_SPEEXDSP
    speex_cpu[r] = speex_run_once (st, x, n);
#endif
  }
  for (k = 0; k < 3; k++) {
    med[k] = median (cpu[k], REPEATS);
    stream_run_report (&runs[k], med[k], n);
    stream_run_clear (&runs[k]);
  }
#ifdef HAVE_SPEEXDSP
  speex_rtf = median (speex_cpu, REPEATS) / ((gdouble) (n / hop) * hop / rate);
  speex_preprocess_state_destroy (st);
  print_figure ("speexdsp_realtime_factor", speex_rtf, "cpu_s/audio_s");
  print_figure ("speexdsp_speed", 1.0 / speex_rtf, "x_realtime");
  print_figure ("ratio_f32_over_speexdsp_cpu",
      med[0] / ((gdouble) (n / hop) * hop / rate) / speex_rtf, "ratio");
  print_figure ("ratio_s8_over_speexdsp_cpu",
      med[1] / ((gdouble) (n / hop) * hop / rate) / speex_rtf, "ratio");
#else
  (void) med;
#endif
}

int
main (int argc, char **argv)
{
  const gchar *path = argc > 1 && *argv[1] != '\0' ? argv[1] : NULL;
  guint seconds = argc > 2 ? (guint) atoi (argv[2]) : 20;
  DspModel *f32 = load_model (path, DSP_WEIGHT_F32);
  guint n;
  gfloat *x;
  const gchar *s8_path = argc > 3 && *argv[3] != '\0' ? argv[3] : NULL;
  gchar *sibling = NULL;
  DspModel *s8;

  rate = dsp_model_get_frame_config (f32)->sample_rate;
  hop = dsp_model_get_frame_config (f32)->hop;
  n = MAX (seconds, 1u) * rate;
  x = make_audio (n);
  if (s8_path == NULL && path != NULL && g_str_has_suffix (path, ".rnnm")) {
    sibling
        = g_strdup_printf ("%.*s-int8.rnnm", (gint) strlen (path) - 5, path);
    if (g_file_test (sibling, G_FILE_TEST_EXISTS))
      s8_path = sibling;
  }
  if (s8_path == NULL && path != NULL)
    s8 = dsp_model_ref (f32);
  else
    s8 = load_model (s8_path, DSP_WEIGHT_S8);
  print_figure ("int8_model_file", s8 != f32,
      "(0: the int8 figures are "
      "the float model's)");

  print_figure ("sample_rate", rate, "Hz");
  print_figure ("audio_seconds", n / (gdouble) rate, "s");
  print_figure ("repeats", REPEATS, "runs (figures are medians)");
  print_figure ("model_parameters", dsp_model_get_n_params (f32), "params");
  bench_stages (f32, s8, x, MIN (n / hop, 2000u));
  bench_streams (f32, s8, x, n);
  dsp_model_unref (f32);
  dsp_model_unref (s8);
  g_free (sibling);
  g_free (x);
  return 0;
}
