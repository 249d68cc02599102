/* rnndenoise — dsp: a stack of recurrent cells run against a state slot
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_RECURRENCE_H
#define DSP_RECURRENCE_H

#include <glib.h>

#include "dsp/dsp_cell.h"
#include "state/rnn_state_slot.h"

G_BEGIN_DECLS

/**
 * DspRecurrence:
 *
 * Runs invocations of a stack of cells (layer l's input is layer l-1's
 * hidden state) over a batch, taking its initial state from a
 * #RnnStateSlot and writing its final state back through the slot's
 * fan-out. Owned by one streaming thread; the slot it borrows may be used
 * by other threads meanwhile.
 */
typedef struct _DspRecurrence DspRecurrence;

DspRecurrence *dsp_recurrence_new (DspCell *const *cells, guint n_cells,
    RnnStateSlot *slot, GError **error);

void dsp_recurrence_free (DspRecurrence *self);

guint dsp_recurrence_run (DspRecurrence *self, const gfloat *input,
    gfloat *output, guint n_frames, const RnnStateDescriptor *side_desc,
    gpointer side_out, gsize side_out_size);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspRecurrence, dsp_recurrence_free)

G_END_DECLS

#endif /* DSP_RECURRENCE_H */
