/* rnndenoise — fuzzing: model files into the loader and a processor
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each input is loaded with dsp_model_new_from_bytes() twice: as it is, and
 * with its file_size field and trailing CRC-32 rewritten, so that mutations
 * reach the checks behind the checksum. A model that loads must describe
 * itself consistently (layers, heads, GRU sizes, state descriptor, id and
 * checksum), must not have allocated more than its bytes, and must run: a
 * one-channel DspProcessor processes a short speech-like signal in two calls
 * and drains, giving exactly as many samples as it took, then re-imports its
 * own export. Non-finite output samples are reported on stderr (once per
 * process); with RNNDENOISE_FUZZ_STRICT_FINITE=1 in the environment they
 * fail the input instead.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsp/dsp_error.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_processor.h"
#include "tests/fuzz/fuzz_common.h"

/* What loading may allocate beyond the bytes given: the model object, the
 * layer table, cells and an error message. */
#define LOAD_SLACK (256 * 1024)

static void
check_load_allocations (const FuzzAllocStats *stats, gsize size)
{
  if (!fuzz_alloc_tracking ())
    return;
  FUZZ_CHECK (stats->largest <= size + LOAD_SLACK,
      "loading %" G_GSIZE_FORMAT " bytes allocated a block of %" G_GSIZE_FORMAT,
      size, stats->largest);
  FUZZ_CHECK (stats->total <= 2 * size + LOAD_SLACK,
      "loading %" G_GSIZE_FORMAT " bytes allocated %" G_GSIZE_FORMAT
      " bytes in %" G_GSIZE_FORMAT " blocks",
      size, stats->total, stats->count);
}

/* What docs/model-format.md promises about a model that loaded. */
static void
check_description (const DspModel *model, const guint8 *data, gsize size)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (model);
  guint n_layers = dsp_model_get_n_layers (model);
  guint n_inputs = dsp_model_get_n_inputs (model);
  guint outputs[DSP_MODEL_MAX_LAYERS];
  DspLayerInfo info, head;
  RnnStateDescriptor desc;
  gsize n_params = 0, hidden = 0;
  guint i, n_gru = 0;

  guint version = dsp_model_get_format_version (model);
  gfloat protection = dsp_model_get_speech_protection (model);

  FUZZ_CHECK (size >= DSP_MODEL_HEADER_SIZE_V1 + DSP_MODEL_CHECKSUM_SIZE,
      "a model of %" G_GSIZE_FORMAT " bytes loaded", size);
  FUZZ_CHECK (version == fuzz_get_u32 (data + 4) && version >= 1
          && version <= DSP_MODEL_FORMAT_VERSION,
      "format version %u, the header says %u", version,
      fuzz_get_u32 (data + 4));
  FUZZ_CHECK (protection >= 0.0f && protection <= DSP_MAX_SPEECH_PROTECTION,
      "speech protection %g", (gdouble) protection);
  FUZZ_CHECK (version != 1 || protection == DSP_DEFAULT_SPEECH_PROTECTION,
      "a version 1 file gave speech protection %g", (gdouble) protection);
  FUZZ_CHECK (dsp_model_get_checksum (model) == fuzz_get_u32 (data + size - 4),
      "checksum %08x, the file ends with %08x", dsp_model_get_checksum (model),
      fuzz_get_u32 (data + size - 4));
  FUZZ_CHECK (dsp_model_get_id (model) == fuzz_fnv1a64 (data, size - 4),
      "the model id is not the FNV-1a 64 of the file");
  FUZZ_CHECK (dsp_frame_config_validate (cfg, NULL),
      "the model's frame configuration does not validate");
  FUZZ_CHECK (n_layers >= 1 && n_layers <= DSP_MODEL_MAX_LAYERS, "%u layers",
      n_layers);
  FUZZ_CHECK (dsp_model_get_lookahead (model) <= DSP_MAX_LOOKAHEAD
          && dsp_model_get_lookahead (model) == fuzz_get_u32 (data + 44),
      "lookahead %u, the header says %u", dsp_model_get_lookahead (model),
      fuzz_get_u32 (data + 44));
  FUZZ_CHECK (n_inputs
          == dsp_model_get_n_features (model)
              * (1 + dsp_model_get_lookahead (model)),
      "%u inputs per row", n_inputs);

  for (i = 0; i < n_layers; i++) {
    FUZZ_CHECK (dsp_model_get_layer_info (model, i, &info), "layer %u", i);
    FUZZ_CHECK (info.kind == DSP_LAYER_DENSE || info.kind == DSP_LAYER_GRU,
        "layer %u: kind %d", i, (gint) info.kind);
    FUZZ_CHECK (info.input <= i, "layer %u reads layer %u", i, info.input);
    FUZZ_CHECK (info.input_size
            == (info.input == DSP_MODEL_INPUT_FEATURES
                    ? n_inputs
                    : outputs[info.input - 1]),
        "layer %u: input size %u does not chain", i, info.input_size);
    FUZZ_CHECK (info.output_size >= 1
            && info.output_size <= DSP_MODEL_MAX_LAYER_SIZE,
        "layer %u: output size %u", i, info.output_size);
    outputs[i] = info.output_size;
    n_params += info.n_params;
    if (info.kind == DSP_LAYER_GRU) {
      FUZZ_CHECK (info.state_layer == (gint) n_gru,
          "GRU layer %u has state layer %d, expected %u", i, info.state_layer,
          n_gru);
      FUZZ_CHECK (dsp_model_get_gru_hidden_size (model, n_gru)
              == info.output_size,
          "GRU %u: hidden size", n_gru);
      hidden += info.output_size;
      n_gru++;
    } else {
      FUZZ_CHECK (info.state_layer == -1, "dense layer %u has state layer %d",
          i, info.state_layer);
    }
  }
  FUZZ_CHECK (!dsp_model_get_layer_info (model, n_layers, &info),
      "a layer past the last");
  FUZZ_CHECK (n_params == dsp_model_get_n_params (model), "parameter count");
  FUZZ_CHECK (n_gru >= 1 && n_gru <= RNN_STATE_MAX_LAYERS
          && n_gru == dsp_model_get_n_gru_layers (model),
      "%u GRU layers", n_gru);

  FUZZ_CHECK (dsp_model_get_layer_info (model, dsp_model_get_gain_layer (model),
                  &head)
          && head.kind == DSP_LAYER_DENSE
          && head.activation == DSP_ACTIVATION_SIGMOID
          && head.output_size == cfg->n_bands,
      "the gain head is not a dense sigmoid layer of n_bands outputs");
  FUZZ_CHECK (dsp_model_get_layer_info (model, dsp_model_get_vad_layer (model),
                  &head)
          && head.kind == DSP_LAYER_DENSE
          && head.activation == DSP_ACTIVATION_SIGMOID && head.output_size == 1,
      "the VAD head is not a dense sigmoid layer of one output");

  dsp_model_init_state_descriptor (model, 1, 0, &desc);
  FUZZ_CHECK (rnn_state_descriptor_validate (&desc, NULL),
      "the model's state descriptor does not validate");
  FUZZ_CHECK (desc.n_layers == n_gru, "state layers");
  FUZZ_CHECK (rnn_state_descriptor_n_values (&desc) == hidden
          && dsp_model_state_size (model, 1) == hidden,
      "state size");
}

/* A speech-like test signal: two harmonics and a little noise (an LCG, so
 * that every run and platform gives the same samples). */
static void
make_signal (gfloat *x, guint n, guint rate)
{
  guint32 lcg = 12345;
  guint i;

  for (i = 0; i < n; i++) {
    gdouble t = (gdouble) i / rate;

    lcg = lcg * 1664525u + 1013904223u;
    x[i] = (gfloat) (0.3 * sin (2 * G_PI * 180.0 * t)
        + 0.1 * sin (2 * G_PI * 540.0 * t)
        + 0.05 * ((lcg >> 8) / 8388608.0 - 1.0));
  }
}

static void
report_nonfinite (guint n_bad, guint n, gsize size)
{
  static gboolean reported = FALSE;

  if (g_getenv ("RNNDENOISE_FUZZ_STRICT_FINITE") != NULL)
    FUZZ_CHECK (n_bad == 0,
        "%u of %u output samples are not finite (a model of %" G_GSIZE_FORMAT
        " bytes)",
        n_bad, n, size);
  if (n_bad > 0 && !reported) {
    fprintf (stderr,
        "fuzz_model: %u of %u output samples are not finite (a model of "
        "%" G_GSIZE_FORMAT " bytes); reported once\n",
        n_bad, n, size);
    reported = TRUE;
  }
}

/* One channel through the processor: two calls, a drain, an export that
 * the processor takes back. */
static void
run_processor (DspModel *model, gsize size)
{
  DspProcessorReport report;
  DspProcessor *proc;
  GError *error = NULL;
  GBytes *state;
  gfloat *x, *y;
  guint hop, latency, n, first, produced, drained, i, n_bad = 0;

  proc = dsp_processor_new (model, 1, &error);
  FUZZ_CHECK (proc != NULL, "a loaded model makes no processor: %s",
      error->message);
  hop = dsp_processor_get_hop (proc);
  latency = dsp_processor_get_latency (proc);
  FUZZ_CHECK (hop == dsp_model_get_frame_config (model)->hop && latency >= hop
          && latency <= 4 * hop,
      "hop %u, latency %u", hop, latency);

  n = latency + hop + 37;
  first = n / 3;
  x = g_new (gfloat, n);
  y = g_new0 (gfloat, n + latency);
  make_signal (x, n, dsp_model_get_frame_config (model)->sample_rate);

  produced = dsp_processor_process (proc, x, y, first, NULL, NULL, 0, &report);
  FUZZ_CHECK (report.nonfinite_samples == 0, "finite input counted as not");
  produced += dsp_processor_process (proc, x + first, y + produced, n - first,
      NULL, NULL, 0, &report);
  FUZZ_CHECK (report.frames >= 1, "no frame in %u samples", n);
  FUZZ_CHECK (report.vad_max >= 0.0f && report.vad_max <= 1.0f, "VAD %g",
      (gdouble) report.vad_max);
  FUZZ_CHECK (produced == n - latency, "%u samples out of %u, latency %u",
      produced, n, latency);
  drained = dsp_processor_drain (proc, y + produced);
  FUZZ_CHECK (produced + drained == n, "%u + %u samples out of %u", produced,
      drained, n);
  for (i = 0; i < n; i++)
    n_bad += !isfinite (y[i]);
  report_nonfinite (n_bad, n, size);

  state = dsp_processor_export (proc);
  FUZZ_CHECK (dsp_processor_import (proc, g_bytes_get_data (state, NULL),
                  g_bytes_get_size (state), &error),
      "the processor refuses its own export: %s", error->message);
  g_bytes_unref (state);

  g_free (y);
  g_free (x);
  dsp_processor_free (proc);
}

static void
check_bytes (const guint8 *data, gsize size)
{
  GBytes *bytes = g_bytes_new_static (data, size);
  FuzzAllocStats stats;
  GError *error = NULL;
  DspModel *model;

  fuzz_alloc_begin ();
  model = dsp_model_new_from_bytes (bytes, &error);
  fuzz_alloc_end (&stats);
  check_load_allocations (&stats, size);

  if (model == NULL) {
    FUZZ_CHECK (error != NULL && error->domain == DSP_ERROR
            && error->message[0] != '\0',
        "a refused model without a DSP_ERROR");
    g_error_free (error);
  } else {
    FUZZ_CHECK (error == NULL, "a loaded model set an error");
    check_description (model, data, size);
    run_processor (model, size);
    dsp_model_unref (model);
  }
  g_bytes_unref (bytes);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  guint8 *resealed;

  check_bytes (data, size);
  if (size >= 12) {
    resealed = g_memdup2 (data, size);
    fuzz_reseal_model (resealed, size);
    if (memcmp (resealed, data, size) != 0)
      check_bytes (resealed, size);
    g_free (resealed);
  }
  return 0;
}
