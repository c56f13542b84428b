/* The assertion macro, counters and file reader shared by the C tests (test_kuatia.c, test_adversarial.c). */
#ifndef KUATIA_TEST_CHECK_H
#define KUATIA_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

/* Counts a check; on failure prints where, the condition and a printf-style explanation, and goes on. */
#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
        }                                                                 \
    } while (0)

/* A string literal as the (pointer, length) pair the C ABI takes. */
#define S(lit) (const uint8_t *)(lit), strlen(lit)

/* The whole file (malloc'd, one spare byte for a NUL) and its length; NULL when it cannot be read. */
static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

#endif
