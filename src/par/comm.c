/* par/comm.c — the data-parallel gradient exchange (see parts.h). */
#include "parts.h"

#include <math.h>
#include <string.h>

void comm_dp_exchange(const System *sys, const Group *g, double p, int zero, long m, int sync_each, int keep,
                      double weight_bytes, double grad_bytes, double sparse_params, double sparse_bytes,
                      double buckets, DpExchange *out)
{
    CollCost c1, c2, c3;
    memset(&c2, 0, sizeof c2);
    memset(&c3, 0, sizeof c3);
    /* each bucket its own collective, paying the group's latency once:
     * time and bytes of the nb of them */
    const double nb = buckets >= 1.0 ? buckets : 1.0;
    double t, n3 = 0, n1 = 1, n2 = nb;
    if (zero >= 1) {
        /* ZeRO >= 1: reduce-scatter the gradients; ZeRO-1 and 2 then
         * all-gather the updated 16-bit weights, ZeRO-3 (and FSDP) keeps
         * them sharded and all-gathers them in forward and backward of
         * every microbatch instead (DeepSpeed's stage 3 and FSDP gather a
         * layer's weights where it runs, never after the step); kept
         * gathered from the first forward to the last backward (keep:
         * reshard_after_forward no), once a step */
        net_collective(sys, g, COLL_REDUCESCATTER, p * grad_bytes / nb, &c1);
        if (zero < 3)
            net_collective(sys, g, COLL_ALLGATHER, p * weight_bytes / nb, &c2);
        t = nb * (c1.time_s + c2.time_s);
        if (zero == 3) {
            net_collective(sys, g, COLL_ALLGATHER, p * weight_bytes / nb, &c3);
            n3 = keep ? 1.0 : 2.0 * m;
            t += n3 * nb * c3.time_s;
            /* FSDP2 reduce-scatters every backward unless told not to
             * (set_requires_gradient_sync: "gradient accumulation *without
             * communication*"): the m - 1 earlier microbatches' too */
            if (sync_each && m > 1) {
                n1 = (double)m;
                t += (n1 - 1.0) * nb * c1.time_s;
            }
        }
    } else if (sparse_params > 0) {
        /* dense part all-reduced; the sparse tables all-gathered (every rank
         * receives every other's rows), or densified when that is cheaper
         * (Horovod's sparse_as_dense) */
        CollCost dense;
        net_collective(sys, g, COLL_ALLREDUCE, (p - sparse_params) * grad_bytes / nb, &c1);
        net_collective(sys, g, COLL_ALLGATHER, sparse_bytes * g->p, &c2);
        net_collective(sys, g, COLL_ALLREDUCE, sparse_params * grad_bytes, &dense);
        if (dense.time_s < c2.time_s)
            c2 = dense;
        n2 = 1.0; /* the tables' exchange is one collective */
        t = nb * c1.time_s + c2.time_s;
    } else {
        net_collective(sys, g, COLL_ALLREDUCE, p * grad_bytes / nb, &c1);
        t = nb * c1.time_s;
    }
    out->time_s = t;
    out->intra_bytes = nb * (n1 * c1.intra_bytes + n3 * c3.intra_bytes) + n2 * c2.intra_bytes;
    out->inter_bytes = nb * (n1 * c1.inter_bytes + n3 * c3.inter_bytes) + n2 * c2.inter_bytes;
    out->first = c1;
    out->gather_s = nb * (n3 * c3.time_s + (n1 - 1.0) * c1.time_s);
    out->allgather_s = zero >= 1 && zero < 3 ? nb * c2.time_s : 0.0;
    out->buckets = buckets;
    out->gather_units = buckets >= 1.0 ? nb * (n3 + n1 - 1.0) : 0.0; /* 0: continuous */
}

double comm_overlap_cost(double comm_s, double compute_s, double lost)
{
    if (!(comm_s > 0) || !(compute_s > 0) || !(lost > 0))
        return 0.0;
    if (lost >= 1.0)
        return fmin(comm_s, compute_s); /* the compute cannot run beside it: nothing is hidden */
    /* the compute runs at 1 - lost of its rate while the collective runs:
     * under a shorter collective it redoes lost x comm_s afterwards; a
     * longer one covers the slowed compute until comm_s (1 - lost) of it */
    return comm_s <= compute_s ? lost * comm_s : fmax(0.0, compute_s - comm_s * (1.0 - lost));
}

double comm_hidden(double comm_s, double overlap, double window_s, double lost)
{
    const double under = overlap * comm_s;
    const double hidden = under > window_s ? window_s : under;
    return hidden - comm_overlap_cost(under, window_s, lost);
}

double comm_bucket_exposed(double comm_s, double buckets, double window_s)
{
    if (!(comm_s > 0))
        return 0.0;
    if (!(buckets >= 1.0)) /* continuous: all of it that fits the window */
        return fmax(0.0, comm_s - window_s);
    const double n = buckets, c = comm_s / n;
    return fmin(comm_s, c + fmax(0.0, (n - 1.0) * (c - window_s / n)));
}

/* hidden of comm_s (issued as buckets collectives, floor exposed at
 * least) under window_s: the share overlap of what the buckets' timeline
 * leaves hideable, less what the compute loses to the collectives */
static double bucket_hidden(double comm_s, double buckets, double floor, double overlap, double window_s,
                            double lost)
{
    if (!(comm_s > 0) || !(overlap > 0))
        return 0.0;
    const double can = comm_s - fmax(floor, comm_bucket_exposed(comm_s, buckets, window_s));
    return comm_hidden(comm_s, overlap * fmax(0.0, can) / comm_s, window_s, lost);
}

double comm_dp_hidden_step(const DpExchange *ex, double overlap, double backward_s, double forward_s,
                           double compute_s, double layers, double lost)
{
    /* the gradients' buckets under the last backward; ZeRO-1/2's weight
     * all-gathers, bucket by bucket, under the next step's first forward
     * (Megatron-Core's overlap_param_gather) */
    const double grads = ex->time_s - ex->gather_s - ex->allgather_s;
    const double tail = bucket_hidden(grads, ex->buckets, 0.0, overlap, backward_s, lost) +
                        bucket_hidden(ex->allgather_s, ex->buckets, 0.0, overlap, forward_s, lost);
    /* ZeRO-3's gathers, a layer's at a time, each prefetched under the
     * layer before it: the first layer's of each pass shows */
    const double units = ex->gather_units;
    const double first = layers > 1 ? ex->gather_s / layers : ex->gather_s;
    return tail + bucket_hidden(ex->gather_s, units, first, overlap, fmax(0.0, compute_s - tail), lost);
}

double comm_cp_chunk(const Model *m, int tp, int cp, int microbatch, Precision p)
{
    if (cp < 1 || tp < 1 || m->heads < 1)
        return 0;
    const int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
    const double kv_l = tp <= kv ? (double)kv / tp : 1.0,
                 hd = m->head_dim > 0 ? (double)m->head_dim : (double)m->hidden / m->heads;
    const double e = precision_value_bytes(p);
    return 2.0 * microbatch * ((double)m->seq_len / cp) * kv_l * hd * e;
}

double comm_cp_exposed(int cp, double t_step, double t_block)
{
    return cp > 1 ? (cp - 1) * fmax(0.0, t_step - t_block) : 0.0;
}
