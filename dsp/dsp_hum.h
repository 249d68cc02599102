/* rnndenoise — dsp: the mains hum canceller
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_HUM_H
#define DSP_HUM_H

#include <glib.h>

#include "dsp_frame_config.h"

G_BEGIN_DECLS

/* Harmonics up to this frequency are followed and taken out: mains hum
 * has most of its energy below it, and the voice's first harmonics, which
 * a gain mask cannot separate from a hum's, lie there too. */
#define DSP_HUM_MAX_HZ 1000.0f

/* The tracked fundamental stays this close to 50 or 60 Hz (a share of
 * it): the grid's own drift is under 0.1 %, a recording's clock adds a
 * little. */
#define DSP_HUM_MAX_DEVIATION 0.006f

typedef struct _DspHum DspHum;

DspHum *dsp_hum_new (const DspFrameConfig *cfg);

void dsp_hum_free (DspHum *self);

gsize dsp_hum_history_size (const DspHum *self);

void dsp_hum_process (DspHum *self, gfloat *spectrum, gboolean remove);

gfloat dsp_hum_get_fundamental (const DspHum *self);

void dsp_hum_save (const DspHum *self, gfloat *out);

void dsp_hum_load (DspHum *self, const gfloat *in);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspHum, dsp_hum_free)

G_END_DECLS

#endif /* DSP_HUM_H */
