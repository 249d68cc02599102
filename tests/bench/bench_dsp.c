/* rnndenoise — benchmark of the dsp core: ns per frame for each stage, the
 * real-time factor of one stream, the cost of the state pipeline, and
 * speexdsp's preprocessor on the same audio for a ratio.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints "name value unit" lines, after "# model: …" and "# other: …"
 * comment lines that name the two models compared.
 * Usage: bench_dsp [MODEL_FILE] [SECONDS] [OTHER_MODEL_FILE]
 * It compares the model with the other model. Each is labelled by the
 * weight type of its first GRU layer ("f32", "int8", "int8x8", see
 * dsp_weight_type_name()); the label names its figures
 * (network_<label>_ns_per_frame, stream_<label>_*, state_<label>_*,
 * ratio_<label>_over_speexdsp_cpu), and if both models get the same label
 * the other's gets the suffix "_other".
 * Without model files the model is a fixed-seed random int8x8 model of the
 * first shipped model's shape (dense 36->32, GRU 64, GRU 96, gain and VAD
 * heads; the dense layer reading the features stays float) and the other
 * the same shape and seed in float: the speed does not depend on the
 * weights. With a model file and no other one, the other is its sibling
 * file: "<stem>-f32.rnnm" for a quantised model, else "<stem>-int8x8.rnnm"
 * or "<stem>-int8.rnnm" (the int8x8 models in dsp/models have their float
 * twins next to them, rnndenoise-48k-f32.rnnm and rnndenoise-16k-f32.rnnm);
 * without one, only the model is measured.
 * The frames, the audio and speexdsp run at the model's rate (16 kHz for
 * dsp/models/rnndenoise-16k.rnnm); the other model must have the same
 * rate, hop and number of features.
 *
 * Every figure is the median of REPEATS timed runs, each after an untimed
 * warm-up run over the same buffers: buffers are pre-faulted (written once
 * before timing), so no run pays for first-touch page faults, and the
 * model's, the other model's and speexdsp's stream runs take turns, so that
 * their ratios come from the same moments of a shared, noisy machine.
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

#include "dsp/dsp_dense.h"
#include "dsp/dsp_features.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_hum.h"
#include "dsp/dsp_level.h"
#include "dsp/dsp_pitch.h"
#include "dsp/dsp_processor.h"
#include "dsp/dsp_stft.h"
#include "tests/unit/model_helper.h"

#define REPEATS 5

/* The frame layout of the model under test (48 kHz and 480 samples
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

/* A model under test: the model (index 0) or the other model (index 1). */
typedef struct
{
  gchar *path;     /* owned; NULL for the built-in random model */
  DspModel *model; /* owned */
  gchar *label;    /* owned; names its figures */
} BenchModel;

/* The name of the weight type of @model's first GRU layer. */
static const gchar *
first_gru_weight_name (const DspModel *model)
{
  DspLayerInfo info;
  guint i;

  for (i = 0; i < dsp_model_get_n_layers (model); i++) {
    if (dsp_model_get_layer_info (model, i, &info)
        && info.kind == DSP_LAYER_GRU)
      return dsp_weight_type_name (info.weight_type);
  }
  return "unknown";
}

static void
bench_model_init (BenchModel *m, const gchar *path, DspWeightType type)
{
  m->path = g_strdup (path);
  m->model = load_model (path, type);
  m->label = g_strdup (first_gru_weight_name (m->model));
}

static void
bench_model_clear (BenchModel *m)
{
  g_free (m->path);
  g_free (m->label);
  dsp_model_unref (m->model);
}

/* The other model's file next to @path: "<stem>-f32.rnnm" when the model
 * (labelled @label) is quantised, else "<stem>-int8x8.rnnm", then
 * "<stem>-int8.rnnm". Returns: (transfer full) (nullable): the first that
 * exists. */
static gchar *
find_sibling (const gchar *path, const gchar *label)
{
  const gchar *f32_suffixes[] = { "-f32.rnnm", NULL };
  const gchar *s8_suffixes[] = { "-int8x8.rnnm", "-int8.rnnm", NULL };
  const gchar **suffixes;
  gint stem;
  guint i;
  gchar *sibling;

  if (!g_str_has_suffix (path, ".rnnm"))
    return NULL;
  stem = (gint) strlen (path) - (gint) strlen (".rnnm");
  suffixes = strcmp (label, "f32") != 0 ? f32_suffixes : s8_suffixes;
  for (i = 0; suffixes[i] != NULL; i++) {
    sibling = g_strdup_printf ("%.*s%s", stem, path, suffixes[i]);
    if (g_file_test (sibling, G_FILE_TEST_EXISTS))
      return sibling;
    g_free (sibling);
  }
  return NULL;
}

/* Loads the model from @path and the other one from @other_path or the
 * model's sibling; without files, the built-in int8x8 and float models.
 * Returns the number of models (1 when there is no other one). */
static guint
bench_models_open (BenchModel *models, const gchar *path,
    const gchar *other_path)
{
  const DspFrameConfig *a, *b;
  gchar *sibling = NULL, *label;

  bench_model_init (&models[0], path, DSP_WEIGHT_S8X8);
  if (other_path == NULL && path != NULL) {
    sibling = find_sibling (path, models[0].label);
    if (sibling == NULL)
      return 1;
    other_path = sibling;
  }
  bench_model_init (&models[1], other_path, DSP_WEIGHT_F32);
  g_free (sibling);
  if (strcmp (models[0].label, models[1].label) == 0) {
    label = g_strconcat (models[1].label, "_other", NULL);
    g_free (models[1].label);
    models[1].label = label;
  }

  a = dsp_model_get_frame_config (models[0].model);
  b = dsp_model_get_frame_config (models[1].model);
  if (a->sample_rate != b->sample_rate || a->hop != b->hop
      || dsp_model_get_n_features (models[0].model)
          != dsp_model_get_n_features (models[1].model)) {
    fprintf (stderr,
        "bench_dsp: the other model has %u Hz, hop %u and %u features, "
        "the model %u Hz, hop %u and %u features\n",
        b->sample_rate, b->hop, dsp_model_get_n_features (models[1].model),
        a->sample_rate, a->hop, dsp_model_get_n_features (models[0].model));
    exit (1);
  }
  return 2;
}

/* "# WHAT: PATH (LABEL, id HEX16, N params)": plot_performance.py reads
 * the model's label from the parentheses. */
static void
print_model_line (const gchar *what, const BenchModel *m)
{
  printf ("# %s: %s (%s, id %016" G_GINT64_MODIFIER "x, %" G_GSIZE_FORMAT
          " params)\n",
      what, m->path != NULL ? m->path : "built-in random shipped-shape model",
      m->label, dsp_model_get_id (m->model), dsp_model_get_n_params (m->model));
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
  guint n_bands;
  gfloat *spectra;  /* n_frames spectra, pre-faulted */
  gfloat *features; /* n_frames * DSP_MAX_FEATURES, pre-faulted */
  gfloat *hidden;
  gfloat *scratch;
  gfloat *work; /* one spectrum: the gains stage must not compound */
  gfloat *pitch_spectrum;
  gfloat *held;       /* one frame's bin gains: what the speech hold reads */
  gfloat *hold_input; /* two frames' bin gains for the hold stage */
  DspLevel level;
  DspHum *hum;
} StageData;

static void
stage_analysis (gpointer data, guint f)
{
  StageData *d = data;

  dsp_stft_analyze (d->stft, d->x + (gsize) f * hop,
      d->spectra + (gsize) f * d->bins * 2);
}

/* Level normalisation as the processor runs it on each frame: the tracker
 * hears the frame, and the features' copy of the spectrum is scaled by its
 * gain (into work, so the spectra the next stages read stay as they are). */
static void
stage_level (gpointer data, guint f)
{
  StageData *d = data;

  dsp_level_update (&d->level, d->x + (gsize) f * hop, hop);
  dsp_level_scale_spectrum (&d->level, d->spectra + (gsize) f * d->bins * 2,
      d->bins, d->work);
}

/* The hum canceller as the processor runs it on each frame, on a copy of
 * the spectrum (into work, so the spectra the next stages read stay as
 * they are). */
static void
stage_hum (gpointer data, guint f)
{
  StageData *d = data;

  memcpy (d->work, d->spectra + (gsize) f * d->bins * 2,
      d->bins * 2 * sizeof (gfloat));
  dsp_hum_process (d->hum, d->work, TRUE);
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

/* The processor's gain path at its defaults in a frame with speech (its
 * dearest case): the noise-floor limit, the floor distances the speech
 * protection weighs its lift by, the bins' gains, the harmonic lift below
 * 4 kHz, the floor keep, the speech hold and their application. */
static void
stage_gains (gpointer data, guint f)
{
  StageData *d = data;
  gfloat gains[DSP_MAX_BANDS], bin_gains[DSP_MAX_BINS];
  gfloat above[DSP_MAX_BANDS], power[DSP_MAX_BINS];
  gboolean has_floor;
  guint b;

  for (b = 0; b < DSP_MAX_BANDS; b++)
    gains[b] = 0.5f + 0.001f * (gfloat) ((f + b) % 100);
  memcpy (d->work, d->spectra + (gsize) f * d->bins * 2,
      sizeof (gfloat) * d->bins * 2);
  dsp_features_limit_to_noise_floor (d->feat,
      DSP_DEFAULT_STATIONARY_SUPPRESSION, gains);
  has_floor = dsp_features_smoothed_above_floor (d->feat, above);
  if (has_floor) {
    for (b = 0; b < d->n_bands; b++)
      gains[b] = MIN (gains[b]
              * (1.0f + 0.5f * MIN (above[b], 2.0f) * (1.0f - gains[b])),
          1.0f);
  }
  dsp_features_interpolate_gains (d->feat, gains, bin_gains);
  dsp_features_low_bin_powers (d->feat, d->work, power);
  dsp_features_lift_peaks (d->feat, power, DSP_DEFAULT_HARMONIC_LIFT,
      bin_gains);
  if (has_floor)
    dsp_features_keep_above_floor (d->feat, power, above, bin_gains);
  dsp_features_hold_gains (d->feat, d->held, DSP_DEFAULT_SPEECH_HOLD,
      bin_gains);
  dsp_features_apply_gains (d->feat, bin_gains, 0.0f, d->work);
}

/* The speech hold alone, as the processor runs it in a frame with speech:
 * each bin's gain held against the frame before's, which it then replaces.
 * The gains alternate between two made-up frames (d->hold_input), so that
 * about half the bins are held each time. */
static void
stage_hold (gpointer data, guint f)
{
  StageData *d = data;
  gfloat bin_gains[DSP_MAX_BINS];

  memcpy (bin_gains, d->hold_input + (gsize) (f % 2) * d->bins,
      sizeof (gfloat) * d->bins);
  dsp_features_hold_gains (d->feat, d->held, DSP_DEFAULT_SPEECH_HOLD,
      bin_gains);
}

static void
stage_synthesis (gpointer data, guint f)
{
  StageData *d = data;
  gfloat out[DSP_MAX_HOP];

  dsp_stft_synthesize (d->stft, d->spectra + (gsize) f * d->bins * 2, out);
}

/* The model's network stage again with each kernel family below the one
 * the CPU runs (network_LABEL_avx2_ns_per_frame, ..._portable_...): what
 * the VNNI and AVX2 kernels save, in the same run. */
static void
bench_network_kernels (const BenchModel *model, StageData *d, gsize state,
    guint n_frames)
{
  gint best = dsp_dense_get_kernels (), limit;
  gchar *name;

  d->model = model->model;
  for (limit = best - 1; limit >= DSP_KERNELS_PORTABLE; limit--) {
    dsp_dense_set_kernel_limit (limit);
    memset (d->hidden, 0, state * sizeof (gfloat));
    name = g_strdup_printf ("network_%s_%s_ns_per_frame", model->label,
        dsp_kernels_name (limit));
    print_figure (name, time_stage (stage_network, d, n_frames), "ns");
    g_free (name);
  }
  dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);
}

/* Per-stage cost on one channel, each stage timed on its own (median of
 * REPEATS passes after a warm-up pass); the network stage for each of the
 * @n_models models, the model first, on the model's features. */
static void
bench_stages (const BenchModel *models, guint n_models, const gfloat *x,
    guint n_frames)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (models[0].model);
  StageData d;
  gsize scratch = 0, state = 0;
  gchar *name;
  guint k;

  for (k = 0; k < n_models; k++) {
    scratch = MAX (scratch, dsp_model_scratch_size (models[k].model, 1));
    state = MAX (state, dsp_model_state_size (models[k].model, 1));
  }
  d.model = models[0].model;
  d.stft = dsp_stft_new (cfg);
  d.feat = dsp_features_new (cfg);
  d.x = x;
  d.bins = dsp_frame_config_get_n_bins (cfg);
  d.n_bands = cfg->n_bands;
  /* g_new0 writes every page: no first-touch faults inside the timing. */
  d.spectra = g_new0 (gfloat, (gsize) n_frames * d.bins * 2);
  d.features = g_new0 (gfloat, (gsize) n_frames * DSP_MAX_FEATURES);
  d.hidden = g_new0 (gfloat, state);
  d.scratch = g_new0 (gfloat, scratch + 1);
  d.work = g_new0 (gfloat, d.bins * 2);
  d.pitch_spectrum = g_new0 (gfloat, d.bins * 2);
  d.held = g_new0 (gfloat, d.bins);
  d.hold_input = g_new (gfloat, (gsize) d.bins * 2);
  for (k = 0; k < d.bins * 2; k++)
    d.hold_input[k] = 0.05f + 0.009f * (gfloat) ((k * 7) % 101);
  d.pitch = cfg->feature_layout_id == DSP_FEATURE_LAYOUT_PITCH_V3
      ? dsp_pitch_new (cfg)
      : NULL;

  print_figure ("analysis_ns_per_frame",
      time_stage (stage_analysis, &d, n_frames), "ns");
  dsp_level_init (&d.level, rate, hop);
  print_figure ("level_ns_per_frame", time_stage (stage_level, &d, n_frames),
      "ns");
  d.hum = dsp_hum_new (cfg);
  print_figure ("hum_ns_per_frame", time_stage (stage_hum, &d, n_frames), "ns");
  print_figure ("features_ns_per_frame",
      time_stage (stage_features, &d, n_frames), "ns");
  if (d.pitch != NULL)
    print_figure ("pitch_ns_per_frame", time_stage (stage_pitch, &d, n_frames),
        "ns");
  for (k = 0; k < n_models; k++) {
    d.model = models[k].model;
    memset (d.hidden, 0, state * sizeof (gfloat));
    name = g_strdup_printf ("network_%s_ns_per_frame", models[k].label);
    print_figure (name, time_stage (stage_network, &d, n_frames), "ns");
    g_free (name);
  }
  bench_network_kernels (&models[0], &d, state, n_frames);
  print_figure ("gains_ns_per_frame", time_stage (stage_gains, &d, n_frames),
      "ns");
  print_figure ("hold_ns_per_frame", time_stage (stage_hold, &d, n_frames),
      "ns");
  print_figure ("synthesis_ns_per_frame",
      time_stage (stage_synthesis, &d, n_frames), "ns");

  dsp_stft_free (d.stft);
  dsp_features_free (d.feat);
  dsp_pitch_free (d.pitch);
  dsp_hum_free (d.hum);
  g_free (d.pitch_spectrum);
  g_free (d.held);
  g_free (d.hold_input);
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
  DspKernels kernels; /* the limit its runs are timed under */
  DspProcessor *processor;
  const RnnStateDescriptor *desc; /* borrowed from the processor's slot */
  gboolean side_linked;
  gsize side_size;
  gpointer side;
  gfloat *y;
} StreamRun;

static void
stream_run_init (StreamRun *run, DspModel *model, const gchar *label,
    gboolean side_linked, DspKernels kernels, guint n_samples)
{
  RnnStateSlot *slot;

  run->label = label;
  run->kernels = kernels;
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
  gdouble t0, cpu;
  guint done;

  dsp_dense_set_kernel_limit (run->kernels);
  t0 = cpu_seconds ();
  for (done = 0; done + hop <= n_samples; done += hop)
    dsp_processor_process (run->processor, x + done, run->y + done, hop,
        run->side_linked ? run->desc : NULL,
        run->side_linked ? run->side : NULL, run->side_size, NULL);
  cpu = cpu_seconds () - t0;
  dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);
  return cpu;
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

/* Stream runs: each of two models with the side pad linked, the model
 * with it unlinked, and the model on the AVX2 kernels where the CPU has
 * VNNI. */
#define MAX_RUNS 4

/* Each of the @n_models models with the state side pad linked, the model
 * with it unlinked, the model linked on the AVX2 kernels (LABEL_avx2) if
 * the CPU has later ones, and speexdsp, taking turns: a warm-up run each,
 * then REPEATS timed rounds; medians. */
static void
bench_streams (const BenchModel *models, guint n_models, const gfloat *x,
    guint n)
{
  StreamRun runs[MAX_RUNS];
  gdouble cpu[MAX_RUNS][REPEATS], med[MAX_RUNS];
  guint n_runs = n_models + 1, k, r;
  gchar *unlinked, *avx2;
  DspKernels best = dsp_dense_get_kernels ();
#ifdef HAVE_SPEEXDSP
  SpeexPreprocessState *st
      = speex_preprocess_state_init ((gint) hop, (gint) rate);
  gdouble speex_cpu[REPEATS], speex_rtf,
      audio = (gdouble) (n / hop) * hop / rate;
  gchar *name;
  gint on = 1;

  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_DENOISE, &on);
  speex_run_once (st, x, n);
#endif

  for (k = 0; k < n_models; k++)
    stream_run_init (&runs[k], models[k].model, models[k].label, TRUE, best, n);
  unlinked = g_strconcat (models[0].label, "_unlinked", NULL);
  stream_run_init (&runs[n_models], models[0].model, unlinked, FALSE, best, n);
  avx2 = g_strconcat (models[0].label, "_avx2", NULL);
  if (best > DSP_KERNELS_AVX2)
    stream_run_init (&runs[n_runs++], models[0].model, avx2, TRUE,
        DSP_KERNELS_AVX2, n);
  for (k = 0; k < n_runs; k++)
    stream_run_once (&runs[k], x, n);
  for (r = 0; r < REPEATS; r++) {
    for (k = 0; k < n_runs; k++)
      cpu[k][r] = stream_run_once (&runs[k], x, n);
#ifdef HAVE_SPEEXDSP
    speex_cpu[r] = speex_run_once (st, x, n);
#endif
  }
  for (k = 0; k < n_runs; k++) {
    med[k] = median (cpu[k], REPEATS);
    stream_run_report (&runs[k], med[k], n);
  }
#ifdef HAVE_SPEEXDSP
  speex_rtf = median (speex_cpu, REPEATS) / audio;
  speex_preprocess_state_destroy (st);
  print_figure ("speexdsp_realtime_factor", speex_rtf, "cpu_s/audio_s");
  print_figure ("speexdsp_speed", 1.0 / speex_rtf, "x_realtime");
  for (k = 0; k < n_runs; k++) {
    if (k == n_models)
      continue; /* the unlinked run */
    name = g_strdup_printf ("ratio_%s_over_speexdsp_cpu", runs[k].label);
    print_figure (name, med[k] / audio / speex_rtf, "ratio");
    g_free (name);
  }
#else
  (void) med;
#endif
  for (k = 0; k < n_runs; k++)
    stream_run_clear (&runs[k]);
  g_free (unlinked);
  g_free (avx2);
}

int
main (int argc, char **argv)
{
  const gchar *path = argc > 1 && *argv[1] != '\0' ? argv[1] : NULL;
  guint seconds = argc > 2 ? (guint) atoi (argv[2]) : 20;
  const gchar *other_path = argc > 3 && *argv[3] != '\0' ? argv[3] : NULL;
  BenchModel models[2];
  guint n_models, n, k;
  gfloat *x;

  n_models = bench_models_open (models, path, other_path);
  rate = dsp_model_get_frame_config (models[0].model)->sample_rate;
  hop = dsp_model_get_frame_config (models[0].model)->hop;
  n = MAX (seconds, 1u) * rate;
  x = make_audio (n);

  print_model_line ("model", &models[0]);
  if (n_models > 1)
    print_model_line ("other", &models[1]);
  else
    printf ("# other: none\n");
  printf ("# kernels: %s\n", dsp_kernels_name (dsp_dense_get_kernels ()));
  print_figure ("sample_rate", rate, "Hz");
  print_figure ("audio_seconds", n / (gdouble) rate, "s");
  print_figure ("repeats", REPEATS, "runs (figures are medians)");
  print_figure ("model_parameters", dsp_model_get_n_params (models[0].model),
      "params");
  bench_stages (models, n_models, x, MIN (n / hop, 2000u));
  bench_streams (models, n_models, x, n);
  for (k = 0; k < n_models; k++)
    bench_model_clear (&models[k]);
  g_free (x);
  return 0;
}
