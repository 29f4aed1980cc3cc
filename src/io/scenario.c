/* io/scenario.c — settings (row cells, KEY=VALUE) to a Scenario through the
 * scenario parameter table, which nests the system and model tables: one
 * mechanism for columns and dotted overrides alike. */
#include "scenario.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/strategy.h"
#include "core/text.h"

static int setting_error(Diag *d, const char *file, const Setting *s)
{
    snprintf(d->file, sizeof d->file, "%s", file);
    d->line = s->line;
    d->col = s->col;
    return -1;
}

/* The bad values of one row: the first as the row's diagnostic, the others
 * as "L:C: message" after it, as many as fit. */
typedef struct {
    int count;
    Diag first;
    char more[DIAG_MSG_MAX];
} BadCells;

static void more_errors(BadCells *b, Diag *d, const char *file, const Setting *s)
{
    if (b->count++ == 0) {
        setting_error(d, file, s);
        b->first = *d;
        return;
    }
    const size_t l = strlen(b->more);
    char item[DIAG_MSG_MAX + 32];
    snprintf(item, sizeof item, "%s%d:%d: %s", l ? "; " : "", s->line, s->col, d->msg);
    if (l + strlen(item) < sizeof b->more - 16)
        memcpy(b->more + l, item, strlen(item) + 1);
    else if (!strstr(b->more, "; ..."))
        snprintf(b->more + l, sizeof b->more - l, "; ...");
}

static int load_ref(TemplateDB *db, const char *file, const char *reldir, const Setting *s,
                    const ParamDef *def, void *field, const Template **out, Diag *d)
{
    diag_clear(d);
    const Template *t = tdb_get(db, def->sub, s->text, reldir, d);
    if (!t) {
        if (!d->file[0]) {
            char msg[DIAG_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", d->msg);
            diag_set(d, file, s->line, s->col, "column '%s': %s", s->name, msg);
        }
        return -1;
    }
    memcpy(field, t->obj, def->sub->struct_size);
    if (out)
        *out = t;
    return 0;
}

/* A template's finish check failed after the row's overrides (d holds its
 * message and keys): placed at the override that made it inconsistent, if
 * one did, else at the row; "model 'NAME': ..." for what = "model". */
static int finish_error(Diag *d, const ScenarioSource *src, const char *file, int row_line, const char *what,
                        const char *name)
{
    char msg[DIAG_MSG_MAX], key[140];
    const Prov *p = NULL;
    for (int k = 0; k < DIAG_KEYS && !p && d->key[k][0]; k++) {
        snprintf(key, sizeof key, "%s.%s", what, d->key[k]);
        p = prov_find(&src->over, key);
    }
    char full[DIAG_MSG_MAX + NAME_MAX_LEN + 16];
    snprintf(full, sizeof full, "%s '%s': %s", what, name, d->msg);
    text_copy(msg, sizeof msg, full);
    return diag_set(d, file, p ? p->line : row_line, p ? p->col : 0, "%s", msg);
}

static int unknown_column(Diag *d, const char *file, int line, int col, const char *name)
{
    char sug[256];
    if (param_suggest(&param_scenario_table, name, sug, sizeof sug))
        return diag_set(d, file, line, col, "unknown column '%s' (did you mean '%s'?)", name, sug);
    return diag_set(d, file, line, col,
                    "unknown column '%s' (a scenario column or a dotted template path such as model.layers)",
                    name);
}

int scenario_measured_column(const char *name)
{
    static const char *const cols[] = {"measured_step_time_s", "measured_tokens_per_s_per_device",
                                       "measured_memory_gib"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (!strcasecmp(name, cols[i]))
            return 1;
    return 0;
}

int scenario_check_header(const Table *t, Diag *d)
{
    for (int c = 0; c < t->ncol; c++)
        if (!scenario_measured_column(t->col_name[c]) &&
            !param_find(&param_scenario_table, t->col_name[c], NULL, NULL))
            return unknown_column(d, t->path, t->header_line, t->col_col[c], t->col_name[c]);
    return 0;
}

enum { ROLE_SYSTEM = 1, ROLE_MODEL, ROLE_MEASURED, ROLE_PARAM, ROLE_UNKNOWN };

static int build_resolved(TemplateDB *db, const char *file, const char *reldir, const Setting *s, int n,
                          int row_line, const Scenario *defaults, Scenario *sc, ScenarioSource *src, Diag *d);

void scenario_resolve(Setting *s)
{
    s->def = NULL;
    s->owner = NULL;
    s->base = 0;
    if (!strcasecmp(s->name, "system"))
        s->role = ROLE_SYSTEM;
    else if (!strcasecmp(s->name, "model"))
        s->role = ROLE_MODEL;
    else if (scenario_measured_column(s->name))
        s->role = ROLE_MEASURED;
    else
        s->role = (s->def = param_find(&param_scenario_table, s->name, &s->owner, &s->base)) ? ROLE_PARAM
                                                                                             : ROLE_UNKNOWN;
}

void scenario_defaults(Scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    param_defaults(&param_scenario_table, sc);
    sc->st.dp = 0; /* derived below unless set */
}

int scenario_build(TemplateDB *db, const char *file, const char *reldir, const Setting *s, int n,
                   int row_line, Scenario *sc, ScenarioSource *src, Diag *d)
{
    Scenario *defaults = malloc(sizeof *defaults);
    Setting *set = malloc(sizeof *set * (size_t)(n > 0 ? n : 1));
    int rc = -1;
    if (!defaults || !set) {
        diag_set(d, file, row_line, 0, "out of memory");
    } else {
        scenario_defaults(defaults);
        for (int i = 0; i < n; i++) {
            set[i] = s[i];
            scenario_resolve(&set[i]);
        }
        rc = scenario_build_from(db, file, reldir, set, n, row_line, defaults, sc, src, d);
    }
    free(set);
    free(defaults);
    return rc;
}

int scenario_build_from(TemplateDB *db, const char *file, const char *reldir, const Setting *s, int n,
                        int row_line, const Scenario *defaults, Scenario *sc, ScenarioSource *src, Diag *d)
{
    /* the defaults but the system and the model, which come whole from
     * their templates (build_resolved loads them first; where it cannot,
     * it takes the defaults' too) */
    const size_t sys = offsetof(Scenario, system), end = offsetof(Scenario, model) + sizeof sc->model;
    memcpy(sc, defaults, sys);
    memcpy((char *)sc + end, (const char *)defaults + end, sizeof *sc - end);
    const ProvList over = src->over; /* an earlier build's buffer, kept (a malloc a row less) */
    memset(src, 0, sizeof *src);
    src->over.p = over.p;
    src->over.cap = over.cap;
    return build_resolved(db, file, reldir, s, n, row_line, defaults, sc, src, d);
}

/* Build onto sc (defaults in place) from resolved settings (Setting.role). */
static int build_resolved(TemplateDB *db, const char *file, const char *reldir, const Setting *s, int n,
                          int row_line, const Scenario *defaults, Scenario *sc, ScenarioSource *src, Diag *d)
{
    /* The two base templates first, so that overrides apply on top. */
    static const char *const bases[2] = {"system", "model"};
    for (int b = 0; b < 2; b++) {
        const Setting *found = NULL;
        for (int i = 0; i < n; i++)
            if (s[i].role == (b ? ROLE_MODEL : ROLE_SYSTEM) && s[i].text[0])
                found = &s[i];
        const ParamDef *def = param_find(&param_scenario_table, bases[b], NULL, NULL);
        if (!found || load_ref(db, file, reldir, found, def, (char *)sc + def->offset,
                               b ? &src->model : &src->system, d)) {
            /* what is not loaded is the defaults' */
            if (!b)
                sc->system = defaults->system;
            sc->model = defaults->model;
            return found ? -1
                         : diag_set(d, file, row_line, 0,
                                    "column '%s': required, names a template in templates/%ss", bases[b],
                                    bases[b]);
        }
    }

    /* Template swaps (system.device=...) before the values, so that an
     * override of the swapped template lands whatever the column order. */
    char label[300];
    BadCells bad; /* its first is set with the count's first (not cleared: 2.7 KB a row) */
    bad.count = 0;
    bad.more[0] = '\0';
    int nset = 0;
    for (int i = 0; i < n; i++)
        nset +=
            s[i].text[0] && s[i].role != ROLE_SYSTEM && s[i].role != ROLE_MODEL && s[i].role != ROLE_MEASURED;
    if (prov_reserve(&src->over, src->over.n + nset))
        return diag_set(d, file, row_line, 0, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            if (!s[i].text[0] || s[i].role == ROLE_SYSTEM || s[i].role == ROLE_MODEL ||
                s[i].role == ROLE_MEASURED)
                continue;
            const size_t base = s[i].base;
            const ParamTable *owner = s[i].owner;
            const ParamDef *def = s[i].def;
            if ((def && def->type == P_SUB) != (pass == 0))
                continue;
            if (!def) /* a misspelt header: said at the header, not at the row's cell */
                return unknown_column(d, file, s[i].hline ? s[i].hline : s[i].line,
                                      s[i].hline ? s[i].hcol : s[i].col, s[i].name);
            void *holder = (char *)sc + base;
            if (def->type == P_SUB) {
                if (load_ref(db, file, reldir, &s[i], def, (char *)holder + def->offset, NULL, d))
                    return -1;
            } else {
                size_t at = 0; /* "column 'NAME'" without printf (once per cell) */
                text_cat(label, sizeof label, &at, "column '");
                text_cat(label, sizeof label, &at, s[i].name);
                text_cat(label, sizeof label, &at, "'");
                if (param_set(def, holder, label, s[i].text, d)) {
                    /* every bad value of the row, not only the first */
                    more_errors(&bad, d, file, &s[i]);
                    continue;
                }
                if (d->warning[0])
                    notes_add(&src->warnings, file, s[i].line, s[i].col, d->warning);
                if (owner == &param_device_table) /* a derive: device keeps it over its derivation */
                    ((Device *)holder)->pinned |= (uint64_t)1 << (def - param_device_table.defs);
            }
            prov_add(&src->over, s[i].name, file, s[i].line, s[i].col);
        }
    }

    if (bad.count) {
        *d = bad.first;
        if (bad.count > 1) {
            const size_t l = strlen(d->msg);
            snprintf(d->msg + l, sizeof d->msg - l, "; also %s", bad.more);
        }
        return -1;
    }

    /* The generator's inputs mean nothing to a device given by its figures. */
    if (!sc->system.device.derive.name[0])
        for (int i = 0; i < src->over.n; i++)
            if (!strncasecmp(src->over.p[i].key, "system.device.derive.", 21)) {
                const Prov *p = &src->over.p[i];
                return diag_set(d, file, p->line, p->col,
                                "column '%s': device '%s' has no derive: block to change (name a derived "
                                "device, e.g. system.device=derived-n5, or drop the column)",
                                p->key, sc->system.device.name);
            }

    /* Derived defaults, after every override; then the system's own
     * consistency (pods need a pod network) */
    if (param_model_table.finish && param_model_table.finish(&sc->model, d))
        return finish_error(d, src, file, row_line, "model", sc->model.name);
    if (param_system_table.finish && param_system_table.finish(&sc->system, d))
        return finish_error(d, src, file, row_line, "system", sc->system.name);
    if (param_site_table.finish(&sc->site, d))
        return finish_error(d, src, file, row_line, "site", sc->site.name[0] ? sc->site.name : "(default)");
    /* the site's PUE and price of energy, where the row does not set its own */
    if (sc->site.pue > 0 && !prov_find(&src->over, "system.pue"))
        sc->system.pue = sc->site.pue;
    if (sc->site.electricity_usd_kwh > 0 && !prov_find(&src->over, "electricity_price"))
        sc->electricity_usd_kwh = sc->site.electricity_usd_kwh;
    /* an explicit 0 trains nothing: say so rather than fall back to the
     * model's own amount */
    {
        static const char *const amounts[] = {"train_tokens", "train_samples", "epochs"};
        const double vals[] = {sc->train_tokens, sc->train_samples, sc->epochs};
        for (int k = 0; k < 3; k++) {
            const Prov *p = prov_find(&src->over, amounts[k]);
            if (p && vals[k] == 0)
                return diag_set(
                    d, file, p->line, p->col,
                    "column '%s': 0 trains nothing; leave the cell empty for the model's own amount",
                    amounts[k]);
        }
    }
    /* the model's own amount where the row states none: a row's
     * train_samples or epochs is not overruled by its model's tokens */
    if (sc->train_tokens == 0 && sc->train_samples == 0 && sc->epochs == 0) {
        sc->train_tokens = sc->model.train_tokens;
        sc->train_samples = sc->model.train_samples;
    }
    if (sc->st.dp == 0 && sc->st.tp != AUTO_VALUE && sc->st.pp != AUTO_VALUE && sc->st.cp != AUTO_VALUE) {
        int mp = sc->st.tp * sc->st.cp * sc->st.pp;
        if (sc->devices % mp && sc->st.cp == 1)
            return diag_set(d, file, row_line, 0, "devices (%d) must be a multiple of tp x pp (%d x %d = %d)",
                            sc->devices, sc->st.tp, sc->st.pp, mp);
        if (sc->devices % mp)
            return diag_set(d, file, row_line, 0,
                            "devices (%d) must be a multiple of tp x cp x pp (%d x %d x %d = %d)",
                            sc->devices, sc->st.tp, sc->st.cp, sc->st.pp, mp);
        sc->st.dp = sc->devices / mp;
    }
    /* a rack-scale system is bought, rented and powered by the rack: the
     * rest of a partial rack stands idle */
    if (sc->system.devices_per_node >= RACK_SCALE_DEVICES && sc->devices % sc->system.devices_per_node) {
        const Prov *p = prov_find(&src->over, "devices");
        const int dpn = sc->system.devices_per_node, racks = system_nodes(&sc->system, sc->devices);
        char msg[DIAG_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "devices (%d) is not a whole number of %s racks (%d devices each): %d rack%s hold%s %d "
                 "devices, %d of them idle; the rental cost counts only the %d used, the power the racks' "
                 "overhead in full",
                 sc->devices, sc->system.name, dpn, racks, racks > 1 ? "s" : "", racks > 1 ? "" : "s",
                 racks * dpn, racks * dpn - sc->devices, sc->devices);
        notes_add(&src->warnings, file, p ? p->line : row_line, p ? p->col : 0, msg);
    }
    if (sc->st.global_batch == 0 && sc->replica_batch > 0 && sc->st.dp > 0)
        sc->st.global_batch = (int64_t)sc->replica_batch * sc->st.dp;
    else if (sc->st.global_batch == 0 && sc->st.microbatch != AUTO_VALUE && sc->st.dp > 0) {
        sc->st.global_batch = (int64_t)sc->st.microbatch * sc->st.dp;
        sc->global_batch_defaulted = 1;
    }
    /* a block recompute redoes some of a transformer's identical layers,
     * under a full recompute (or one the search may choose) */
    const int rl = sc->st.recompute_layers;
    char rls[16] = "auto"; /* for the messages below */
    if (rl != AUTO_VALUE) {
        size_t at = 0;
        text_cat_long(rls, sizeof rls, &at, rl);
    }
    if (rl != 0 && sc->model.kind != MODEL_TRANSFORMER)
        return diag_set(
            d, file, row_line, 0,
            "recompute_layers (%s) recomputes blocks of a transformer's layers; a %s model takes 0", rls,
            model_kind_name(sc->model.kind));
    if (rl != 0 && (int)sc->st.recompute != AUTO_VALUE && sc->st.recompute != RECOMPUTE_FULL)
        return diag_set(d, file, row_line, 0, "recompute_layers (%s) needs recompute full (or auto), got %s",
                        rls, recompute_name(sc->st.recompute));
    if (strategy_check(sc, d)) {
        char msg[DIAG_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", d->msg);
        return diag_set(d, file, row_line, 0, "%s", msg);
    }
    return 0;
}

int scenario_build_kv(TemplateDB *db, const char *file, const char *const *kv, const int *line, int n,
                      Scenario *sc, ScenarioSource *src, Diag *d)
{
    Setting *set = calloc((size_t)(n > 0 ? n : 1), sizeof *set);
    char(*keys)[128] = calloc((size_t)(n > 0 ? n : 1), sizeof *keys);
    int rc = -1;
    memset(src, 0, sizeof *src);
    if (!set || !keys) {
        diag_set(d, file, 0, 0, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        const int at = line ? line[i] : i + 1;
        if (!eq || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof keys[i]) {
            diag_set(d, file, at, 0, "expected KEY=VALUE, got '%s'", kv[i]);
            goto done;
        }
        for (size_t k = 0; k < (size_t)(eq - kv[i]); k++)
            keys[i][k] = (char)tolower((unsigned char)kv[i][k]);
        set[i] = (Setting){.name = keys[i], .text = eq + 1, .line = at};
    }
    { /* as a table refuses a duplicate column: never 'the last wins' */
        const char **names = calloc((size_t)(n > 0 ? n : 1), sizeof *names);
        if (!names) {
            diag_set(d, file, 0, 0, "out of memory");
            goto done;
        }
        for (int i = 0; i < n; i++)
            names[i] = keys[i];
        int j = 0;
        const int i = text_first_repeat(names, n, &j);
        free(names);
        if (i >= 0) {
            diag_set(d, file, line ? line[i] : i + 1, 0,
                     "key '%s' given twice (first as '%s'); give each key once", keys[i], kv[j]);
            goto done;
        }
    }
    rc = scenario_build(db, file, ".", set, n, 0, sc, src, d);
done:
    free(set);
    free(keys);
    return rc;
}

void scenario_source_free(ScenarioSource *src)
{
    prov_free(&src->over);
    notes_free(&src->warnings);
}

void scenario_source_clear(ScenarioSource *src)
{
    notes_free(&src->warnings);
    src->over.n = 0;
}
