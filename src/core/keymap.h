/* core/keymap.h — strings to small integer ids (0, 1, 2, ... in order of
 * first sight): open addressing, the keys copied.  For the per-series
 * bookkeeping of a streamed run, whose keys are few (series, models,
 * device counts) however many rows pass. */
#ifndef DF_KEYMAP_H
#define DF_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char **key;
    int *id;
    size_t cap, n;    /* n: ids given */
    const char *last; /* the key keymap_id found or added last (the map's copy), NULL: none */
    int last_id;      /* ... and its id: a run of rows asks for the same key */
} KeyMap;

/* Two independent 64-bit hashes of s (FNV-1a and a multiplicative one). */
void key_hash2(const char *s, uint64_t *h1, uint64_t *h2);

/* The id of k: its own when seen before, else n (and n grows); -1 when out
 * of memory.  *fresh (may be NULL): 1 when k was new.  A map zeroed is
 * empty. */
int keymap_id(KeyMap *m, const char *k, int *fresh);

/* The id of k, or -1 when unseen (nothing added). */
int keymap_find(const KeyMap *m, const char *k);

void keymap_free(KeyMap *m);

#endif
