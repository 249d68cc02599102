/* rnndenoise — dsp: default and validated frame configurations
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_FRAME_CONFIG_H
#define DSP_FRAME_CONFIG_H

#include <glib.h>

#include "dsp_config.h"

G_BEGIN_DECLS

/* Sample rates dsp_frame_config_validate() accepts (Hz). */
#define DSP_MIN_SAMPLE_RATE 8000
#define DSP_MAX_SAMPLE_RATE 192000

gboolean dsp_frame_config_init_default (DspFrameConfig *cfg, guint sample_rate,
    GError **error);

gboolean dsp_frame_config_init_layout (DspFrameConfig *cfg, guint sample_rate,
    guint32 layout_id, GError **error);

gboolean dsp_frame_config_validate (const DspFrameConfig *cfg, GError **error);

guint dsp_frame_config_get_n_bins (const DspFrameConfig *cfg);

G_END_DECLS

#endif /* DSP_FRAME_CONFIG_H */
