/* io/template.c — templates: YAML (ytree) applied to structs through the
 * parameter tables (core/param.h), with strict validation (unknown keys
 * with a suggestion, wrong units, ranges, required keys) and provenance. */
#include "template.h"

#include <ctype.h>
#include <limits.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cnnload.h"
#include "core/text.h"
#include "ytree.h"

int prov_reserve(ProvList *l, int n)
{
    if (n <= l->cap)
        return 0;
    Prov *p = realloc(l->p, sizeof *p * (size_t)n);
    if (!p)
        return -1;
    l->p = p;
    l->cap = n;
    return 0;
}

/* Keys the same but for case (strcasecmp, the first letters compared first:
 * a row's keys are looked up several times each). */
static int same_key(const char *a, const char *b)
{
    return tolower((unsigned char)a[0]) == tolower((unsigned char)b[0]) && !strcasecmp(a, b);
}

int prov_add(ProvList *l, const char *key, const char *file, int line, int col)
{
    for (int i = 0; i < l->n; i++)
        if (same_key(l->p[i].key, key)) {
            l->p[i].file = file;
            l->p[i].line = line;
            l->p[i].col = col;
            return 0;
        }
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        Prov *p = realloc(l->p, sizeof *p * (size_t)cap);
        if (!p)
            return -1;
        l->p = p;
        l->cap = cap;
    }
    Prov *p = &l->p[l->n++];
    text_put(p->key, sizeof p->key, key);
    p->file = file;
    p->line = line;
    p->col = col;
    return 0;
}

const Prov *prov_find(const ProvList *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (same_key(l->p[i].key, key))
            return &l->p[i];
    return NULL;
}

void prov_free(ProvList *l)
{
    free(l->p);
    l->p = NULL;
    l->n = l->cap = 0;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The installed templates: PREFIX/share/deepflow/templates beside
 * PREFIX/bin/deepflow, found from the running executable. */
static int installed_dir(char *out, size_t n)
{
    char exe[512];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(out, n, "%s/../share/deepflow/templates", exe);
    return 0;
}

int tdb_init(TemplateDB *db, const char *root, Diag *d)
{
    memset(db, 0, sizeof *db);
    char installed[700];
    const char *cands[4] = {root, NULL, NULL, NULL};
    int nc = 1;
    if (!root) {
        nc = 0;
        const char *env = getenv("DEEPFLOW_TEMPLATES");
        if (env && *env)
            cands[nc++] = env;
        cands[nc++] = "templates";
        if (installed_dir(installed, sizeof installed) == 0)
            cands[nc++] = installed;
    }
    for (int i = 0; i < nc; i++)
        if (cands[i] && is_dir(cands[i])) {
            snprintf(db->root, sizeof db->root, "%s", cands[i]);
            return 0;
        }
    return diag_set(d, root ? root : "templates", 0, 0,
                    "templates folder not found (set DEEPFLOW_TEMPLATES, run from the project folder, or "
                    "install with make install)");
}

static void template_free(Template *t)
{
    if (!t)
        return;
    free(t->path);
    free(t->obj);
    if (t->free_extra)
        t->free_extra(t->extra);
    prov_free(&t->prov);
    notes_free(&t->warnings);
    free(t);
}

int notes_add(Notes *l, const char *file, int line, int col, const char *msg)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        char **v = realloc(l->s, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        l->s = v;
        l->cap = cap;
    }
    Diag d;
    diag_set(&d, file, line, col, "warning: %s", msg);
    char buf[DIAG_FILE_MAX + DIAG_MSG_MAX + 64];
    diag_format(&d, buf, sizeof buf);
    if (!(l->s[l->n] = strdup(buf)))
        return -1;
    l->n++;
    return 0;
}

void notes_free(Notes *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    l->s = NULL;
    l->n = l->cap = 0;
}

void tdb_free(TemplateDB *db)
{
    for (int i = 0; i < db->n; i++)
        template_free(db->t[i]);
    free(db->t);
    db->t = NULL;
    db->n = db->cap = 0;
    for (int i = 0; i < db->nfailed; i++)
        free(db->failed[i].path);
    free(db->failed);
    db->failed = NULL;
    db->nfailed = db->capfailed = 0;
}

/* Remember a template that failed (best effort: without memory it is simply
 * read again next time). */
static void remember_failure(TemplateDB *db, const ParamTable *table, const char *path, const Diag *d)
{
    if (db->nfailed == db->capfailed) {
        int cap = db->capfailed ? db->capfailed * 2 : 8;
        struct TdbFailure *v = realloc(db->failed, sizeof *v * (size_t)cap);
        if (!v)
            return;
        db->failed = v;
        db->capfailed = cap;
    }
    struct TdbFailure *f = &db->failed[db->nfailed];
    f->path = strdup(path);
    if (!f->path)
        return;
    f->table = table;
    f->diag = *d;
    db->nfailed++;
}

/* ---- applying a YAML mapping to a struct ------------------------------ */

typedef struct {
    TemplateDB *db;
    Template *tpl;               /* the template being built (provenance goes here) */
    int derive_line, derive_col; /* where a device's derive block is */
    const char *path;
    const char *reldir;
    Diag *d;
} Ctx;

static int apply_map(Ctx *c, const ParamTable *t, void *obj, const YNode *map, const char *prefix,
                     const char *provprefix, int root);

/* Does any key of table t start with "prefix."? */
static int has_prefix_key(const ParamTable *t, const char *prefix)
{
    size_t l = strlen(prefix);
    for (size_t i = 0; i < t->count; i++)
        if (!strncasecmp(t->defs[i].key, prefix, l) && t->defs[i].key[l] == '.')
            return 1;
    return 0;
}

static int copy_sub_template(Ctx *c, const ParamDef *def, void *field, const YNode *name, const char *provkey)
{
    const Template *sub = tdb_get(c->db, def->sub, name->text, c->reldir, c->d);
    if (!sub) {
        /* keep the inner diagnostic but say where the reference was */
        if (!c->d->line && c->d->file[0] == '\0') {
            char msg[DIAG_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", c->d->msg);
            diag_set(c->d, c->path, name->line, name->col, "%s", msg);
        }
        return -1;
    }
    memcpy(field, sub->obj, def->sub->struct_size);
    char key[256];
    prov_add(&c->tpl->prov, provkey, c->path, name->line, name->col);
    for (int i = 0; i < sub->prov.n; i++) {
        snprintf(key, sizeof key, "%s.%s", provkey, sub->prov.p[i].key);
        prov_add(&c->tpl->prov, key, sub->prov.p[i].file, sub->prov.p[i].line, sub->prov.p[i].col);
    }
    return 0;
}

/* The P_SUB entry of t that a dotted key descends into ("device" for
 * "device.hbm.bandwidth"), or NULL. */
static const ParamDef *sub_prefix(const ParamTable *t, const char *full)
{
    for (size_t i = 0; i < t->count; i++) {
        size_t kl = strlen(t->defs[i].key);
        if (t->defs[i].type == P_SUB && !strncasecmp(t->defs[i].key, full, kl) && full[kl] == '.')
            return &t->defs[i];
    }
    return NULL;
}

/* "sub.key: value" in a mapping of t: set one key of the object that the
 * P_SUB entry `sub` holds, which must be set already (by this file, whose
 * template references are applied first, or by its base). */
static int apply_dotted_sub(Ctx *c, const ParamDef *sub, void *obj, const YNode *k, const YNode *v,
                            const char *full, const char *provprefix)
{
    char subprov[260], subdot[264], provkey[256];
    snprintf(subprov, sizeof subprov, "%s%s", provprefix, sub->key);
    snprintf(provkey, sizeof provkey, "%s%s", provprefix, full);
    const char *rest = full + strlen(sub->key) + 1;
    if (!strcasecmp(rest, "template"))
        return diag_set(c->d, c->path, k->line, k->col,
                        "key '%s': write '%s: NAME' or '%s: {template: NAME, ...}' to pick the template",
                        provkey, sub->key, sub->key);
    if (!prov_find(&c->tpl->prov, subprov))
        return diag_set(c->d, c->path, k->line, k->col,
                        "key '%s': '%s' is not set (name a %s template first)", provkey, subprov,
                        sub->sub->kind);
    /* the key, less its "sub." prefix, as a one-entry mapping of the sub-table */
    YNode key = *k, *kp = &key, *vp = (YNode *)v, one = {0};
    key.text = (char *)rest;
    one.kind = YN_MAP;
    one.key = &kp;
    one.val = &vp;
    one.n = 1;
    snprintf(subdot, sizeof subdot, "%s.", subprov);
    return apply_map(c, sub->sub, (char *)obj + sub->offset, &one, "", subdot, 0);
}

static int apply_map(Ctx *c, const ParamTable *t, void *obj, const YNode *map, const char *prefix,
                     const char *provprefix, int root)
{
    char full[256], provkey[256], label[300];
    /* template references first, so that dotted keys into them
     * ("device.hbm.bandwidth") apply on top wherever they are written */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < map->n; i++) {
            const YNode *k = map->key[i], *v = map->val[i];
            snprintf(full, sizeof full, "%s%s%s", prefix, *prefix ? "." : "", k->text);
            snprintf(provkey, sizeof provkey, "%s%s", provprefix, full);
            const ParamDef *def = NULL;
            for (size_t j = 0; j < t->count; j++)
                if (!strcasecmp(t->defs[j].key, full)) {
                    def = &t->defs[j];
                    break;
                }
            const char *moved = def ? NULL : param_alias(t, full);
            if (moved) { /* an old name: applied as the dotted key it moved to */
                if (pass == 0)
                    continue;
                const ParamDef *sub = sub_prefix(t, moved);
                if (!sub)
                    return diag_set(c->d, c->path, k->line, k->col, "key '%s': internal alias error", full);
                if (apply_dotted_sub(c, sub, obj, k, v, moved, provprefix))
                    return -1;
                continue;
            }
            if ((def && def->type == P_SUB) != (pass == 0))
                continue;
            if (root && !*prefix &&
                (!strcmp(k->text, "description") || !strcmp(k->text, "sources") || !strcmp(k->text, "base")))
                continue;
            if (!root && !*prefix && !strcmp(k->text, "template"))
                continue;
            /* a models template's layer list: parsed by io/cnnload.c after the keys */
            if (root && !*prefix && t == &param_model_table && !strcmp(k->text, "net"))
                continue;
            if (!def) {
                if (v->kind == YN_MAP && has_prefix_key(t, full)) {
                    if (apply_map(c, t, obj, v, full, provprefix, root))
                        return -1;
                    continue;
                }
                const ParamDef *sub = sub_prefix(t, full);
                if (sub) {
                    if (apply_dotted_sub(c, sub, obj, k, v, full, provprefix))
                        return -1;
                    continue;
                }
                char sug[256];
                if (param_suggest(t, full, sug, sizeof sug))
                    return diag_set(c->d, c->path, k->line, k->col,
                                    "unknown key '%s%s' (did you mean '%s%s'?)", provprefix, full, provprefix,
                                    sug);
                return diag_set(c->d, c->path, k->line, k->col, "unknown key '%s%s' in a %s template",
                                provprefix, full, t->kind);
            }
            void *field = (char *)obj + def->offset;
            if (def->type == P_SUB) {
                if (v->kind == YN_SCALAR) {
                    if (copy_sub_template(c, def, field, v, provkey))
                        return -1;
                    continue;
                }
                if (v->kind != YN_MAP)
                    return diag_set(c->d, c->path, v->line, v->col,
                                    "key '%s': expected a template name or a mapping", provkey);
                const YNode *base = ytree_get(v, "template");
                if (base) {
                    if (base->kind != YN_SCALAR)
                        return diag_set(c->d, c->path, base->line, base->col,
                                        "key '%s.template': expected a template name", provkey);
                    if (copy_sub_template(c, def, field, base, provkey))
                        return -1;
                } else {
                    param_defaults(def->sub, field);
                    prov_add(&c->tpl->prov, provkey, c->path, k->line, k->col);
                }
                char subprov[260];
                snprintf(subprov, sizeof subprov, "%s.", provkey);
                if (apply_map(c, def->sub, field, v, "", subprov, 0))
                    return -1;
                continue;
            }
            char points[4096];
            if (def->type == P_POINTS && v->kind == YN_SEQ) {
                /* [[x, y], ...] -> "x:y;x:y" for param_set */
                size_t len = 0;
                points[0] = '\0';
                for (int j = 0; j < v->n; j++) {
                    const YNode *pt = v->val[j];
                    if (pt->kind != YN_SEQ || pt->n != 2 || pt->val[0]->kind != YN_SCALAR ||
                        pt->val[1]->kind != YN_SCALAR)
                        return diag_set(c->d, c->path, pt->line, pt->col,
                                        "key '%s': point %d: expected [x, y]", provkey, j + 1);
                    len += (size_t)snprintf(points + len, sizeof points - len, "%s%s:%s", j ? ";" : "",
                                            pt->val[0]->text, pt->val[1]->text);
                    if (len >= sizeof points)
                        return diag_set(c->d, c->path, v->line, v->col, "key '%s': too many points", provkey);
                }
                snprintf(label, sizeof label, "key '%s'", provkey);
                if (param_set(def, obj, label, points, c->d)) {
                    c->d->line = v->line;
                    c->d->col = v->col;
                    snprintf(c->d->file, sizeof c->d->file, "%s", c->path);
                    return -1;
                }
                prov_add(&c->tpl->prov, provkey, c->path, v->line, v->col);
                continue;
            }
            if (v->kind != YN_SCALAR) {
                char exp[256];
                param_expect(def, exp, sizeof exp);
                return diag_set(c->d, c->path, v->line, v->col, "key '%s': expected %s, got a %s", provkey,
                                exp, v->kind == YN_MAP ? "mapping" : "list");
            }
            /* the same key twice in one file, once nested and once dotted */
            const Prov *prev = prov_find(&c->tpl->prov, provkey);
            if (prev && prev->file == c->path)
                return diag_set(c->d, c->path, k->line, k->col, "key '%s' is set twice (first at line %d)",
                                provkey, prev->line);
            snprintf(label, sizeof label, "key '%s'", provkey);
            if (param_set(def, obj, label, v->text, c->d)) {
                c->d->line = v->line;
                c->d->col = v->col;
                snprintf(c->d->file, sizeof c->d->file, "%s", c->path);
                return -1;
            }
            if (c->d->warning[0])
                notes_add(&c->tpl->warnings, c->path, v->line, v->col, c->d->warning);
            prov_add(&c->tpl->prov, provkey, c->path, v->line, v->col);
        }
    return 0;
}

/* Required keys of t (and of nested tables that the object set) present? */
static int check_required(Ctx *c, const ParamTable *t, const char *provprefix, const YNode *root)
{
    char key[256];
    for (size_t i = 0; i < t->count; i++) {
        const ParamDef *def = &t->defs[i];
        if (!def->required)
            continue;
        snprintf(key, sizeof key, "%s%s", provprefix, def->key);
        if (!prov_find(&c->tpl->prov, key))
            return diag_set(c->d, c->path, root->line, root->col, "missing required key '%s' (%s)", key,
                            def->help);
        if (def->type == P_SUB) {
            char sub[260];
            snprintf(sub, sizeof sub, "%s.", key);
            if (check_required(c, def->sub, sub, root))
                return -1;
        }
    }
    return 0;
}

/* ---- finding and caching --------------------------------------------- */

static int valid_name(const char *name)
{
    if (!*name)
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.' && *p != '/')
            return 0;
    return 1;
}

static int ends_with(const char *s, const char *suf)
{
    size_t ls = strlen(s), lf = strlen(suf);
    return ls >= lf && !strcasecmp(s + ls - lf, suf);
}

static int resolve_path(const TemplateDB *db, const ParamTable *table, const char *name, const char *reldir,
                        char *out, size_t n, Diag *d)
{
    if (ends_with(name, ".yaml") || ends_with(name, ".yml")) {
        if (name[0] == '/' || strstr(name, "..") || !valid_name(name))
            return diag_set(d, NULL, 0, 0,
                            "%s template '%s': a file name must be relative to the table's folder "
                            "and may not contain '..'",
                            table->kind, name);
        const char *dir = reldir && *reldir ? reldir : ".";
        snprintf(out, n, "%s/%s", dir, name);
        /* a link in the table's folder must not lead out of it */
        char real_dir[PATH_MAX], real_file[PATH_MAX];
        if (realpath(out, real_file) && realpath(dir, real_dir)) {
            const size_t l = strlen(real_dir);
            if (strncmp(real_file, real_dir, l) || (real_file[l] != '/' && strcmp(real_dir, "/")))
                return diag_set(d, NULL, 0, 0,
                                "%s template '%s' resolves to '%s', outside the table's folder '%s' (a link "
                                "may not lead out of it)",
                                table->kind, name, real_file, real_dir);
        }
        return 0;
    }
    if (strchr(name, '/') || !valid_name(name))
        return diag_set(d, NULL, 0, 0,
                        "%s template '%s': expected a template name (letters, digits, '-', '_', '.')",
                        table->kind, name);
    char lower[128];
    size_t i = 0;
    for (; i < sizeof lower - 1 && name[i]; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    lower[i] = '\0';
    snprintf(out, n, "%s/%s/%s.yaml", db->root, table->kind, lower);
    return 0;
}

/* Place a finish() diagnostic ("key 'hidden': ...") at the value of the key
 * it names, wherever that was set (this file or a base), else at the top of
 * the file. */
static void finish_place(const Template *t, const YNode *root, Diag *d)
{
    const Prov *p = NULL;
    for (int k = 0; k < DIAG_KEYS && !p && d->key[k][0]; k++)
        p = prov_find(&t->prov, d->key[k]);
    snprintf(d->file, sizeof d->file, "%s", p ? p->file : t->path);
    d->line = p ? p->line : root->line;
    d->col = p ? p->col : root->col;
}

/* A device template's `derive:` block: the technology (a template) and the
 * area, power and perimeter budgets (param_derive_table) are stored in the
 * device; evaluate() runs the generator (tech/tech.h).  Every device
 * figure a template of the chain sets explicitly is pinned: it stays over
 * the derived value.  The figures nobody sets are attributed to the derive
 * block in the provenance. */
static void derived_visit(const char *key, const ParamDef *def, const void *obj, void *ctx)
{
    (void)obj;
    Ctx *c = ctx;
    if (def->type != P_SUB && strncmp(key, "derive.", 7) && strcmp(key, "name") &&
        strcmp(key, "launch_overhead") && !prov_find(&c->tpl->prov, key))
        prov_add(&c->tpl->prov, key, c->path, c->derive_line, c->derive_col);
}

/* Pin the device figures this file sets (a base's pins came with its
 * object). */
static void pin_device_keys(Ctx *c, Device *dev)
{
    const ParamTable *t = &param_device_table;
    for (size_t i = 0; i < t->count && i < 64; i++) {
        const Prov *p = t->defs[i].type == P_SUB ? NULL : prov_find(&c->tpl->prov, t->defs[i].key);
        if (p && p->file == c->path)
            dev->pinned |= (uint64_t)1 << i;
    }
}

static int finish_device(Ctx *c, const YNode *root)
{
    Device *dev = c->tpl->obj;
    pin_device_keys(c, dev);
    const YNode *dv = ytree_get(root, "derive");
    if (dv) {
        if (dv->kind != YN_MAP)
            return diag_set(c->d, c->path, dv->line, dv->col,
                            "key 'derive': expected a mapping (technology, area, power, perimeter, bundle)");
        if (check_required(c, &param_derive_table, "derive.", dv))
            return -1;
        /* the spec's name marks the device as derived */
        snprintf(dev->derive.name, sizeof dev->derive.name, "%s", dev->derive.technology.name);
        c->derive_line = dv->line;
        c->derive_col = dv->col;
    }
    if (dev->derive.name[0] && c->derive_line)
        param_walk(&param_device_table, dev, "", derived_visit, c);
    if (dev->derive.name[0] && c->db->check && c->db->check(&param_device_table, dev, c->d)) {
        char msg[DIAG_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", c->d->msg);
        /* the generator names the derive keys at fault ("derive: keys 'power.*': ...") */
        return diag_set(c->d, c->path, dv ? dv->line : root->line, dv ? dv->col : root->col, "%s", msg);
    }
    return 0;
}

static Template *load_template(TemplateDB *db, const ParamTable *table, const char *name, const char *path,
                               const char *reldir, Diag *d)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        char **names = NULL;
        int n = 0;
        char list[512] = "";
        if (tdb_list(db, table->kind, &names, &n) == 0) {
            size_t len = 0;
            for (int i = 0; i < n; i++) {
                if (len < sizeof list - 1)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
                free(names[i]);
            }
            free(names);
        }
        return diag_set(d, NULL, 0, 0, "no %s template '%s' (known: %s)", table->kind, name,
                        *list ? list : "none"),
               NULL;
    }
    YNode *root = ytree_load(path, d);
    if (!root)
        return NULL;
    Template *t = calloc(1, sizeof *t);
    if (!t || !(t->obj = calloc(1, table->struct_size)) || !(t->path = strdup(path))) {
        template_free(t);
        ytree_free(root);
        diag_set(d, path, 0, 0, "out of memory");
        return NULL;
    }
    t->table = table;
    snprintf(t->name, sizeof t->name, "%s", name);
    Ctx c = {db, t, 0, 0, t->path, reldir, d};
    if (root->kind != YN_MAP) {
        diag_set(d, path, root->line, root->col, "a template must be a mapping of keys to values");
        goto fail;
    }
    param_defaults(table, t->obj);
    const YNode *base = ytree_get(root, "base");
    if (base) {
        if (base->kind != YN_SCALAR) {
            diag_set(d, path, base->line, base->col, "key 'base': expected a template name");
            goto fail;
        }
        const Template *b = tdb_get(db, table, base->text, reldir, d);
        if (!b) {
            if (!d->file[0]) {
                char msg[DIAG_MSG_MAX];
                snprintf(msg, sizeof msg, "%s", d->msg);
                diag_set(d, path, base->line, base->col, "key 'base': %s", msg);
            }
            goto fail;
        }
        memcpy(t->obj, b->obj, table->struct_size);
        for (int i = 0; i < b->prov.n; i++)
            prov_add(&t->prov, b->prov.p[i].key, b->prov.p[i].file, b->prov.p[i].line, b->prov.p[i].col);
    }
    if (apply_map(&c, table, t->obj, root, "", "", 1))
        goto fail;
    if (table == &param_device_table && finish_device(&c, root))
        goto fail;
    if (check_required(&c, table, "", root))
        goto fail;
    if (table == &param_model_table) { /* cnn layer list; a base's net is inherited with the struct */
        CnnNet *net = NULL;
        if (cnnload_template(root, t->path, t->obj, &net, d))
            goto fail;
        if (net) {
            t->extra = net;
            t->free_extra = cnnload_free;
        }
    }
    if (table->finish) {
        /* validate derived values on a copy: the stored object stays raw so
         * that overrides (hidden=...) can still change derived defaults */
        void *tmp = malloc(table->struct_size);
        int bad = !tmp;
        if (tmp) {
            memcpy(tmp, t->obj, table->struct_size);
            bad = table->finish(tmp, d);
            free(tmp);
        }
        if (bad) {
            finish_place(t, root, d);
            goto fail;
        }
    }
    ytree_free(root);
    return t;
fail:
    ytree_free(root);
    template_free(t);
    return NULL;
}

/* t, found by its name: remembered (TemplateDB.memo); returns t. */
static const Template *memo_put(TemplateDB *db, const ParamTable *table, const char *name, const Template *t)
{
    if (strlen(name) < sizeof db->memo[0].name && !ends_with(name, ".yaml") && !ends_with(name, ".yml")) {
        db->memo[db->memo_next].table = table;
        db->memo[db->memo_next].t = t;
        text_put(db->memo[db->memo_next].name, sizeof db->memo[0].name, name);
        db->memo_next = (db->memo_next + 1) % TDB_MEMO;
    }
    return t;
}

const Template *tdb_get(TemplateDB *db, const ParamTable *table, const char *name, const char *reldir,
                        Diag *d)
{
    for (int i = 0; i < TDB_MEMO; i++) /* a file name is never remembered */
        if (db->memo[i].t && db->memo[i].table == table && !strcmp(db->memo[i].name, name))
            return db->memo[i].t;
    char path[1024];
    if (resolve_path(db, table, name, reldir, path, sizeof path, d))
        return NULL;
    for (int i = 0; i < db->n; i++)
        if (db->t[i]->table == table && !strcmp(db->t[i]->path, path))
            return memo_put(db, table, name, db->t[i]);
    for (int i = 0; i < db->nfailed; i++)
        if (db->failed[i].table == table && !strcmp(db->failed[i].path, path)) {
            *d = db->failed[i].diag;
            return NULL;
        }
    for (int i = 0; i < db->loading; i++)
        if (!strcmp(db->chain_path[i], path)) {
            /* "a -> b -> a": the caller says where the reference is */
            char list[DIAG_MSG_MAX] = "";
            size_t len = 0;
            for (int j = i; j < db->loading && len < sizeof list; j++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s -> ", db->chain_name[j]);
            return diag_set(d, NULL, 0, 0, "templates %s%s form a cycle", list, name), NULL;
        }
    if (db->loading >= TDB_MAX_CHAIN) {
        diag_set(d, path, 0, 0, "templates refer to each other more than %d deep", TDB_MAX_CHAIN);
        return NULL;
    }
    db->chain_path[db->loading] = path;
    db->chain_name[db->loading] = name;
    db->loading++;
    Template *t = load_template(db, table, name, path, reldir, d);
    db->loading--;
    if (!t) {
        /* a file's own fault is the file's, whoever asks: read it once (a
         * cycle depends on who asks, so it is not remembered) */
        if (d->file[0] && !strstr(d->msg, "form a cycle"))
            remember_failure(db, table, path, d);
        return NULL;
    }
    if (db->n == db->cap) {
        int cap = db->cap ? db->cap * 2 : 16;
        Template **v = realloc(db->t, sizeof *v * (size_t)cap);
        if (!v) {
            template_free(t);
            diag_set(d, path, 0, 0, "out of memory");
            return NULL;
        }
        db->t = v;
        db->cap = cap;
    }
    db->t[db->n++] = t;
    return memo_put(db, table, name, t);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tdb_list(const TemplateDB *db, const char *kind, char ***names, int *n)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/%s", db->root, kind);
    *names = NULL;
    *n = 0;
    DIR *dp = opendir(dir);
    if (!dp)
        return -1;
    int cap = 0;
    const struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **v = realloc(*names, sizeof *v * (size_t)cap);
            if (!v)
                break;
            *names = v;
        }
        (*names)[(*n)++] = strndup(e->d_name, l - 5);
    }
    closedir(dp);
    if (*n)
        qsort(*names, (size_t)*n, sizeof **names, cmp_str);
    return 0;
}
