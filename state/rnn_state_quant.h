/* rnndenoise — state library: element-type conversion of state values
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_QUANT_H
#define RNN_STATE_QUANT_H

#include <glib.h>

#include "rnn_state_descriptor.h"

G_BEGIN_DECLS

void rnn_state_quantize (const RnnStateDescriptor *desc, const gfloat *values,
    gpointer out);

void rnn_state_dequantize (const RnnStateDescriptor *desc, gconstpointer in,
    gfloat *values);

gfloat rnn_state_quant_step (const RnnStateDescriptor *desc, guint layer);

G_END_DECLS

#endif /* RNN_STATE_QUANT_H */
