/* core/keymap.c — see keymap.h. */
#include "keymap.h"

#include <stdlib.h>
#include <string.h>

void key_hash2(const char *s, uint64_t *h1, uint64_t *h2)
{
    uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        a = (a ^ *p) * 0x100000001b3ULL;
        b = (b + *p) * 0x9e3779b97f4a7c15ULL;
        b ^= b >> 29;
    }
    *h1 = a;
    *h2 = b;
}

/* The slot of k in a table of cap slots (a power of two): its own, or
 * the empty one where it goes. */
static size_t slot_in(char *const *key, size_t cap, const char *k)
{
    uint64_t a, b;
    key_hash2(k, &a, &b);
    size_t j = (size_t)(a ^ (b << 1)) & (cap - 1);
    while (key[j] && strcmp(key[j], k))
        j = (j + 1) & (cap - 1);
    return j;
}

/* Twice the slots, the keys moved (not copied) into them. */
static int grow(KeyMap *m)
{
    const size_t cap = m->cap ? m->cap * 2 : 64;
    char **key = calloc(cap, sizeof *key);
    int *id = calloc(cap, sizeof *id);
    if (!key || !id) {
        free(key);
        free(id);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i]) {
            const size_t j = slot_in(key, cap, m->key[i]);
            key[j] = m->key[i];
            id[j] = m->id[i];
        }
    free(m->key);
    free(m->id);
    m->key = key;
    m->id = id;
    m->cap = cap;
    return 0;
}

int keymap_id(KeyMap *m, const char *k, int *fresh)
{
    if (fresh)
        *fresh = 0;
    if (m->last && !strcmp(m->last, k)) /* the same key as last time: no hash */
        return m->last_id;
    if ((m->n + 1) * 2 > m->cap && grow(m))
        return -1;
    const size_t j = slot_in(m->key, m->cap, k);
    if (!m->key[j]) {
        if (!(m->key[j] = strdup(k)))
            return -1;
        if (fresh)
            *fresh = 1;
        m->id[j] = (int)m->n++;
    }
    m->last = m->key[j];
    m->last_id = m->id[j];
    return m->id[j];
}

int keymap_find(const KeyMap *m, const char *k)
{
    if (!m->cap)
        return -1;
    const size_t j = slot_in(m->key, m->cap, k);
    return m->key[j] ? m->id[j] : -1;
}

void keymap_free(KeyMap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->key[i]);
    free(m->key);
    free(m->id);
    memset(m, 0, sizeof *m);
}
