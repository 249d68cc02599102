/* rnndenoise — the plugins' run callbacks allocate nothing: loads the
 * LADSPA and LV2 modules as a host does, and counts malloc, calloc,
 * realloc and free calls (replaced here) during 2 s of run() calls in
 * blocks of various sizes, after instantiate and activate. The stereo LV2
 * plugin runs both without host options (its fixed-size steps) and with
 * bufsz:maxBlockLength, whose interleave buffer instantiate() must
 * allocate.
 * Usage: test_host_rt LADSPA_MODULE LV2_MODULE
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ladspa.h>
#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/core/lv2.h>
#include <lv2/options/options.h>
#include <lv2/urid/urid.h>

extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t n, size_t size);
extern void *__libc_realloc (void *p, size_t size);
extern void __libc_free (void *p);

/* Exported, so that the modules' calls come here (-fvisibility=hidden is
 * the project default). */
static int counting;
static long n_allocs;
/* Set when malloc is asked for exactly watch_size bytes. */
static size_t watch_size;
static int watch_seen;

__attribute__ ((visibility ("default"))) void *
malloc (size_t size)
{
  n_allocs += counting;
  watch_seen |= counting && size == watch_size;
  return __libc_malloc (size);
}

__attribute__ ((visibility ("default"))) void *
calloc (size_t n, size_t size)
{
  n_allocs += counting;
  return __libc_calloc (n, size);
}

__attribute__ ((visibility ("default"))) void *
realloc (void *p, size_t size)
{
  n_allocs += counting;
  return __libc_realloc (p, size);
}

__attribute__ ((visibility ("default"))) void
free (void *p)
{
  n_allocs += counting && p != NULL;
  __libc_free (p);
}

#define MAX_BLOCK 4096
#define TOTAL 96000

static float in[2][MAX_BLOCK], out[2][MAX_BLOCK], controls[8];

static const unsigned long blocks[] = { 64, 128, 256, 480, 1000, 4096, 1 };

static void
fill (void)
{
  int c, i;

  for (c = 0; c < 2; c++)
    for (i = 0; i < MAX_BLOCK; i++)
      in[c][i] = 0.1f * sinf (0.05f * i + c) + 0.01f * ((i * 7919) % 13 - 6);
}

/* Runs @run_block over TOTAL samples; returns allocations counted. */
static long
count_run (void (*run_block) (void *h, unsigned long n), void *h)
{
  unsigned long done = 0, k = 0, n;

  n_allocs = 0;
  counting = 1;
  while (done < TOTAL) {
    n = blocks[k++ % (sizeof blocks / sizeof blocks[0])];
    run_block (h, n);
    done += n;
  }
  counting = 0;
  return n_allocs;
}

static const LADSPA_Descriptor *ladspa_desc;
static const LV2_Descriptor *lv2_desc;

static void
ladspa_run (void *h, unsigned long n)
{
  ladspa_desc->run (h, n);
}

static void
lv2_run (void *h, unsigned long n)
{
  lv2_desc->run (h, (uint32_t) n);
}

static int
test_ladspa (const char *path)
{
  void *mod = dlopen (path, RTLD_NOW);
  LADSPA_Descriptor_Function get;
  unsigned long index, p;
  int failed = 0;

  if (mod == NULL) {
    fprintf (stderr, "%s\n", dlerror ());
    return 1;
  }
  get = (LADSPA_Descriptor_Function) dlsym (mod, "ladspa_descriptor");
  for (index = 0; (ladspa_desc = get (index)) != NULL; index++) {
    LADSPA_Handle h;
    unsigned long ai = 0, ao = 0, c = 0;
    long n;

    /* The counter works: instantiate allocates. */
    n_allocs = 0;
    counting = 1;
    h = ladspa_desc->instantiate (ladspa_desc, 48000);
    counting = 0;
    failed |= n_allocs == 0;
    printf ("LADSPA %s: %ld allocations in instantiate()\n", ladspa_desc->Label,
        n_allocs);

    for (p = 0; p < ladspa_desc->PortCount; p++) {
      LADSPA_PortDescriptor d = ladspa_desc->PortDescriptors[p];
      if (LADSPA_IS_PORT_AUDIO (d))
        ladspa_desc->connect_port (h, p,
            LADSPA_IS_PORT_INPUT (d) ? in[ai++] : out[ao++]);
      else
        ladspa_desc->connect_port (h, p, &controls[c++]);
    }
    controls[0] = 20.0f; /* attenuation limit */
    controls[1] = 0.5f;  /* VAD threshold */
    ladspa_desc->activate (h);
    n = count_run (ladspa_run, h);
    printf ("LADSPA %s: %ld allocations in run() over %d samples, "
            "latency port %.0f\n",
        ladspa_desc->Label, n, TOTAL, controls[3]);
    failed |= n != 0 || controls[3] != 960.0f;
    ladspa_desc->cleanup (h);
  }
  return failed;
}

/* The URIDs the options feature needs: index in this table. */
static const char *const uris[]
    = { "", LV2_BUF_SIZE__maxBlockLength, LV2_ATOM__Int };

static LV2_URID
map_uri (LV2_URID_Map_Handle handle, const char *uri)
{
  LV2_URID i;

  (void) handle;
  for (i = 1; i < sizeof uris / sizeof uris[0]; i++)
    if (strcmp (uri, uris[i]) == 0)
      return i;
  return 0;
}

/* One LV2 plugin, @channels audio inputs then as many outputs, then the
 * controls; @max_block: the host's bufsz:maxBlockLength, 0 for no options.
 * The max block is odd-sized (3000 frames) so that the interleave
 * buffer's allocation is recognisable. */
static int
test_lv2_plugin (uint32_t channels, int32_t max_block)
{
  LV2_URID_Map map = { NULL, map_uri };
  LV2_Options_Option options[] = {
    { LV2_OPTIONS_INSTANCE, 0, 1, sizeof max_block, 2, &max_block },
    { LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL },
  };
  LV2_Feature map_feature = { LV2_URID__map, &map };
  LV2_Feature options_feature = { LV2_OPTIONS__options, options };
  const LV2_Feature *none[] = { NULL };
  const LV2_Feature *with_options[] = { &map_feature, &options_feature, NULL };
  uint32_t p;
  LV2_Handle h;
  long n;

  watch_size = sizeof (float) * channels * (size_t) max_block;
  watch_seen = 0;
  counting = 1;
  h = lv2_desc->instantiate (lv2_desc, 48000.0, "",
      max_block > 0 ? with_options : none);
  counting = 0;
  if (h == NULL)
    return 1;
  for (p = 0; p < channels; p++) {
    lv2_desc->connect_port (h, p, in[p]);
    lv2_desc->connect_port (h, channels + p, out[p]);
  }
  for (p = 0; p < 5; p++)
    lv2_desc->connect_port (h, 2 * channels + p, &controls[p]);
  controls[0] = 20.0f;  /* attenuation limit */
  controls[1] = 0.5f;   /* VAD threshold */
  controls[2] = 100.0f; /* VAD hold */
  lv2_desc->activate (h);
  n = count_run (lv2_run, h);
  if (max_block > 0)
    printf ("LV2 %s, maxBlockLength %d: ", lv2_desc->URI, (int) max_block);
  else
    printf ("LV2 %s: ", lv2_desc->URI);
  printf ("%ld allocations in run() over %d samples, latency port %.0f\n", n,
      TOTAL, controls[4]);
  lv2_desc->cleanup (h);
  if (max_block > 0 && !watch_seen)
    printf ("LV2 %s: instantiate() did not size its buffer from "
            "maxBlockLength\n",
        lv2_desc->URI);
  return n != 0 || controls[4] != 960.0f || (max_block > 0 && !watch_seen);
}

static int
test_lv2 (const char *path)
{
  void *mod = dlopen (path, RTLD_NOW);
  LV2_Descriptor_Function get;
  uint32_t index, channels;
  int failed = 0;

  if (mod == NULL) {
    fprintf (stderr, "%s\n", dlerror ());
    return 1;
  }
  get = (LV2_Descriptor_Function) dlsym (mod, "lv2_descriptor");
  for (index = 0; (lv2_desc = get (index)) != NULL; index++) {
    channels = strstr (lv2_desc->URI, "stereo") != NULL ? 2 : 1;
    failed |= test_lv2_plugin (channels, 0);
    if (channels > 1)
      failed |= test_lv2_plugin (channels, 3000);
  }
  return failed || index != 2;
}

int
main (int argc, char **argv)
{
  int failed;

  if (argc != 3) {
    fprintf (stderr, "usage: %s LADSPA_MODULE LV2_MODULE\n", argv[0]);
    return 2;
  }
  fill ();
  failed = test_ladspa (argv[1]);
  failed |= test_lv2 (argv[2]);
  return failed ? 1 : 0;
}
