/* io/cnnload.h — the `net:` key of a models template: a CNN's layer list
 * (format at the top of cnnload.c) read into a CnnNet (graph/cnn.h) and
 * checked against the model's image_size, channels and classes.  The
 * CnnNet belongs to the Template that read it (Template.extra, freed by
 * cnnload_free); the Model only points at it. */
#ifndef DF_CNNLOAD_H
#define DF_CNNLOAD_H

#include "core/diag.h"
#include "graph/cnn.h"
#include "io/ytree.h"

/* root: the template's top-level mapping; path: its file; model: the Model
 * the template's keys were applied to (a base's values included).  When
 * root has a `net:` key: parse it, check it, set model->cnn and return 0
 * with *out = the net (the caller owns it).  Without one: *out = NULL and
 * 0, unless the model is a cnn that inherited no net from a base.  Returns
 * -1 with d filled (path:line:col) on any fault. */
int cnnload_template(const YNode *root, const char *path, Model *model, CnnNet **out, Diag *d);

/* Parse a layer list (a YAML sequence) alone; NULL with d filled. */
CnnNet *cnnload_parse(const YNode *list, const char *path, Diag *d);

/* Free a CnnNet (a void * so that it fits Template.free_extra); NULL is fine. */
void cnnload_free(void *net);

#endif
