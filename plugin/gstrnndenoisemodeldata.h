/* rnndenoise — the models embedded in the plugin at build time
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RNN_DENOISE_MODEL_DATA_H__
#define __GST_RNN_DENOISE_MODEL_DATA_H__

#include <glib.h>

G_BEGIN_DECLS

/* Returns: (transfer full) (nullable): the bytes of the @index-th model built
 * in, one per sample rate (dsp/models/rnndenoise-48k.rnnm, then
 * rnndenoise-16k.rnnm; static storage, never freed), or NULL past the
 * last. */
GBytes *gst_rnn_denoise_default_model_bytes (guint index);

G_END_DECLS

#endif /* __GST_RNN_DENOISE_MODEL_DATA_H__ */
