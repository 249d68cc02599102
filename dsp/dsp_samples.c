/* rnndenoise — dsp: sample format conversions and levels shared by every host
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element, the library and the tools convert 16-bit samples here, so
 * that a stream gives the same samples whichever of them runs it.
 */
#include "config.h"

#include <math.h>

#include "dsp_samples.h"

/**
 * dsp_samples_from_s16:
 * @in: @n signed 16-bit samples
 * @out: @n floats (nominal range -1..1)
 * @n: samples (all channels)
 *
 * Scales by 1/32768, so -32768 becomes exactly -1.
 */
void
dsp_samples_from_s16 (const gint16 *in, gfloat *out, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    out[i] = in[i] / 32768.0f;
}

/**
 * dsp_samples_to_s16:
 * @in: @n floats
 * @out: @n signed 16-bit samples
 * @n: samples (all channels)
 *
 * Scales by 32768, rounds to nearest and saturates; the inverse of
 * dsp_samples_from_s16() for every 16-bit value. NaN becomes 0.
 */
void
dsp_samples_to_s16 (const gfloat *in, gint16 *out, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    gfloat x = isnan (in[i]) ? 0.0f : in[i] * 32768.0f;

    out[i] = (gint16) (x >= 32767.0f ? 32767
            : x <= -32768.0f         ? -32768
                                     : lrintf (x));
  }
}

/**
 * dsp_samples_energy:
 * @x: @n floats
 * @n: samples (all channels)
 *
 * Returns: the sum of the squares, accumulated in double precision (a
 * float sum of a long buffer loses its small samples).
 */
gdouble
dsp_samples_energy (const gfloat *x, gsize n)
{
  gdouble energy = 0.0;
  gsize i;

  for (i = 0; i < n; i++)
    energy += (gdouble) x[i] * x[i];
  return energy;
}
