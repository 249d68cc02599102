/* rnndenoise — the model embedded in the plugin at build time
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RNN_DENOISE_MODEL_DATA_H__
#define __GST_RNN_DENOISE_MODEL_DATA_H__

#include <glib.h>

G_BEGIN_DECLS

/* Returns: (transfer full): the bytes of dsp/models/rnndenoise-48k.rnnm, as
 * built into the plugin (static storage, never freed). */
GBytes *gst_rnn_denoise_default_model_bytes (void);

G_END_DECLS

#endif /* __GST_RNN_DENOISE_MODEL_DATA_H__ */
