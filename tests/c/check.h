/* The assertion macro and counters shared by the C tests (test_kuatia.c, test_adversarial.c). */
#ifndef KUATIA_TEST_CHECK_H
#define KUATIA_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
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

#endif
