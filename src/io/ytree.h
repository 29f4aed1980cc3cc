/* io/ytree.h — a YAML document as a small tree of mappings, sequences and
 * scalars, each with its line and column, built from libyaml's events.
 * libyaml returns every scalar as a string and accepts duplicate keys and
 * aliases; this reader rejects both (an alias could expand exponentially)
 * and bounds depth and size.  A tree owns all its nodes: ytree_free frees
 * the lot. */
#ifndef DF_YTREE_H
#define DF_YTREE_H

#include <stddef.h>

#include "core/diag.h"

typedef enum { YN_SCALAR, YN_MAP, YN_SEQ } YNodeKind;

typedef struct YNode {
    YNodeKind kind;
    int line, col;      /* 1-based position of the node */
    char *text;         /* YN_SCALAR */
    int quoted;         /* scalar was quoted */
    struct YNode **key; /* YN_MAP: keys (scalars); YN_SEQ: unused */
    struct YNode **val; /* YN_MAP: values; YN_SEQ: items */
    int n, cap;
} YNode;

#define YTREE_MAX_DEPTH 32
#define YTREE_MAX_NODES 100000
#define YTREE_MAX_BYTES (4 << 20)

/* Parse one YAML document from memory.  Returns the root or NULL with d
 * filled (file, line, column, message). */
YNode *ytree_parse(const char *path, const char *data, size_t len, Diag *d);

/* Read and parse a file. */
YNode *ytree_load(const char *path, Diag *d);

void ytree_free(YNode *n);

/* Value of key in a mapping (exact), or NULL. */
const YNode *ytree_get(const YNode *map, const char *key);

#endif
