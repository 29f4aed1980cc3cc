/* core/text.h — text from users made safe to echo: a terminal, a CSV file
 * or a workbook shows what the bytes were, never obeys them.  Control
 * characters (C0, DEL, C1), bidirectional-formatting characters (U+202A-
 * U+202E, U+2066-U+2069, U+200E, U+200F, U+061C: they reorder what a reader
 * sees, e.g. the right-to-left override U+202E) and bytes that are not
 * UTF-8 are written as visible escapes: \n, \t, \r, \e, \xHH for a byte,
 * \u{202E} for a code point.  Everything else, including any other
 * non-ASCII text, passes unchanged. */
#ifndef DF_TEXT_H
#define DF_TEXT_H

#include <stddef.h>

/* Decode one UTF-8 sequence at s; returns its length and the code point,
 * or 0 when the bytes are not valid UTF-8 (overlong, surrogate, too big,
 * truncated). */
int text_utf8_decode(const unsigned char *s, unsigned *cp);

/* 1 when code point cp must be escaped (a control or bidi character). */
int text_unsafe(unsigned cp);

/* The escaped text of `in` into out (n bytes, NUL-terminated, cut on a
 * character boundary when it does not fit).  Returns the length the whole
 * escaped text needs (as snprintf), so that a caller can refuse rather than
 * cut.  out may be NULL when n is 0. */
size_t text_escape(const char *in, char *out, size_t n);

/* Escape s in place (its buffer has n bytes); 0, or -1 when the escaped
 * text does not fit (s is then left unchanged). */
int text_escape_inplace(char *s, size_t n);

/* Copy src into dst (n bytes); text that does not fit is cut on a
 * character boundary and marked "..." (never cut silently).  Returns 1 when
 * it was cut. */
int text_copy(char *dst, size_t n, const char *src);

/* snprintf(dst, n, "%s", src) without printf, for the per-row paths: src
 * cut to n - 1 bytes where it does not fit; returns strlen(src). */
size_t text_put(char *dst, size_t n, const char *src);

/* Text built piece by piece without printf, for the per-row paths: each
 * call appends to buf (n bytes) at *at, cut as snprintf would cut the
 * whole (buf always terminated); *at counts what the whole would take. */
void text_cat(char *buf, size_t n, size_t *at, const char *s);
void text_cat_long(char *buf, size_t n, size_t *at, long v); /* as "%ld" */

/* The first name (in order) that repeats an earlier one: its index, and
 * in *first the earlier one's; -1 when every name is distinct (or out of
 * memory: then the names are taken as distinct).  O(n log n): a table of
 * 100,000 columns is checked at once. */
int text_first_repeat(const char *const *names, int n, int *first);

/* Whether a space-separated list holds a word (an empty word: no). */
int text_word_listed(const char *list, const char *word);

#endif
