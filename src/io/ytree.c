/* io/ytree.c — YAML to a position-carrying tree with libyaml's event API
 * (see ytree.h for what is rejected and why). */
#include "ytree.h"

#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/text.h"

static YNode *node_new(YNodeKind kind, const yaml_mark_t *mark)
{
    YNode *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = kind;
        n->line = (int)mark->line + 1;
        n->col = (int)mark->column + 1;
    }
    return n;
}

void ytree_free(YNode *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->n; i++) {
        if (n->key)
            ytree_free(n->key[i]);
        ytree_free(n->val[i]);
    }
    free(n->key);
    free(n->val);
    free(n->text);
    free(n);
}

static int node_push(YNode *parent, YNode *key, YNode *val)
{
    if (parent->n == parent->cap) {
        int cap = parent->cap ? parent->cap * 2 : 8;
        YNode **v = realloc(parent->val, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        parent->val = v;
        if (parent->kind == YN_MAP) {
            YNode **k = realloc(parent->key, sizeof *k * (size_t)cap);
            if (!k)
                return -1;
            parent->key = k;
        }
        parent->cap = cap;
    }
    if (parent->kind == YN_MAP)
        parent->key[parent->n] = key;
    parent->val[parent->n++] = val;
    return 0;
}

typedef struct {
    yaml_parser_t parser;
    const char *path;
    Diag *d;
    int nodes;
    const char *buf; /* the input, to place a reader (encoding) error */
    size_t len;
} Reader;

static YNode *read_node(Reader *r, yaml_event_t *ev, int depth);

static int next_event(Reader *r, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&r->parser, ev)) {
        int line = (int)r->parser.problem_mark.line + 1, col = (int)r->parser.problem_mark.column + 1;
        if (r->parser.error == YAML_READER_ERROR && r->buf) {
            /* an encoding error: libyaml gives no mark; the first byte that
             * is not UTF-8, by line and column (characters) */
            line = col = 1;
            for (size_t i = 0; i < r->len;) {
                unsigned cp;
                unsigned char seq[5] = {0}; /* the input is not NUL-terminated: decode a padded copy */
                memcpy(seq, r->buf + i, r->len - i < 4 ? r->len - i : 4);
                int k = text_utf8_decode(seq, &cp);
                if (!k || (k == 1 && !r->buf[i]))
                    return diag_set(r->d, r->path, line, col,
                                    "invalid YAML: byte 0x%02X is not UTF-8 (save the file as UTF-8)",
                                    (unsigned char)r->buf[i]);
                if (r->buf[i] == '\n') {
                    line++;
                    col = 1;
                } else {
                    col++;
                }
                i += (size_t)k;
            }
            return diag_set(r->d, r->path, line, col, "invalid YAML: %s",
                            r->parser.problem ? r->parser.problem : "not UTF-8");
        }
        diag_set(r->d, r->path, line, col, "invalid YAML: %s%s%s",
                 r->parser.problem ? r->parser.problem : "syntax error", r->parser.context ? " " : "",
                 r->parser.context ? r->parser.context : "");
        return -1;
    }
    return 0;
}

static YNode *read_collection(Reader *r, YNode *n, yaml_event_type_t end, int depth)
{
    for (;;) {
        yaml_event_t ev;
        if (next_event(r, &ev))
            goto fail;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return n;
        }
        YNode *key = NULL;
        if (n->kind == YN_MAP) {
            if (ev.type != YAML_SCALAR_EVENT) {
                diag_set(r->d, r->path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                         "a mapping key must be a plain name");
                yaml_event_delete(&ev);
                goto fail;
            }
            key = read_node(r, &ev, depth + 1);
            if (!key)
                goto fail;
            for (int i = 0; i < n->n; i++)
                if (!strcmp(n->key[i]->text, key->text)) {
                    diag_set(r->d, r->path, key->line, key->col, "duplicate key '%s' (first at line %d)",
                             key->text, n->key[i]->line);
                    ytree_free(key);
                    goto fail;
                }
            if (next_event(r, &ev)) {
                ytree_free(key);
                goto fail;
            }
        }
        YNode *val = read_node(r, &ev, depth + 1);
        if (!val || node_push(n, key, val)) {
            ytree_free(key);
            ytree_free(val);
            goto fail;
        }
    }
fail:
    ytree_free(n);
    return NULL;
}

/* Consumes *ev (deletes it). */
static YNode *read_node(Reader *r, yaml_event_t *ev, int depth)
{
    const yaml_mark_t mark = ev->start_mark;
    YNode *n = NULL;
    if (depth > YTREE_MAX_DEPTH || ++r->nodes > YTREE_MAX_NODES) {
        diag_set(r->d, r->path, (int)mark.line + 1, (int)mark.column + 1,
                 "document too deep or too large (limits: depth %d, %d nodes)", YTREE_MAX_DEPTH,
                 YTREE_MAX_NODES);
        yaml_event_delete(ev);
        return NULL;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        /* "\0" in a double-quoted scalar: every later use would cut the text there */
        if (strlen((const char *)ev->data.scalar.value) != ev->data.scalar.length) {
            diag_set(r->d, r->path, (int)mark.line + 1, (int)mark.column + 1,
                     "a value holds a NUL character (\\0), which no text may contain");
            yaml_event_delete(ev);
            return NULL;
        }
        n = node_new(YN_SCALAR, &mark);
        if (n) {
            n->text = strdup((const char *)ev->data.scalar.value);
            n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        }
        yaml_event_delete(ev);
        return n;
    case YAML_MAPPING_START_EVENT:
        yaml_event_delete(ev);
        n = node_new(YN_MAP, &mark);
        return n ? read_collection(r, n, YAML_MAPPING_END_EVENT, depth) : NULL;
    case YAML_SEQUENCE_START_EVENT:
        yaml_event_delete(ev);
        n = node_new(YN_SEQ, &mark);
        return n ? read_collection(r, n, YAML_SEQUENCE_END_EVENT, depth) : NULL;
    case YAML_ALIAS_EVENT:
        diag_set(r->d, r->path, (int)mark.line + 1, (int)mark.column + 1,
                 "YAML aliases are not allowed in templates");
        yaml_event_delete(ev);
        return NULL;
    default:
        diag_set(r->d, r->path, (int)mark.line + 1, (int)mark.column + 1, "unexpected YAML event");
        yaml_event_delete(ev);
        return NULL;
    }
}

YNode *ytree_parse(const char *path, const char *data, size_t len, Diag *d)
{
    Reader r = {.path = path, .d = d, .buf = data, .len = len};
    if (len > YTREE_MAX_BYTES) {
        diag_set(d, path, 0, 0, "template larger than %d bytes", YTREE_MAX_BYTES);
        return NULL;
    }
    if (!yaml_parser_initialize(&r.parser)) {
        diag_set(d, path, 0, 0, "out of memory");
        return NULL;
    }
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)data, len);
    YNode *root = NULL;
    yaml_event_t ev;
    /* stream start, document start */
    for (;;) {
        if (next_event(&r, &ev))
            goto done;
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            diag_set(d, path, 1, 1, "empty template");
            goto done;
        }
        break;
    }
    root = read_node(&r, &ev, 0);
    if (!root)
        goto done;
    if (next_event(&r, &ev)) {
        ytree_free(root);
        root = NULL;
        goto done;
    }
    /* the document must end, and so must the stream ("---" starts another) */
    if (ev.type == YAML_DOCUMENT_END_EVENT) {
        yaml_event_delete(&ev);
        if (next_event(&r, &ev)) {
            ytree_free(root);
            root = NULL;
            goto done;
        }
    }
    if (ev.type != YAML_STREAM_END_EVENT) {
        diag_set(d, path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                 "only one YAML document per template");
        ytree_free(root);
        root = NULL;
    }
    yaml_event_delete(&ev);
done:
    yaml_parser_delete(&r.parser);
    return root;
}

YNode *ytree_load(const char *path, Diag *d)
{
    /* a template is a regular file: opened without waiting (a named pipe
     * with no writer would block the run for ever) and refused otherwise */
    const int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        diag_set(d, path, 0, 0, "cannot open: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        diag_set(d, path, 0, 0, "not a regular file (a template is a YAML file, not a %s)",
                 S_ISFIFO(st.st_mode)  ? "named pipe"
                 : S_ISDIR(st.st_mode) ? "folder"
                                       : "device or socket");
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        diag_set(d, path, 0, 0, "cannot open: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    char *buf = malloc(YTREE_MAX_BYTES + 1);
    size_t len = buf ? fread(buf, 1, YTREE_MAX_BYTES + 1, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        free(buf);
        diag_set(d, path, 0, 0, "cannot read");
        return NULL;
    }
    YNode *n = ytree_parse(path, buf, len, d);
    free(buf);
    return n;
}

const YNode *ytree_get(const YNode *map, const char *key)
{
    if (!map || map->kind != YN_MAP)
        return NULL;
    for (int i = 0; i < map->n; i++)
        if (!strcmp(map->key[i]->text, key))
            return map->val[i];
    return NULL;
}
