/* rnndenoise — dsp: gated recurrent unit cell
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_GRU_H
#define DSP_GRU_H

#include <glib.h>

#include "dsp/dsp_cell.h"
#include "dsp/dsp_dense.h"

G_BEGIN_DECLS

/**
 * DspGruWeights:
 * @input_size: I, values per batch row of the input.
 * @hidden_size: H, values per batch row of the hidden state.
 * @w_ih: 3H x I, the rows of the r, z and n gates in that order (PyTorch's
 *   weight_ih_l<k>).
 * @w_hh: 3H x H, gates r, z, n (PyTorch's weight_hh_l<k>).
 * @b_ih: 3H floats (PyTorch's bias_ih_l<k>).
 * @b_hh: 3H floats (PyTorch's bias_hh_l<k>).
 *
 * Borrowed views of one GRU layer's parameters, laid out as PyTorch's
 * nn.GRU stores them, so a trained model exports without reordering.
 * @w_ih and @w_hh may each be float or int8 with per-row scales.
 */
typedef struct
{
  guint input_size;
  guint hidden_size;
  DspMatrix w_ih;
  DspMatrix w_hh;
  const gfloat *b_ih;
  const gfloat *b_hh;
} DspGruWeights;

DspCell *dsp_gru_new (const DspGruWeights *weights);

const DspGruWeights *dsp_gru_get_weights (const DspCell *cell);

G_END_DECLS

#endif /* DSP_GRU_H */
