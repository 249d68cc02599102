/* rnndenoise — dsp: gated recurrent unit cell
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PyTorch's nn.GRU equations, per batch row:
 *
 *   r  = sigmoid (W_ir x + b_ir + W_hr h + b_hr)
 *   z  = sigmoid (W_iz x + b_iz + W_hz h + b_hz)
 *   n  = tanh (W_in x + b_in + r * (W_hn h + b_hn))
 *   h' = (1 - z) * n + z * h
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp/dsp_gru.h"

/* x86-64 builds also update eight units at a time with AVX2, chosen at run
 * time (and turned off with the dense kernels by
 * dsp_dense_set_kernel_limit()). Every operation is elementwise IEEE
 * arithmetic, the same as dsp_tanh4() and dsp_sigmoid4() do lane by lane,
 * so eight lanes, four and one give the same bits. */
#if defined(__GNUC__) && defined(__x86_64__)
#define DSP_GRU_AVX2 1

typedef gfloat DspVec8 __attribute__ ((vector_size (8 * sizeof (gfloat))));
typedef gint32 DspMask8 __attribute__ ((vector_size (8 * sizeof (gint32))));

/* The helpers below take and return these 32-byte vectors, so they are
 * AVX2 functions too (always inlined into the AVX2 update): a call between
 * AVX and non-AVX code would pass them differently. */

__attribute__ ((target ("avx2"), always_inline)) static inline DspVec8
vec8_load (const gfloat *p)
{
  DspVec8 v;

  memcpy (&v, p, sizeof (v));
  return v;
}

__attribute__ ((target ("avx2"), always_inline)) static inline DspVec8
vec8_splat (gfloat x)
{
  DspVec8 v = { x, x, x, x, x, x, x, x };

  return v;
}

__attribute__ ((target ("avx2"), always_inline)) static inline DspVec8
vec8_select (DspMask8 mask, DspVec8 a, DspVec8 b)
{
  return (DspVec8) ((mask & (DspMask8) a) | (~mask & (DspMask8) b));
}

/* dsp_tanh4() on eight lanes. */
__attribute__ ((target ("avx2"), always_inline)) static inline DspVec8
tanh8 (DspVec8 x)
{
  return DSP_TANH_VECTOR (x, vec8_splat (DSP_TANH_LIMIT), vec8_splat (1.0f),
      vec8_select);
}

/* dsp_sigmoid4() on eight lanes. */
__attribute__ ((target ("avx2"), always_inline)) static inline DspVec8
sigmoid8 (DspVec8 x)
{
  DspVec8 half = vec8_splat (0.5f);

  return half + half * tanh8 (half * x);
}

/* The update of units 0 .. 8k - 1 (the most whole groups of eight), as
 * dsp_gru_step() does it four at a time; returns 8k. */
__attribute__ ((target ("avx2"))) static guint
update_units_avx2 (const gfloat *gi, const gfloat *gh, gfloat *h, guint n_hid)
{
  guint i;

  for (i = 0; i + 8 <= n_hid; i += 8) {
    DspVec8 r = sigmoid8 (vec8_load (gi + i) + vec8_load (gh + i));
    DspVec8 z
        = sigmoid8 (vec8_load (gi + n_hid + i) + vec8_load (gh + n_hid + i));
    DspVec8 n = tanh8 (
        vec8_load (gi + 2 * n_hid + i) + r * vec8_load (gh + 2 * n_hid + i));
    DspVec8 out = (vec8_splat (1.0f) - z) * n + z * vec8_load (h + i);

    memcpy (h + i, &out, sizeof (out));
  }
  return i;
}
#endif

typedef struct
{
  DspCell parent;
  DspGruWeights weights; /* the arrays are borrowed from the model */
} DspGru;

/* scratch: 6 * hidden_size floats, reused for every row. */
static void
dsp_gru_step (const DspCell *cell, const gfloat *input, gfloat *hidden,
    guint batch, gfloat *scratch)
{
  const DspGru *self = (const DspGru *) cell;
  const DspGruWeights *w = &self->weights;
  guint n_in = w->input_size;
  guint n_hid = w->hidden_size;
  gfloat *gi = scratch;
  gfloat *gh = scratch + 3 * (gsize) n_hid;
  guint b, i;

  for (b = 0; b < batch; b++) {
    const gfloat *x = input + (gsize) b * n_in;
    gfloat *h = hidden + (gsize) b * n_hid;

    dsp_matrix_gemv (&w->w_ih, x, w->b_ih, gi);
    dsp_matrix_gemv (&w->w_hh, h, w->b_hh, gh);
    /* Eight units at a time (AVX2), then four, then the rest one by one:
     * the same operations, so the same bits. */
    i = 0;
#ifdef DSP_GRU_AVX2
    if (dsp_dense_get_kernels () >= DSP_KERNELS_AVX2)
      i = update_units_avx2 (gi, gh, h, n_hid);
#endif
    for (; i + 4 <= n_hid; i += 4) {
      DspVec4 r
          = dsp_sigmoid4 (dsp_vec4_load (gi + i) + dsp_vec4_load (gh + i));
      DspVec4 z = dsp_sigmoid4 (
          dsp_vec4_load (gi + n_hid + i) + dsp_vec4_load (gh + n_hid + i));
      DspVec4 n = dsp_tanh4 (dsp_vec4_load (gi + 2 * n_hid + i)
          + r * dsp_vec4_load (gh + 2 * n_hid + i));

      dsp_vec4_store (h + i,
          (dsp_vec4_splat (1.0f) - z) * n + z * dsp_vec4_load (h + i));
    }
    for (; i < n_hid; i++) {
      gfloat r = dsp_sigmoid (gi[i] + gh[i]);
      gfloat z = dsp_sigmoid (gi[n_hid + i] + gh[n_hid + i]);
      gfloat n = dsp_tanh (gi[2 * n_hid + i] + r * gh[2 * n_hid + i]);

      h[i] = (1.0f - z) * n + z * h[i];
    }
  }
}

static void
dsp_gru_free (DspCell *cell)
{
  g_free (cell);
}

static const DspCellClass dsp_gru_class = {
  .kind = RNN_STATE_CELL_GRU,
  .step = dsp_gru_step,
  .free = dsp_gru_free,
};

static gboolean
matrix_is_usable (const DspMatrix *m, guint rows, guint cols)
{
  if (m->rows != rows || m->cols != cols)
    return FALSE;
  if (m->type == DSP_WEIGHT_F32)
    return m->f32 != NULL;
  if (dsp_weight_type_is_s8 (m->type))
    return m->s8 != NULL && m->scale != NULL
        && (m->type != DSP_WEIGHT_S8X8 || m->cols <= DSP_MATRIX_MAX_S8X8_COLS);
  return FALSE;
}

/**
 * dsp_gru_new:
 * @weights: the layer's sizes and parameter views; the struct is copied,
 *   the arrays it points to are borrowed and must outlive the cell (the
 *   model that owns them is kept alive by its refcount).
 *
 * Makes a GRU cell (kind %RNN_STATE_CELL_GRU) that implements #DspCell:
 * step it with dsp_cell_step(), free it with dsp_cell_free(). Its
 * scratch_size is 6 x hidden_size floats whatever the batch, and the input
 * passed to a step must not overlap the hidden state. The cell is
 * immutable, so several threads may step it at once on their own hidden
 * and scratch buffers.
 *
 * Returns: (transfer full): a new cell.
 */
DspCell *
dsp_gru_new (const DspGruWeights *weights)
{
  DspGru *self;
  guint n_hid;

  g_return_val_if_fail (weights != NULL, NULL);
  g_return_val_if_fail (weights->input_size > 0, NULL);
  g_return_val_if_fail (weights->hidden_size > 0, NULL);
  g_return_val_if_fail (weights->hidden_size <= G_MAXUINT / 6, NULL);
  n_hid = weights->hidden_size;
  g_return_val_if_fail (matrix_is_usable (&weights->w_ih, 3 * n_hid,
                            weights->input_size),
      NULL);
  g_return_val_if_fail (matrix_is_usable (&weights->w_hh, 3 * n_hid, n_hid),
      NULL);
  g_return_val_if_fail (weights->b_ih != NULL && weights->b_hh != NULL, NULL);

  self = g_new0 (DspGru, 1);
  self->parent.klass = &dsp_gru_class;
  self->parent.input_size = weights->input_size;
  self->parent.hidden_size = n_hid;
  self->parent.scratch_size = 6 * (gsize) n_hid;
  self->weights = *weights;

  return &self->parent;
}

/**
 * dsp_gru_get_weights:
 * @cell: a cell made by dsp_gru_new().
 *
 * Returns: (transfer none): the cell's copy of the weight views it was made
 *   with (the arrays stay the model's).
 */
const DspGruWeights *
dsp_gru_get_weights (const DspCell *cell)
{
  g_return_val_if_fail (cell != NULL && cell->klass == &dsp_gru_class, NULL);

  return &((const DspGru *) cell)->weights;
}
