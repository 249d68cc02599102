/* rnndenoise — dsp: sample format conversions and levels shared by every host
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_SAMPLES_H
#define DSP_SAMPLES_H

#include <glib.h>

G_BEGIN_DECLS

void dsp_samples_from_s16 (const gint16 *in, gfloat *out, gsize n);

void dsp_samples_to_s16 (const gfloat *in, gint16 *out, gsize n);

gdouble dsp_samples_energy (const gfloat *x, gsize n);

G_END_DECLS

#endif /* DSP_SAMPLES_H */
