/* rnndenoise — dsp: error domain
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_ERROR_H
#define DSP_ERROR_H

#include <glib.h>

G_BEGIN_DECLS

/**
 * DspError:
 * @DSP_ERROR_INVALID: a configuration or argument is out of its bounds; the
 *   message names the field and its value.
 * @DSP_ERROR_CORRUPT: serialized bytes (a model file) are truncated,
 *   oversized or fail the magic, version or size checks.
 * @DSP_ERROR_UNSUPPORTED: well-formed input that this build cannot use (an
 *   unknown feature layout, cell kind or sample rate).
 * @DSP_ERROR_MISMATCH: two parts that must agree do not (a model and a
 *   stream); the message names the field and both values.
 */
typedef enum
{
  DSP_ERROR_INVALID,
  DSP_ERROR_CORRUPT,
  DSP_ERROR_UNSUPPORTED,
  DSP_ERROR_MISMATCH,
} DspError;

#define DSP_ERROR (dsp_error_quark ())
GQuark dsp_error_quark (void);

G_END_DECLS

#endif /* DSP_ERROR_H */
