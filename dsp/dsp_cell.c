/* rnndenoise — dsp: the recurrent cell interface and the teaching cell
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dsp_cell.h"

/**
 * dsp_cell_step:
 * @cell: a cell
 * @input: batch x cell->input_size values
 * @hidden: batch x cell->hidden_size values: h(t-1) in, h(t) out
 * @batch: rows
 * @scratch: cell->scratch_size floats (may be NULL if that is 0)
 *
 * Advances every row by one frame. Never allocates, never fails; safe to
 * call from several threads on one cell with different @hidden and @scratch.
 */
void
dsp_cell_step (const DspCell *cell, const gfloat *input, gfloat *hidden,
    guint batch, gfloat *scratch)
{
  cell->klass->step (cell, input, hidden, batch, scratch);
}

/**
 * dsp_cell_free:
 * @cell: (nullable): a cell
 */
void
dsp_cell_free (DspCell *cell)
{
  if (cell != NULL)
    cell->klass->free (cell);
}

/* The teaching recurrence h' = 2h + x, elementwise. Its value after k frames
 * of x = 1 from h = 0 is 2^k - 1, so a state that was silently
 * re-initialised, skipped a writeback or was torn is visible at once. */
static void
teach_step (const DspCell *cell, const gfloat *input, gfloat *hidden,
    guint batch, gfloat *scratch)
{
  gsize i, n = (gsize) batch * cell->hidden_size;

  (void) scratch;
  for (i = 0; i < n; i++)
    hidden[i] = 2.0f * hidden[i] + input[i];
}

static void
teach_free (DspCell *cell)
{
  g_free (cell);
}

static const DspCellClass teach_class = {
  .kind = RNN_STATE_CELL_TEACH,
  .step = teach_step,
  .free = teach_free,
};

/**
 * dsp_cell_teach_new:
 * @hidden_size: values per row, 1..RNN_STATE_MAX_HIDDEN
 *
 * The teaching cell, kind RNN_STATE_CELL_TEACH: h(t) = 2 h(t-1) + x(t),
 * with input_size = hidden_size.
 *
 * Returns: (transfer full): a new cell, free with dsp_cell_free().
 */
DspCell *
dsp_cell_teach_new (guint hidden_size)
{
  DspCell *cell;

  g_return_val_if_fail (hidden_size >= 1 && hidden_size <= RNN_STATE_MAX_HIDDEN,
      NULL);

  cell = g_new0 (DspCell, 1);
  cell->klass = &teach_class;
  cell->input_size = hidden_size;
  cell->hidden_size = hidden_size;
  cell->scratch_size = 0;
  return cell;
}
