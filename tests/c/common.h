/* Helpers shared by the C tests of the exports (test_kuatia.c, test_service.c): the sandbox security code, a JSON
 * string field read without a parser, an error's code, the sandbox signer. Include after check.h. */
#ifndef KUATIA_TEST_COMMON_H
#define KUATIA_TEST_COMMON_H

#include "kuatia.h"

#include <stdio.h>
#include <string.h>

static const char *const SANDBOX_CSC = "ABCD0000000000000000000000000000";

/* The text of a JSON string field ("key":"value", no escapes inside) copied into buf; "" when absent. */
static inline const char *json_str(const char *json, const char *key, char *buf, size_t cap) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *p = strstr(json, pattern);
    buf[0] = 0;
    if (!p) return buf;
    p += strlen(pattern);
    const char *end = strchr(p, '"');
    size_t n = end ? (size_t)(end - p) : 0;
    if (n >= cap) n = cap - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
    return buf;
}

static inline const char *code_of(kuatia_error *err) { return err ? kuatia_error_code(err) : "(no error)"; }

static inline kuatia_signer *sandbox_signer(void) {
    kuatia_signer *s = NULL;
    kuatia_error *err = NULL;
    CHECK(kuatia_signer_sandbox(&s, &err) == KUATIA_STATUS_OK, "%s", code_of(err));
    return s;
}

#endif
