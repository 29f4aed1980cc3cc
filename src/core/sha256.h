/* core/sha256.h — SHA-256 (FIPS 180-4), for the digests of the input table
 * and the templates in the workbook's About sheet.  Pure: bytes in, digest
 * out; the caller reads the files.  A Sha256 is a plain value on the stack. */
#ifndef DF_SHA256_H
#define DF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN    65 /* 64 hex digits and the NUL */

typedef struct {
    uint32_t h[8];
    uint64_t bytes;  /* message length so far */
    uint8_t buf[64]; /* partial block */
    size_t nbuf;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t len);
void sha256_final(Sha256 *s, uint8_t out[SHA256_DIGEST_LEN]);

/* Digest of one buffer as 64 lower-case hex digits. */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN]);

/* A finished digest as lower-case hex. */
void sha256_to_hex(const uint8_t d[SHA256_DIGEST_LEN], char out[SHA256_HEX_LEN]);

#endif
