/* graph/cnn.h — a convolutional network as an immutable list of layer
 * records (CnnNet), read from a models template's `net:` key by
 * io/cnnload.c and turned into op lists by graph/cnn.c.  Containers (concat
 * of branches, residual blocks) refer to their layer sequences by index, so
 * the whole net is two flat arrays.  A CnnNet is owned by the template db
 * that loaded it (Template.extra) and never changes after loading; a Model
 * points at it (Model.cnn), so it is shared, read-only, by every scenario
 * and thread.  Shapes are not stored: they follow from the model's
 * image_size and channels, so an override of either re-shapes the net.
 * Units: pixels, channels, element counts. */
#ifndef DF_CNN_H
#define DF_CNN_H

#include <stdint.h>

#include "core/diag.h"
#include "graph/graph.h"

typedef enum {
    CNN_CONV,            /* 2-D convolution (+ batch norm, + ReLU) */
    CNN_POOL,            /* max or average pooling window */
    CNN_FC,              /* fully connected (flattens its input) */
    CNN_CONCAT,          /* branches on the same input, outputs concatenated on channels */
    CNN_BLOCK,           /* residual block: main path + shortcut (identity or layers), added */
    CNN_GLOBAL_AVG_POOL, /* average over the whole H x W */
    CNN_DROPOUT,
    CNN_SOFTMAX, /* softmax with the cross-entropy loss */
    CNN_KIND_COUNT
} CnnKind;

typedef enum { CNN_POOL_MAX, CNN_POOL_AVG } CnnPoolOp;

#define CNN_PAD_SAME (-1) /* TensorFlow 'same': output = ceil(input / stride) */

#define CNN_MAX_DEPTH    8     /* containers (concat, block) nested in each other */
#define CNN_MAX_LAYERS   10000 /* layers of the whole net once repeats are expanded */
#define CNN_MAX_REPEAT   1000
#define CNN_MAX_BRANCHES 64

/* layer[first .. first + n - 1]; n = 0 only for an identity shortcut. */
typedef struct {
    int first, n;
} CnnSeq;

typedef struct {
    CnnKind kind;
    int line, col;  /* where the layer is written (CnnNet.path) */
    int repeat;     /* >= 1: the layer runs this many times in a row */
    int out;        /* conv: output channels; fc: output features */
    int kh, kw;     /* conv, pool: window */
    int sh, sw;     /* conv, pool: stride */
    int ph, pw;     /* conv, pool: zero padding each side, or CNN_PAD_SAME */
    CnnPoolOp pool; /* pool */
    int bn;         /* conv: batch norm after the convolution */
    int relu;       /* conv, fc: ReLU after (batch norm); block: ReLU after the add */
    int bias;       /* conv, fc: a bias vector (counted in parameters) */
    double rate;    /* dropout: drop probability (does not change the cost) */
    int seq, nseq;  /* concat: branches seq[seq .. seq + nseq - 1];
                     * block: seq[seq] main path, seq[seq + 1] shortcut */
} CnnLayer;

typedef struct CnnNet {
    char *path; /* file the net was read from, for messages */
    CnnLayer *layer;
    int n_layers;
    CnnSeq *seq; /* seq[0]: the net itself */
    int n_seqs;
} CnnNet;

/* Totals of the whole, unsplit net for one image. */
typedef struct {
    double params;           /* weights + biases + batch-norm scale and shift */
    double macs;             /* multiply-accumulates of the convolutions and fc layers, forward */
    int layers;              /* conv, pool, fc, ... layers once repeats are expanded */
    int units;               /* top-level layers once repeats are expanded (what a pipeline splits) */
    int out_c, out_h, out_w; /* shape of the output */
} CnnStats;

/* Propagate shapes from an image_size x image_size x channels input and
 * check the net: every window fits, branches agree on H x W, a block's
 * paths agree in shape, the softmax has `classes` inputs (when classes >
 * 0), the limits above.  Returns 0 with st filled (st may be NULL), or -1
 * with d at the offending layer (net->path:line:col). */
int cnn_check(const CnnNet *net, int image_size, int channels, int classes, CnnStats *st, Diag *d);

/* The pipeline partition the graph uses: the top-level layers split into
 * p->pp contiguous stages minimising the largest share of the net's
 * forward + backward GEMM FLOPs or of its HBM bytes that one stage holds
 * (one microbatch, one tensor-parallel shard).  Writes up to max stages'
 * FLOPs to flops[], bytes to bytes[] and the index of each stage's first
 * unit to first_unit[] (any may be NULL); returns the number of stages, or
 * -1 with d filled. */
int cnn_stages(const Model *m, const GraphParams *p, double *flops, double *bytes, int *first_unit, int max,
               Diag *d);

#endif
