/* core/text.c — escaping of control, bidi and invalid bytes (text.h). */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int text_utf8_decode(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (!len)
        return 0;
    unsigned v = c & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

int text_unsafe(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

size_t text_escape(const char *in, char *out, size_t n)
{
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    size_t o = 0;
    int fits = 1;
    while (*s) {
        if (*s >= 0x20 && *s < 0x7F) { /* a run of printable ASCII, as it is */
            const unsigned char *r = s + 1;
            while (*r >= 0x20 && *r < 0x7F)
                r++;
            const size_t plen = (size_t)(r - s);
            if (fits && o + plen < n) {
                memcpy(out + o, s, plen);
            } else if (fits) { /* what fits of it, as byte by byte */
                fits = 0;
                if (n) {
                    memcpy(out + o, s, n - 1 - o);
                    out[n - 1] = '\0';
                }
            }
            o += plen;
            s = r;
            continue;
        }
        unsigned cp;
        int len = text_utf8_decode(s, &cp);
        char esc[16];
        const char *put = (const char *)s;
        size_t plen = (size_t)len;
        if (!len) {
            snprintf(esc, sizeof esc, "\\x%02X", *s);
            put = esc;
            plen = 4;
            len = 1;
        } else if (text_unsafe(cp)) {
            static const char *const named[32] = {[9] = "\\t", [10] = "\\n", [13] = "\\r", [27] = "\\e"};
            if (cp < 32 && named[cp])
                snprintf(esc, sizeof esc, "%s", named[cp]);
            else if (cp < 0x100)
                snprintf(esc, sizeof esc, "\\x%02X", cp);
            else
                snprintf(esc, sizeof esc, "\\u{%04X}", cp);
            put = esc;
            plen = strlen(esc);
        }
        if (fits && o + plen < n) {
            memcpy(out + o, put, plen);
        } else if (fits) {
            fits = 0;
            if (n)
                out[o] = '\0';
        }
        o += plen;
        s += len;
    }
    if (fits && n)
        out[o] = '\0';
    return o;
}

int text_escape_inplace(char *s, size_t n)
{
    const size_t need = text_escape(s, NULL, 0);
    if (need == strlen(s))
        return 0; /* nothing to escape */
    if (need >= n)
        return -1;
    char *tmp = malloc(need + 1);
    if (!tmp)
        return -1;
    text_escape(s, tmp, need + 1);
    memcpy(s, tmp, need + 1);
    free(tmp);
    return 0;
}

void text_cat(char *buf, size_t n, size_t *at, const char *s)
{
    const size_t l = strlen(s);
    if (*at + 1 < n) {
        const size_t room = n - 1 - *at, k = l < room ? l : room;
        memcpy(buf + *at, s, k);
        buf[*at + k] = '\0';
    }
    *at += l;
}

size_t text_put(char *dst, size_t n, const char *src)
{
    size_t at = 0;
    text_cat(dst, n, &at, src);
    return at;
}

void text_cat_long(char *buf, size_t n, size_t *at, long v)
{
    char digits[24], *p = digits + sizeof digits;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    *--p = '\0';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    text_cat(buf, n, at, p);
}

int text_copy(char *dst, size_t n, const char *src)
{
    const size_t l = strlen(src);
    if (l < n) {
        memcpy(dst, src, l + 1);
        return 0;
    }
    if (n == 0)
        return 1;
    size_t keep = n > 4 ? n - 4 : n - 1;
    while (keep > 0 && ((unsigned char)src[keep] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
        keep--;
    memcpy(dst, src, keep);
    if (n > 4) {
        memcpy(dst + keep, "...", 3);
        keep += 3;
    }
    dst[keep] = '\0';
    return 1;
}

typedef struct {
    const char *s;
    int i;
} NameAt;

static int cmp_name_at(const void *a, const void *b)
{
    const NameAt *x = a, *y = b;
    const int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

int text_first_repeat(const char *const *names, int n, int *first)
{
    if (n < 2)
        return -1;
    NameAt *v = malloc(sizeof *v * (size_t)n);
    if (!v)
        return -1;
    for (int i = 0; i < n; i++)
        v[i] = (NameAt){names[i], i};
    qsort(v, (size_t)n, sizeof *v, cmp_name_at);
    /* in each run of one name (sorted by index) the second is that name's
     * first repeat; the earliest of those is the answer */
    int best = -1;
    for (int k = 1; k < n; k++)
        if (!strcmp(v[k].s, v[k - 1].s) && (k < 2 || strcmp(v[k - 1].s, v[k - 2].s)) &&
            (best < 0 || v[k].i < best)) {
            best = v[k].i;
            *first = v[k - 1].i;
        }
    free(v);
    return best;
}

int text_word_listed(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = list; n && (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}
