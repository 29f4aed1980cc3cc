/* par/parts.h — the parts of the step model, each a pure function that
 * tests can call (tests/test_step.c) and step.c puts together:
 *   schedule.c  the pipeline: layers per stage, fill and drain, the
 *               microbatches (and interleaved chunks) in flight, the
 *               stage-to-stage sends;
 *   memory.c    weights, gradients and optimizer state per device under
 *               ZeRO; activations held at the schedule's peak;
 *   comm.c      the data-parallel gradient exchange (all-reduce, ZeRO's
 *               reduce-scatter and all-gathers, row-sparse tables) and the
 *               part of it hidden under the backward pass;
 *   pace.c      the pace of a synchronous step: its slowest device's.
 * Seconds, bytes. */
#ifndef DF_PARTS_H
#define DF_PARTS_H

#include "core/types.h"
#include "net/net.h"

/* ---- pace.c -------------------------------------------------------------- */

/* The expected largest of n independent standard normal draws (Blom's
 * approximation; 0 for n <= 1). */
double pace_normal_max(double n);

/* How much longer the slowest of n devices takes over the median one,
 * their speeds spread with coefficient of variation `spread`:
 * 1 + spread x pace_normal_max(n) (1 where spread is 0). */
double pace_factor(double spread, double n);

/* ---- schedule.c ---------------------------------------------------------- */

/* Layers on the most loaded stage: v chunks of ceil(L / (pp v)) layers (the
 * other stages carry fewer when L does not split evenly). */
int sched_stage_layers(int layers, int pp, int v);

/* Layers of the first stage, a middle one and the last: even, each
 * sched_stage_layers; ends (the embedding, the loss and each of the mtp
 * prediction modules in a layer's place, as Megatron-Core's
 * pipeline_model_parallel_layout puts DeepSeek-V3's "Et|(tt|)*30mL"),
 * L + 2 + mtp slots in chunks of ceil((L + 2 + mtp) / (pp v)), the first
 * stage one layer short of a middle one and the last 1 + mtp short.  One
 * stage: all L. */
void sched_split(int layers, int mtp, int pp, int v, PpSplit s, double *first, double *middle, double *last);

/* Pipeline fill and drain of 1F1B with v interleaved chunks (Narayanan et
 * al. SC'21): (pp - 1) / v stage-times, divided by the units a microbatch
 * is pipelined in (an LSTM's timesteps, wave >= 1).  serial_first: a first
 * stage that passes nothing on before its whole sequence is done (a
 * bidirectional layer) costs a whole stage-time of fill and drain, then the
 * wavefront through the other pp - 2 stages. */
double sched_bubble(int pp, int v, double t_stage, int wave, int serial_first);

/* Fill and drain of the schedules that split the backward pass into its
 * input-gradient part and its weight-gradient part (t_w, the latter, which
 * waits for no other stage and so fills the bubble), with t_stage = t_f +
 * t_b the stage's forward and whole backward time and t_fb the time of a
 * forward and a backward chunk run together with their communication
 * hidden (DeepSeek-V3 report Table 2, in its notation F, B, W, F&B):
 *   zero bubble (ZB-H1, Qi et al. ICLR 2024 Table 2): (pp - 1)(t_f + t_b - 2 t_w);
 *   DualPipe: (pp/2 - 1)(t_fb + t_b - 3 t_w).
 * 1F1B's is (pp - 1)(t_f + t_b) (sched_bubble). */
double sched_bubble_split(PpSchedule s, int pp, double t_stage, double t_b, double t_w, double t_fb);

/* Activations the first stage holds at its peak: 1F1B holds min(m, pp)
 * microbatches (*microbatches); the interleaved schedule runs
 * 2 (pp - 1) + (v - 1) pp warm-up chunk forwards before its first
 * backward, i.e. holds v pp + pp - 1 chunks of 1/v of the stage's layers,
 * but never more than the m v chunks there are: *interleave is that over
 * what 1F1B holds (1 + (pp - 1) / (pp v) when m >= pp + ...; 1 for v = 1). */
void sched_inflight(long m, int pp, int v, double *microbatches, double *interleave);

/* DualPipe's peak: pp + 1 microbatches of a stage's activations (DeepSeek-V3
 * Table 2), never more than the m there are. */
double sched_inflight_dualpipe(long m, int pp);

/* Stage-to-stage sends per device and step: an activation forward and a
 * gradient backward per microbatch and chunk, plus the fill, each in
 * `units` pieces. */
double sched_p2p_sends(long m, int pp, int v, int units);

/* ---- memory.c ------------------------------------------------------------ */

/* Model state of one device holding p parameters (ZeRO, Rajbhandari et al.
 * SC'20): stage 1 shards the optimizer state (optim_bytes per parameter)
 * over dp, stage 2 also the gradients (grad_bytes), stage 3 also the
 * weights (weight_bytes). */
typedef struct {
    double weights, grads, optimizer;
} StateBytes;
StateBytes mem_state(double p, int dp, int zero, double weight_bytes, double grad_bytes, double optim_bytes);

/* Activations of the most loaded stage: the first stage holds its layers'
 * activations for microbatches x interleave microbatches and the first
 * layers' extras for microbatches; the last stage one microbatch plus the
 * head's; one stage (pp 1) holds both.  work: the working set of a
 * full-recompute backward, added once. */
double mem_activations(int pp, double per_layer, double layers, double first, double last,
                       double microbatches, double interleave, double work);

/* ---- comm.c -------------------------------------------------------------- */

/* The data-parallel exchange of one step of a device holding p parameters
 * (grad_bytes each) over the group: an all-reduce; under ZeRO >= 1 a
 * reduce-scatter of the gradients and an all-gather of the updated weights
 * (weight_bytes each), ZeRO-3 also an all-gather of the weights in forward
 * and backward of each of the m microbatches (keep: once a step, the
 * weights kept gathered until the last backward), and where the stack syncs
 * every microbatch's gradients (sync_each: FSDP2's default) a
 * reduce-scatter after each of them, not only the last; with row-sparse
 * tables (sparse_params of the p, sparse_bytes of touched rows) the dense
 * rest all-reduced and the tables all-gathered, or densified when
 * cheaper. */
typedef struct {
    double time_s;                   /* the whole exchange, before overlap */
    double intra_bytes, inter_bytes; /* per device */
    CollCost first;                  /* the gradient collective (its tier names the dp tier) */
    double gather_s;     /* of time_s, ZeRO-3's weight all-gathers (of every microbatch, or the step's one)
                            and the reduce-scatters of all but the last (sync_each): under the microbatches'
                            compute */
    double allgather_s;  /* of time_s, ZeRO-1/2's weight all-gathers after the step */
    double buckets;      /* the collectives each part of the exchange is issued as (0: continuous) */
    double gather_units; /* the collectives gather_s is issued as */
} DpExchange;
void comm_dp_exchange(const System *sys, const Group *g, double p, int zero, long m, int sync_each, int keep,
                      double weight_bytes, double grad_bytes, double sparse_params, double sparse_bytes,
                      double buckets, DpExchange *out);

/* What hiding a collective of comm_s under compute of compute_s costs the
 * compute when the collective's kernels take the fraction lost of the
 * device's SMs (Framework.comm_sms / Device.sms) while they run: the
 * compute redoes lost x comm_s after a shorter collective; under a longer
 * one, what of it the slowed compute does not finish in comm_s. */
double comm_overlap_cost(double comm_s, double compute_s, double lost);

/* The part of a collective of comm_s the stack hides under compute of
 * window_s (the data-parallel exchange under the last microbatch's
 * backward pass, the tensor-parallel collectives under the GEMMs):
 * overlap x comm_s, at most window_s, less what the compute loses to the
 * collective's kernels (lost: the fraction of SMs they hold;
 * comm_overlap_cost). */
double comm_hidden(double comm_s, double overlap, double window_s, double lost);

/* The part of a step's exchange the stack hides: of what its buckets'
 * timeline leaves hideable (comm_bucket_exposed), the share overlap.  The
 * gradient collectives under the last microbatch's backward pass
 * (backward_s); ZeRO-1/2's weight all-gathers under the next step's first
 * forward (forward_s); ZeRO-3's weight all-gathers, prefetched a layer
 * ahead (FSDP, Megatron-FSDP, DeepSpeed stage 3), under the compute they
 * run beside (compute_s: every microbatch's, or where the weights stay
 * gathered the first forward; less what the first parts take of it), the
 * first layer's of each pass shown at least (layers: the device's). */
double comm_dp_hidden_step(const DpExchange *ex, double overlap, double backward_s, double forward_s,
                           double compute_s, double layers, double lost);

/* The part of comm_s, issued as buckets equal collectives that become
 * ready one by one over a window of window_s (gradient buckets over the
 * backward pass, weight buckets ahead of the forward) and run one at a
 * time, that shows after the window: the last bucket's own collective, and
 * what the earlier ones fall behind when one takes longer than the compute
 * between two buckets: c + max(0, (n - 1)(c - W / n)), c = comm_s / n;
 * with buckets < 1 (continuous, the ideal stack) max(0, comm_s - W). */
double comm_bucket_exposed(double comm_s, double buckets, double window_s);

/* Context parallelism's ring (Liu et al. 2023, Ring Attention; as
 * Megatron-Core runs it): the bytes of one ring step, the K and V of one
 * chunk (s/cp tokens of each of the microbatch's sequences, the kv heads on
 * this tensor rank, 16-bit unless the training is fp32); and the time a
 * ring of cp ranks leaves exposed when each of its cp - 1 steps (t_step)
 * hides under the attention of one block (t_block): (cp - 1) max(0,
 * t_step - t_block). */
double comm_cp_chunk(const Model *m, int tp, int cp, int microbatch, Precision p);
double comm_cp_exposed(int cp, double t_step, double t_block);

#endif
