/* rnndenoise — benchmark of the dsp core: ns per frame for each stage, the
 * real-time factor of one stream, the cost of the state pipeline, and
 * speexdsp's preprocessor on the same audio for a ratio.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
  * Prints "name value unit" lines.
 * Usage: bench_dsp [MODEL_FILE] [SECONDS] [INT8_MODEL_FILE]
 * Without model files it builds fixed-seed random models (float and int8)
 * of the shipped model's shape (dense 36->32, GRU 64, GRU 96, gain and VAD
 * heads): the speed does not depend on the weights. With only a float
 * model file, the int8 figures come from the random int8 model.
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
#include "dsp/dsp_processor.h"
#include "dsp/dsp_stft.h"
#include "tests/unit/model_helper.h"

#define RATE 48000
#define HOP 480

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
    gdouble t = (gdouble) i / RATE;
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

/* Per-stage cost on one channel, each stage timed on its own. */
static void
bench_stages (DspModel *f32, DspModel *s8, const gfloat *x, guint n_frames)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (f32);
  guint bins = dsp_frame_config_get_n_bins (cfg);
  DspStft *stft = dsp_stft_new (cfg);
  DspFeatures *feat = dsp_features_new (cfg);
  gfloat *spectra = g_new (gfloat, (gsize) n_frames * bins * 2);
  gfloat *features = g_new (gfloat, (gsize) n_frames * DSP_MAX_FEATURES);
  gfloat gains[DSP_MAX_BANDS], vad, bin_gains[DSP_MAX_BINS], out[HOP];
  gfloat *hidden = g_new0 (gfloat, dsp_model_state_size (f32, 1));
  gfloat *scratch = g_new0 (gfloat, dsp_model_scratch_size (f32, 1) + 1);
  gdouble t0;
  guint f;

  t0 = cpu_seconds ();
  for (f = 0; f < n_frames; f++)
    dsp_stft_analyze (stft, x + (gsize) f * HOP,
        spectra + (gsize) f * bins * 2);
  print_figure ("analysis_ns_per_frame", (cpu_seconds () - t0) / n_frames * 1e9,
      "ns");

  t0 = cpu_seconds ();
  for (f = 0; f < n_frames; f++)
    dsp_features_compute (feat, spectra + (gsize) f * bins * 2,
        features + (gsize) f * DSP_MAX_FEATURES, NULL);
  print_figure ("features_ns_per_frame", (cpu_seconds () - t0) / n_frames * 1e9,
      "ns");

  t0 = cpu_seconds ();
  for (f = 0; f < n_frames; f++)
    dsp_model_forward (f32, features + (gsize) f * DSP_MAX_FEATURES, hidden, 1,
        gains, &vad, scratch);
  print_figure ("network_f32_ns_per_frame",
      (cpu_seconds () - t0) / n_frames * 1e9, "ns");

  memset (hidden, 0, dsp_model_state_size (s8, 1) * sizeof (gfloat));
  t0 = cpu_seconds ();
  for (f = 0; f < n_frames; f++)
    dsp_model_forward (s8, features + (gsize) f * DSP_MAX_FEATURES, hidden, 1,
        gains, &vad, scratch);
  print_figure ("network_s8_ns_per_frame",
      (cpu_seconds () - t0) / n_frames * 1e9, "ns");

  t0 = cpu_seconds ();
  for (f = 0; f < n_frames; f++) {
    dsp_features_interpolate_gains (feat, gains, bin_gains);
    dsp_features_apply_gains (feat, bin_gains, 0.0f,
        spectra + (gsize) f * bins * 2);
  }
  print_figure ("gains_ns_per_frame", (cpu_seconds () - t0) / n_frames * 1e9,
      "ns");

  t0 = cpu_seconds ();
  for (f = 0; f < n_frames; f++)
    dsp_stft_synthesize (stft, spectra + (gsize) f * bins * 2, out);
  print_figure ("synthesis_ns_per_frame",
      (cpu_seconds () - t0) / n_frames * 1e9, "ns");

  dsp_stft_free (stft);
  dsp_features_free (feat);
  g_free (spectra);
  g_free (features);
  g_free (hidden);
  g_free (scratch);
}

/* The whole processor on one mono stream in 10 ms buffers; returns the
 * real-time factor (CPU seconds per audio second). */
static gdouble
bench_stream (DspModel *model, const gchar *label, const gfloat *x,
    guint n_samples, gboolean side_linked)
{
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  RnnStateSlot *slot = dsp_processor_get_slot (p);
  const RnnStateDescriptor *desc = rnn_state_slot_get_descriptor (slot);
  gsize side_size = rnn_state_descriptor_hidden_bytes (desc);
  gpointer side = g_malloc (side_size);
  gfloat *y = g_new (gfloat, n_samples);
  RnnStateCounters c;
  gdouble t0, cpu, rtf;
  guint done, calls = 0;
  gchar *name;

  t0 = cpu_seconds ();
  for (done = 0; done + HOP <= n_samples; done += HOP, calls++)
    dsp_processor_process (p, x + done, y + done, HOP,
        side_linked ? desc : NULL, side_linked ? side : NULL, side_size, NULL);
  cpu = cpu_seconds () - t0;
  rtf = cpu / ((gdouble) done / RATE);

  name = g_strdup_printf ("stream_%s_realtime_factor", label);
  print_figure (name, rtf, "cpu_s/audio_s");
  g_free (name);
  name = g_strdup_printf ("stream_%s_speed", label);
  print_figure (name, 1.0 / rtf, "x_realtime");
  g_free (name);
  name = g_strdup_printf ("stream_%s_ns_per_frame", label);
  print_figure (name, cpu / calls * 1e9, "ns");
  g_free (name);

  rnn_state_slot_get_counters (slot, &c);
  name = g_strdup_printf ("state_%s_bytes_written_per_invocation", label);
  print_figure (name, (gdouble) c.bytes_written_back / c.invocations, "bytes");
  g_free (name);
  name = g_strdup_printf ("state_%s_bytes_side_per_invocation", label);
  print_figure (name, (gdouble) c.bytes_side_copied / c.invocations, "bytes");
  g_free (name);
  name = g_strdup_printf ("state_%s_copies_per_invocation", label);
  print_figure (name, (gdouble) c.copies / c.invocations, "copies");
  g_free (name);

  g_free (side);
  g_free (y);
  dsp_processor_free (p);
  return rtf;
}

#ifdef HAVE_SPEEXDSP
static gdouble
bench_speex (const gfloat *x, guint n_samples)
{
  SpeexPreprocessState *st = speex_preprocess_state_init (HOP, RATE);
  spx_int16_t frame[HOP];
  gint on = 1;
  gdouble t0, cpu, rtf;
  guint done, i;

  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_DENOISE, &on);
  t0 = cpu_seconds ();
  for (done = 0; done + HOP <= n_samples; done += HOP) {
    for (i = 0; i < HOP; i++)
      frame[i] = (spx_int16_t) CLAMP (x[done + i] * 32767.0f, -32768, 32767);
    speex_preprocess_run (st, frame);
  }
  cpu = cpu_seconds () - t0;
  speex_preprocess_state_destroy (st);
  rtf = cpu / ((gdouble) done / RATE);
  print_figure ("speexdsp_realtime_factor", rtf, "cpu_s/audio_s");
  print_figure ("speexdsp_speed", 1.0 / rtf, "x_realtime");
  return rtf;
}
#endif

int
main (int argc, char **argv)
{
  const gchar *path = argc > 1 && *argv[1] != '\0' ? argv[1] : NULL;
  guint seconds = argc > 2 ? (guint) atoi (argv[2]) : 60;
  guint n = MAX (seconds, 1u) * RATE;
  gfloat *x = make_audio (n);
  DspModel *f32 = load_model (path, DSP_WEIGHT_F32);
  const gchar *s8_path = argc > 3 && *argv[3] != '\0' ? argv[3] : NULL;
  DspModel *s8 = load_model (s8_path, DSP_WEIGHT_S8);
  gdouble rtf_f32, rtf_s8;

  print_figure ("audio_seconds", n / (gdouble) RATE, "s");
  print_figure ("model_parameters", dsp_model_get_n_params (f32), "params");
  bench_stages (f32, s8, x, MIN (n / HOP, 2000u));
  rtf_f32 = bench_stream (f32, "f32", x, n, TRUE);
  rtf_s8 = bench_stream (s8, "s8", x, n, TRUE);
  bench_stream (s8, "s8_unlinked", x, n, FALSE);
#ifdef HAVE_SPEEXDSP
  {
    gdouble rtf_speex = bench_speex (x, n);
    print_figure ("ratio_f32_over_speexdsp_cpu", rtf_f32 / rtf_speex, "ratio");
    print_figure ("ratio_s8_over_speexdsp_cpu", rtf_s8 / rtf_speex, "ratio");
  }
#else
  (void) rtf_f32;
  (void) rtf_s8;
#endif
  dsp_model_unref (f32);
  dsp_model_unref (s8);
  g_free (x);
  return 0;
}
