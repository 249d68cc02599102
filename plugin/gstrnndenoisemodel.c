/* rnndenoise — the shared, lazily loaded model
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_model.h"

#include "gstrnndenoiseprivate.h"
#include "gstrnndenoisemodeldata.h"

#define GST_CAT_DEFAULT gst_rnn_denoise_debug

/* Returns a new reference to the element's model, loading it first if
 * needed: the embedded one when the model property is unset. */
DspModel *
gst_rnn_denoise_get_model (GstRnnDenoise *self, GError **error)
{
  DspModel *model, *loaded;
  gchar *path;
  GBytes *bytes;

  GST_OBJECT_LOCK (self);
  model = self->model != NULL ? dsp_model_ref (self->model) : NULL;
  path = g_strdup (self->model_path);
  GST_OBJECT_UNLOCK (self);
  if (model != NULL) {
    g_free (path);
    return model;
  }

  if (path != NULL) {
    loaded = dsp_model_new_from_file (path, error);
  } else {
    bytes = gst_rnn_denoise_default_model_bytes ();
    loaded = dsp_model_new_from_bytes (bytes, error);
    g_bytes_unref (bytes);
  }
  if (loaded == NULL) {
    g_free (path);
    return NULL;
  }
  GST_DEBUG_OBJECT (self, "loaded model %s (id %016" G_GINT64_MODIFIER "x)",
      path != NULL ? path : "(embedded)", dsp_model_get_id (loaded));
  g_free (path);

  /* Another thread may have loaded it meanwhile: keep the first. */
  GST_OBJECT_LOCK (self);
  if (self->model == NULL)
    self->model = dsp_model_ref (loaded);
  model = dsp_model_ref (self->model);
  GST_OBJECT_UNLOCK (self);
  dsp_model_unref (loaded);
  return model;
}

GstCaps *
gst_rnn_denoise_audio_caps (GstRnnDenoise *self)
{
  GstCaps *caps
      = gst_static_pad_template_get_caps (&gst_rnn_denoise_sink_template);
  DspModel *model;

  GST_OBJECT_LOCK (self);
  model = self->model != NULL ? dsp_model_ref (self->model) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (model != NULL) {
    caps = gst_caps_make_writable (caps);
    gst_caps_set_simple (caps, "rate", G_TYPE_INT,
        (gint) dsp_model_get_frame_config (model)->sample_rate, NULL);
    dsp_model_unref (model);
  }
  return caps;
}

/* The algorithmic delay in time: the processor's latency at the model's
 * rate (20 ms for the embedded model). */
GstClockTime
gst_rnn_denoise_latency (GstRnnDenoise *self)
{
  const DspFrameConfig *cfg;
  GstClockTime latency;
  DspModel *model;

  model = gst_rnn_denoise_get_model (self, NULL);
  if (model == NULL)
    return 0;
  cfg = dsp_model_get_frame_config (model);
  /* STFT delay (window - hop) plus one hop of frame buffering. */
  latency
      = gst_util_uint64_scale_int (cfg->window, GST_SECOND, cfg->sample_rate);
  dsp_model_unref (model);
  return latency;
}

gboolean
gst_rnn_denoise_load_model (GstRnnDenoise *self)
{
  GError *error = NULL;
  DspModel *model = gst_rnn_denoise_get_model (self, &error);
  gchar *path;

  if (model != NULL) {
    dsp_model_unref (model);
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  path = g_strdup (self->model_path);
  GST_OBJECT_UNLOCK (self);
  if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Model file \"%s\" not found.", path), ("%s", error->message));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not load the model \"%s\".",
            path != NULL ? path : "(embedded)"),
        ("%s", error->message));
  g_free (path);
  g_clear_error (&error);
  return FALSE;
}
