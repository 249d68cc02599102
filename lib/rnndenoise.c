/* rnndenoise — the public C library: a facade over DspProcessor and DspModel
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib.h>

#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"
#include "dsp/dsp_samples.h"
#include "plugin/gstrnndenoisemodeldata.h"

#include "rnndenoise.h"

/* Samples per channel converted per step of the int16 path. */
#define INT16_BLOCK 512

/* An RnnDenoiseModel is a DspModel: same object, same reference count. */
#define DSP_MODEL(m) ((DspModel *) (m))

struct RnnDenoise
{
  DspProcessor *processor; /* owned */
  DspModel *model;         /* owned reference */
  guint channels;
  guint rate;
  guint hop;
  guint latency;
  gfloat *block; /* owned; INT16_BLOCK x channels, the int16 path */
  gfloat vad;    /* the last completed frame's, largest over channels */
  gfloat vad_threshold;
  gfloat vad_hold_ms;
  gchar message[256];
};

const char *
rnndenoise_version (void)
{
  return VERSION;
}

const char *
rnndenoise_strerror (int error)
{
  switch (error) {
    case RNNDENOISE_OK:
      return "success";
    case RNNDENOISE_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case RNNDENOISE_ERROR_MODEL:
      return "the model could not be loaded";
    case RNNDENOISE_ERROR_SNAPSHOT:
      return "the snapshot was refused";
    case RNNDENOISE_ERROR_BUFFER_TOO_SMALL:
      return "buffer too small";
    default:
      return "unknown error";
  }
}

static void
set_code (int *error, int code)
{
  if (error != NULL)
    *error = code;
}

static void
set_message (RnnDenoise *st, const gchar *message)
{
  g_strlcpy (st->message, message != NULL ? message : "", sizeof st->message);
}

RnnDenoiseModel *
rnndenoise_model_new_default (int *error)
{
  return rnndenoise_model_new_default_for_rate (48000, error);
}

RnnDenoiseModel *
rnndenoise_model_new_default_for_rate (int sample_rate, int *error)
{
  GBytes *bytes;
  guint i;

  /* Each built-in model knows its rate: parse them in turn (a few ms). */
  for (i = 0; (bytes = gst_rnn_denoise_default_model_bytes (i)) != NULL; i++) {
    DspModel *model = dsp_model_new_from_bytes (bytes, NULL);

    g_bytes_unref (bytes);
    if (model != NULL
        && (int) dsp_model_get_frame_config (model)->sample_rate
            == sample_rate) {
      set_code (error, RNNDENOISE_OK);
      return (RnnDenoiseModel *) model;
    }
    g_clear_pointer (&model, dsp_model_unref);
  }
  set_code (error, RNNDENOISE_ERROR_MODEL);
  return NULL;
}

RnnDenoiseModel *
rnndenoise_model_new_from_file (const char *path, int *error, char *message,
    size_t message_size)
{
  GError *err = NULL;
  DspModel *model;

  if (message != NULL && message_size > 0)
    message[0] = '\0';
  if (path == NULL) {
    set_code (error, RNNDENOISE_ERROR_INVALID_ARGUMENT);
    return NULL;
  }
  model = dsp_model_new_from_file (path, &err);
  if (model == NULL) {
    if (message != NULL && message_size > 0)
      g_strlcpy (message, err->message, message_size);
    g_clear_error (&err);
    set_code (error, RNNDENOISE_ERROR_MODEL);
    return NULL;
  }
  set_code (error, RNNDENOISE_OK);
  return (RnnDenoiseModel *) model;
}

RnnDenoiseModel *
rnndenoise_model_ref (RnnDenoiseModel *model)
{
  if (model == NULL)
    return NULL;
  return (RnnDenoiseModel *) dsp_model_ref (DSP_MODEL (model));
}

void
rnndenoise_model_unref (RnnDenoiseModel *model)
{
  if (model != NULL)
    dsp_model_unref (DSP_MODEL (model));
}

int
rnndenoise_model_get_sample_rate (const RnnDenoiseModel *model)
{
  if (model == NULL)
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  return (int) dsp_model_get_frame_config ((const DspModel *) model)
      ->sample_rate;
}

static void
apply_vad_gate (RnnDenoise *st)
{
  gfloat frames = st->vad_hold_ms * (gfloat) st->rate / 1000.0f / st->hop;

  dsp_processor_set_vad_gate (st->processor, st->vad_threshold,
      (guint) lrintf (MAX (frames, 0.0f)));
}

RnnDenoise *
rnndenoise_new (RnnDenoiseModel *model, int channels, int *error)
{
  RnnDenoise *st;
  DspModel *m;
  DspProcessor *processor;

  if (channels < 1 || channels > RNN_STATE_MAX_BATCH) {
    set_code (error, RNNDENOISE_ERROR_INVALID_ARGUMENT);
    return NULL;
  }
  if (model != NULL) {
    m = dsp_model_ref (DSP_MODEL (model));
  } else {
    m = DSP_MODEL (rnndenoise_model_new_default (error));
    if (m == NULL)
      return NULL;
  }
  processor = dsp_processor_new (m, (guint) channels, NULL);
  if (processor == NULL) {
    dsp_model_unref (m);
    set_code (error, RNNDENOISE_ERROR_MODEL);
    return NULL;
  }

  st = g_new0 (RnnDenoise, 1);
  st->processor = processor;
  st->model = m;
  st->channels = (guint) channels;
  st->rate = dsp_model_get_frame_config (m)->sample_rate;
  st->hop = dsp_processor_get_hop (processor);
  st->latency = dsp_processor_get_latency (processor);
  st->block = g_new0 (gfloat, (gsize) INT16_BLOCK * st->channels);
  st->vad_hold_ms = RNNDENOISE_DEFAULT_VAD_HOLD_MS;
  apply_vad_gate (st);
  set_code (error, RNNDENOISE_OK);
  return st;
}

void
rnndenoise_free (RnnDenoise *st)
{
  if (st == NULL)
    return;
  dsp_processor_free (st->processor);
  dsp_model_unref (st->model);
  g_free (st->block);
  g_free (st);
}

int
rnndenoise_get_channels (const RnnDenoise *st)
{
  return st != NULL ? (int) st->channels : RNNDENOISE_ERROR_INVALID_ARGUMENT;
}

int
rnndenoise_get_sample_rate (const RnnDenoise *st)
{
  return st != NULL ? (int) st->rate : RNNDENOISE_ERROR_INVALID_ARGUMENT;
}

int
rnndenoise_get_latency (const RnnDenoise *st)
{
  return st != NULL ? (int) st->latency : RNNDENOISE_ERROR_INVALID_ARGUMENT;
}

int
rnndenoise_get_frame_size (const RnnDenoise *st)
{
  return st != NULL ? (int) st->hop : RNNDENOISE_ERROR_INVALID_ARGUMENT;
}

/* Runs the processor and places what it wrote at the end of @out, silence
 * before it: during the stream's first latency samples the processor
 * writes fewer samples than it takes. */
static void
process_block (RnnDenoise *st, const gfloat *in, gfloat *out, guint n)
{
  DspProcessorReport report;
  guint written, c;

  written = dsp_processor_process (st->processor, in, out, n, NULL, NULL, 0,
      &report);
  if (written < n) {
    memmove (out + (gsize) (n - written) * st->channels, out,
        (gsize) written * st->channels * sizeof (gfloat));
    memset (out, 0, (gsize) (n - written) * st->channels * sizeof (gfloat));
  }
  if (report.frames > 0) {
    st->vad = 0.0f;
    for (c = 0; c < st->channels; c++)
      st->vad = MAX (st->vad, dsp_processor_get_frame_vad (st->processor, c));
  }
}

int
rnndenoise_process_float (RnnDenoise *st, const float *in, float *out,
    int n_samples)
{
  if (st == NULL || n_samples < 0 || (n_samples > 0 && (!in || !out)))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  if (n_samples > 0)
    process_block (st, in, out, (guint) n_samples);
  return n_samples;
}

int
rnndenoise_process_int16 (RnnDenoise *st, const int16_t *in, int16_t *out,
    int n_samples)
{
  guint done = 0, n, len;

  if (st == NULL || n_samples < 0 || (n_samples > 0 && (!in || !out)))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  while (done < (guint) n_samples) {
    n = MIN ((guint) n_samples - done, INT16_BLOCK);
    len = n * st->channels;
    dsp_samples_from_s16 (in + (gsize) done * st->channels, st->block, len);
    process_block (st, st->block, st->block, n);
    dsp_samples_to_s16 (st->block, out + (gsize) done * st->channels, len);
    done += n;
  }
  return n_samples;
}

int
rnndenoise_drain (RnnDenoise *st, float *out)
{
  if (st == NULL || out == NULL)
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  return (int) dsp_processor_drain (st->processor, out);
}

float
rnndenoise_get_vad (const RnnDenoise *st)
{
  return st != NULL ? st->vad : 0.0f;
}

void
rnndenoise_reset (RnnDenoise *st)
{
  if (st == NULL)
    return;
  dsp_processor_reset (st->processor, TRUE);
  st->vad = 0.0f;
}

int
rnndenoise_set_attenuation_limit (RnnDenoise *st, float db)
{
  if (st == NULL || !isfinite (db) || db < 0.0f)
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  dsp_processor_set_attenuation_limit (st->processor, db);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_speech_protection (RnnDenoise *st, float amount)
{
  if (st == NULL
      || !(amount >= 0.0f && amount <= RNNDENOISE_MAX_SPEECH_PROTECTION))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  dsp_processor_set_speech_protection (st->processor, amount);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_stationary_suppression (RnnDenoise *st, float amount)
{
  if (st == NULL
      || !(amount >= 0.0f && amount <= RNNDENOISE_MAX_STATIONARY_SUPPRESSION))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  dsp_processor_set_stationary_suppression (st->processor, amount);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_harmonic_lift (RnnDenoise *st, float lift)
{
  if (st == NULL || !(lift >= 0.0f && lift <= RNNDENOISE_MAX_HARMONIC_LIFT))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  dsp_processor_set_harmonic_lift (st->processor, lift);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_speech_hold (RnnDenoise *st, float hold)
{
  if (st == NULL || !(hold >= 0.0f && hold <= 1.0f))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  dsp_processor_set_speech_hold (st->processor, hold);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_level_normalization (RnnDenoise *st, int enabled)
{
  if (st == NULL || (enabled != 0 && enabled != 1))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  dsp_processor_set_level_normalization (st->processor, enabled);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_hum_removal (RnnDenoise *st, int enabled)
{
  if (st == NULL || (enabled != 0 && enabled != 1))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  dsp_processor_set_hum_removal (st->processor, enabled);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_vad_threshold (RnnDenoise *st, float threshold)
{
  if (st == NULL || !(threshold >= 0.0f && threshold <= 1.0f))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  st->vad_threshold = threshold;
  apply_vad_gate (st);
  return RNNDENOISE_OK;
}

int
rnndenoise_set_vad_hold (RnnDenoise *st, float ms)
{
  if (st == NULL || !(ms >= 0.0f && ms <= 60000.0f))
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  st->vad_hold_ms = ms;
  apply_vad_gate (st);
  return RNNDENOISE_OK;
}

int
rnndenoise_export_state (RnnDenoise *st, void *data, size_t *size)
{
  GBytes *bytes;
  gsize n;
  int ret = RNNDENOISE_OK;

  if (st == NULL || size == NULL)
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  bytes = dsp_processor_export (st->processor);
  n = g_bytes_get_size (bytes);
  if (data != NULL) {
    if (*size < n) {
      g_snprintf (st->message, sizeof st->message,
          "snapshot of %" G_GSIZE_FORMAT " bytes, buffer of %" G_GSIZE_FORMAT,
          n, (gsize) *size);
      ret = RNNDENOISE_ERROR_BUFFER_TOO_SMALL;
    } else {
      memcpy (data, g_bytes_get_data (bytes, NULL), n);
    }
  }
  *size = n;
  g_bytes_unref (bytes);
  return ret;
}

int
rnndenoise_import_state (RnnDenoise *st, const void *data, size_t size)
{
  GError *err = NULL;

  if (st == NULL || data == NULL)
    return RNNDENOISE_ERROR_INVALID_ARGUMENT;
  if (!dsp_processor_import (st->processor, data, size, &err)) {
    set_message (st, err->message);
    g_clear_error (&err);
    return RNNDENOISE_ERROR_SNAPSHOT;
  }
  set_message (st, NULL);
  return RNNDENOISE_OK;
}

const char *
rnndenoise_get_error_message (const RnnDenoise *st)
{
  return st != NULL ? st->message : "";
}
