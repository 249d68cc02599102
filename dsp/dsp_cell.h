/* rnndenoise — dsp: the recurrent cell interface
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_CELL_H
#define DSP_CELL_H

#include <glib.h>

#include "state/rnn_state_descriptor.h"

G_BEGIN_DECLS

typedef struct _DspCell DspCell;

/**
 * DspCellClass:
 * @kind: the state cell kind this cell reads and writes.
 * @step: advances @batch rows by one frame. @input holds batch x input_size
 *   values (row-major), @hidden holds batch x hidden_size values, read as
 *   h(t-1) and overwritten with h(t). @scratch holds scratch_size floats for
 *   the cell's intermediate values. Never allocates, never fails.
 * @free: frees the cell (its weights are borrowed or owned as the
 *   constructor says).
 *
 * The table every recurrent cell implements; cells are immutable once made,
 * so one cell may be stepped from several threads on different states.
 */
typedef struct
{
  RnnStateCellKind kind;
  void (*step) (const DspCell *cell, const gfloat *input, gfloat *hidden,
      guint batch, gfloat *scratch);
  void (*free) (DspCell *cell);
} DspCellClass;

/**
 * DspCell:
 * @klass: the implementation.
 * @input_size: values per batch row of the input.
 * @hidden_size: values per batch row of the hidden state (and of the output).
 * @scratch_size: floats of scratch memory one step needs (for all rows).
 *
 * The public head of every cell; implementations embed it first.
 */
struct _DspCell
{
  const DspCellClass *klass;
  guint input_size;
  guint hidden_size;
  gsize scratch_size;
};

void dsp_cell_step (const DspCell *cell, const gfloat *input, gfloat *hidden,
    guint batch, gfloat *scratch);

void dsp_cell_free (DspCell *cell);

DspCell *dsp_cell_teach_new (guint hidden_size);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspCell, dsp_cell_free)

G_END_DECLS

#endif /* DSP_CELL_H */
