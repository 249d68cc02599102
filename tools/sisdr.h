/* rnndenoise — tools: scale-invariant signal-to-distortion ratio
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef SISDR_H
#define SISDR_H

#include <glib.h>

G_BEGIN_DECLS

gdouble sisdr_compute (const gdouble *reference, gsize n_reference,
    const gdouble *estimate, gsize n_estimate, gint64 delay, gsize *n_compared);

gint64 sisdr_find_delay (const gdouble *const *references, gsize n_reference,
    const gdouble *const *estimates, gsize n_estimate, guint n_channels,
    gint64 max_delay);

G_END_DECLS

#endif /* SISDR_H */
