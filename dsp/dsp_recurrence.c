/* rnndenoise — dsp: a stack of recurrent cells run against a state slot
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dsp_error.h"
#include "dsp_recurrence.h"

struct _DspRecurrence
{
  DspCell **cells; /* borrowed from the caller, n_cells of them */
  guint n_cells;
  RnnStateSlot *slot; /* borrowed; outlives this object */
  guint batch;
  gsize n_values;
  gfloat *working; /* owned; the working copy of the state */
  gfloat *scratch; /* owned; the largest cell's scratch */
};

static gboolean
check_cells_fit_slot (DspCell *const *cells, guint n_cells,
    const RnnStateDescriptor *desc, GError **error)
{
  guint l;

  if (n_cells != desc->n_layers) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_MISMATCH,
        "%u cells, the state has %u layers", n_cells, desc->n_layers);
    return FALSE;
  }
  for (l = 0; l < n_cells; l++) {
    if (cells[l]->klass->kind != desc->cell) {
      g_set_error (error, DSP_ERROR, DSP_ERROR_MISMATCH,
          "cell %u is of kind %s, the state is of kind %s", l,
          rnn_state_cell_kind_name (cells[l]->klass->kind),
          rnn_state_cell_kind_name (desc->cell));
      return FALSE;
    }
    if (cells[l]->hidden_size != desc->hidden[l]) {
      g_set_error (error, DSP_ERROR, DSP_ERROR_MISMATCH,
          "cell %u has hidden size %u, the state layer has %u", l,
          cells[l]->hidden_size, desc->hidden[l]);
      return FALSE;
    }
    if (l > 0 && cells[l]->input_size != cells[l - 1]->hidden_size) {
      g_set_error (error, DSP_ERROR, DSP_ERROR_MISMATCH,
          "cell %u takes %u inputs, cell %u gives %u", l, cells[l]->input_size,
          l - 1, cells[l - 1]->hidden_size);
      return FALSE;
    }
  }
  return TRUE;
}

/**
 * dsp_recurrence_new:
 * @cells: @n_cells cells, borrowed: they must outlive the recurrence
 * @n_cells: layers, equal to the slot's layer count
 * @slot: the stream's slot, borrowed: it must outlive the recurrence
 * @error: return location for a #DSP_ERROR_MISMATCH error
 *
 * Checks that the cells match the slot's descriptor (kind, hidden size per
 * layer, chaining) and allocates the working state and scratch once.
 *
 * Returns: (transfer full) (nullable): a new recurrence, or NULL.
 */
DspRecurrence *
dsp_recurrence_new (DspCell *const *cells, guint n_cells, RnnStateSlot *slot,
    GError **error)
{
  const RnnStateDescriptor *desc;
  DspRecurrence *self;
  gsize scratch = 0;
  guint l;

  g_return_val_if_fail (cells != NULL && slot != NULL, NULL);

  desc = rnn_state_slot_get_descriptor (slot);
  if (!check_cells_fit_slot (cells, n_cells, desc, error))
    return NULL;

  for (l = 0; l < n_cells; l++)
    scratch = MAX (scratch, cells[l]->scratch_size);

  self = g_new0 (DspRecurrence, 1);
  self->cells = g_memdup2 (cells, n_cells * sizeof (DspCell *));
  self->n_cells = n_cells;
  self->slot = slot;
  self->batch = desc->batch;
  self->n_values = rnn_state_descriptor_n_values (desc);
  self->working = g_new0 (gfloat, self->n_values);
  self->scratch = g_new0 (gfloat, scratch + 1);
  return self;
}

/**
 * dsp_recurrence_free:
 * @self: (nullable): a recurrence
 */
void
dsp_recurrence_free (DspRecurrence *self)
{
  if (self == NULL)
    return;
  g_free (self->cells);
  g_free (self->working);
  g_free (self->scratch);
  g_free (self);
}

/**
 * dsp_recurrence_run:
 * @self: a recurrence
 * @input: n_frames x batch x cells[0]->input_size values, frame-major
 * @output: (nullable): n_frames x batch x last hidden size values: the last
 *   layer's state after each frame
 * @n_frames: frames in this invocation (0 does nothing)
 * @side_desc: (nullable): format of the side output (see
 *   rnn_state_slot_writeback())
 * @side_out: (nullable): receives the final state in @side_desc's format
 * @side_out_size: size of @side_out in bytes
 *
 * One invocation: reads the initial state from the slot (applying a pending
 * import), steps every frame through every layer on the working copy, then
 * writes the final state back through the slot's fan-out. An invocation of
 * zero frames touches neither the slot nor @side_out.
 *
 * Returns: the number of frames processed.
 */
guint
dsp_recurrence_run (DspRecurrence *self, const gfloat *input, gfloat *output,
    guint n_frames, const RnnStateDescriptor *side_desc, gpointer side_out,
    gsize side_out_size)
{
  const DspCell *last;
  gsize in_stride, out_stride, offset, prev_offset;
  guint f, l;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (input != NULL || n_frames == 0, 0);

  if (n_frames == 0)
    return 0;

  last = self->cells[self->n_cells - 1];
  in_stride = (gsize) self->batch * self->cells[0]->input_size;
  out_stride = (gsize) self->batch * last->hidden_size;

  rnn_state_slot_read (self->slot, self->working, NULL);
  for (f = 0; f < n_frames; f++) {
    offset = 0;
    prev_offset = 0;
    for (l = 0; l < self->n_cells; l++) {
      const gfloat *layer_in
          = l == 0 ? input + f * in_stride : self->working + prev_offset;

      dsp_cell_step (self->cells[l], layer_in, self->working + offset,
          self->batch, self->scratch);
      prev_offset = offset;
      offset += (gsize) self->batch * self->cells[l]->hidden_size;
    }
    if (output != NULL)
      memcpy (output + f * out_stride, self->working + prev_offset,
          out_stride * sizeof (gfloat));
  }
  rnn_state_slot_writeback (self->slot, self->working, NULL, side_desc,
      side_out, side_out_size);
  return n_frames;
}
