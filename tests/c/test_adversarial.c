/* The adversarial table (the *.json files of tests/adversarial, turned into adversarial.h by gen_adversarial.py)
 * replayed through the C ABI, built with -Wall -Wextra -Werror -fsanitize=address,undefined by scripts/ffi-check.sh.
 *
 * Every vector goes to the export that reaches its core entry point (request: kuatia_invoice_validate, and for
 * inputs up to 1 MiB also _totals and _issue; validate: kuatia_invoice_validate's report; xml: kuatia_kude_pdf;
 * verify: kuatia_xml_verify's report; sifen_response: kuatia_sifen_parse_response; ruc: kuatia_ruc_check;
 * cdc: kuatia_cdc_parse; p12: kuatia_signer_from_p12) and must give the table's code (and path), in bounded time,
 * without a crash or a sanitizer report. Two rules of the C boundary apply first (tests/adversarial/README.md):
 * an input longer than KUATIA_MAX_INPUT_LEN is TOO_LARGE before it is read, and bytes that are not UTF-8 given to
 * a text argument are INVALID_UTF8 (only sifen_response and p12 take raw bytes). Then NULL for every pointer
 * argument of those exports, and the peak RSS of the whole run is bounded.
 *
 * Usage: test_adversarial <repository root> */
#define _POSIX_C_SOURCE 200809L
#include "kuatia.h"
#include "adversarial.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "check.h"

/* A hang guard, not a speed test: the slowest vector takes about a second on an idle machine (debug, ASAN) and took
 * 16 s once on a machine at load 18; quadratic behaviour on the 10^6-element vectors would take hours. */
static const double TIME_BOUND_S = 120.0;
/* Peak RSS of the whole run (about 400 MiB measured). The largest input is 100 MiB, built here (the library
 * refuses it unread); ASAN's quarantine keeps freed blocks around, so the bound leaves room for a few of them. */
static const long RSS_BOUND_KB = 1024L * 1024;
/* Inputs above this go through one export only (the 100 MB vectors: once per face, not per function). */
static const size_t SMALL = 1u << 20;
static const char *const NOW = "2025-03-10T10:11:00";

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Strict UTF-8, as Rust's str::from_utf8: no overlongs, no surrogates, nothing above U+10FFFF. */
static int utf8_valid(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t k;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            k = 1, cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            k = 2, cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            k = 3, cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + k >= n) return 0; /* truncated sequence */
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* prefix + unit×count + suffix where every "{i}" of a copy is the copy's index (distinct attribute names, say). */
static uint8_t *numbered_input(const adv_vector *v, size_t *len) {
    size_t p = strlen(v->prefix), u = strlen(v->unit), s = strlen(v->suffix);
    size_t cap = p + (u + u / 3 * 20) * v->count + s; /* each "{i}" (3 bytes) becomes at most 20 digits */
    uint8_t *b = malloc(cap + 1);
    if (!b) return NULL;
    memcpy(b, v->prefix, p);
    size_t n = p;
    for (size_t i = 0; i < v->count; i++) {
        for (const char *c = v->unit; *c;) {
            if (strncmp(c, "{i}", 3) == 0) {
                n += (size_t)snprintf((char *)b + n, 21, "%zu", i);
                c += 3;
            } else {
                b[n++] = (uint8_t)*c++;
            }
        }
    }
    memcpy(b + n, v->suffix, s);
    *len = n + s;
    return b;
}

/* A vector's input bytes: the literal, or prefix + unit×count + suffix built in memory. The caller frees it. */
static uint8_t *input_of(const adv_vector *v, size_t *len) {
    if (!v->repeat) {
        *len = v->len;
        uint8_t *b = malloc(v->len + 1);
        if (b) memcpy(b, v->data, v->len);
        return b;
    }
    if (strstr(v->unit, "{i}")) return numbered_input(v, len);
    size_t p = strlen(v->prefix), u = strlen(v->unit), s = strlen(v->suffix);
    *len = p + u * v->count + s;
    uint8_t *b = malloc(*len + 1);
    if (!b) return NULL;
    memcpy(b, v->prefix, p);
    if (u == 1) {
        memset(b + p, v->unit[0], v->count);
    } else {
        for (size_t i = 0; i < v->count; i++) memcpy(b + p + i * u, v->unit, u);
    }
    memcpy(b + p + u * v->count, v->suffix, s);
    return b;
}

/* What one call answered: accepted, or the first finding's code and path, the status and the message length. */
typedef struct {
    int ok;
    kuatia_status status;
    char code[128];
    char path[256];
    size_t message_len;
} outcome;

/* The JSON string value after `"key":"` at or after `from` (no escapes inside codes and paths); "" when absent. */
static void json_str_after(const char *from, const char *key, char *buf, size_t cap) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    buf[0] = 0;
    const char *p = from ? strstr(from, pattern) : NULL;
    if (!p) return;
    p += strlen(pattern);
    const char *end = strchr(p, '"');
    size_t n = end ? (size_t)(end - p) : 0;
    if (n >= cap) n = cap - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
}

/* The outcome of a failed call from its kuatia_error (which it frees). */
static outcome from_error(kuatia_status st, kuatia_error *err) {
    outcome o;
    memset(&o, 0, sizeof o);
    o.status = st;
    o.ok = st == KUATIA_STATUS_OK;
    if (st != KUATIA_STATUS_OK) {
        snprintf(o.code, sizeof o.code, "%s", err ? kuatia_error_code(err) : "(no error)");
        snprintf(o.path, sizeof o.path, "%s", err ? kuatia_error_path(err) : "");
        o.message_len = err ? strlen(kuatia_error_message(err)) : 0;
    }
    kuatia_error_free(err);
    return o;
}

/* The outcome of a report (`{"ok":..,"errors":[{code,path,message}]}` or verify's `{"valid":..,"error":{..}}`). */
static outcome from_report(const kuatia_bytes *report, const char *ok_key, const char *error_key) {
    outcome o;
    memset(&o, 0, sizeof o);
    const char *r = report->ptr ? (const char *)report->ptr : "";
    char ok_true[32];
    snprintf(ok_true, sizeof ok_true, "\"%s\":true", ok_key);
    o.ok = strstr(r, ok_true) != NULL;
    if (!o.ok) {
        const char *e = strstr(r, error_key);
        json_str_after(e, "code", o.code, sizeof o.code);
        json_str_after(e, "path", o.path, sizeof o.path);
        const char *m = e ? strstr(e, "\"message\":\"") : NULL;
        o.message_len = m ? strcspn(m + 11, "\"") : 0; /* up to the first quote: a lower bound, enough here */
    }
    return o;
}

static outcome run_validate(const uint8_t *in, size_t len) {
    kuatia_bytes report = {NULL, 0};
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_invoice_validate(in, len, NULL, 0, S(NOW), &report, &err);
    if (st != KUATIA_STATUS_OK) return from_error(st, err);
    outcome o = from_report(&report, "ok", "\"errors\":[");
    kuatia_bytes_free(&report);
    return o;
}

static outcome run_totals(const uint8_t *in, size_t len) {
    kuatia_bytes out = {NULL, 0};
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_invoice_totals(in, len, &out, &err);
    kuatia_bytes_free(&out);
    return from_error(st, err);
}

static outcome run_issue(const uint8_t *in, size_t len, const kuatia_signer *signer) {
    kuatia_bytes xml = {NULL, 0}, summary = {NULL, 0};
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_invoice_issue(in, len, NULL, 0, signer, S(NOW), 1, 123456789u, &xml, &summary, &err);
    kuatia_bytes_free(&xml);
    kuatia_bytes_free(&summary);
    return from_error(st, err);
}

static outcome run_kude(const uint8_t *in, size_t len) {
    kuatia_bytes pdf = {NULL, 0};
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_kude_pdf(in, len, KUATIA_KUDE_FORMAT_A4, false, &pdf, &err);
    kuatia_bytes_free(&pdf);
    return from_error(st, err);
}

static outcome run_verify(const uint8_t *in, size_t len) {
    kuatia_bytes report = {NULL, 0};
    kuatia_error *err = NULL;
    bool valid = true;
    kuatia_status st = kuatia_xml_verify(in, len, NULL, 0, &valid, &report, &err);
    if (st != KUATIA_STATUS_OK) return from_error(st, err);
    outcome o = from_report(&report, "valid", "\"error\":{");
    CHECK(o.ok == (int)valid, "out_valid %d disagrees with the report", (int)valid);
    kuatia_bytes_free(&report);
    return o;
}

static outcome run_sifen(const uint8_t *in, size_t len) {
    kuatia_bytes out = {NULL, 0};
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_sifen_parse_response(in, len, &out, &err);
    kuatia_bytes_free(&out);
    return from_error(st, err);
}

static outcome run_ruc(const uint8_t *in, size_t len) {
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_ruc_check(in, len, &err);
    return from_error(st, err);
}

static outcome run_cdc(const uint8_t *in, size_t len) {
    kuatia_bytes out = {NULL, 0};
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_cdc_parse(in, len, &out, &err);
    kuatia_bytes_free(&out);
    return from_error(st, err);
}

static outcome run_p12(const uint8_t *in, size_t len, const char *password) {
    kuatia_signer *s = NULL;
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_signer_from_p12(in, len, S(password ? password : ""), &s, &err);
    CHECK((st == KUATIA_STATUS_OK) == (s != NULL), "out_signer written on failure or missing on success");
    kuatia_signer_free(s);
    return from_error(st, err);
}

/* Compares one outcome with the expectation; `fn` names the export in messages. */
static void expect(const adv_vector *v, const char *fn, outcome o, int want_ok, const char *want_code,
                   const char *want_path, double elapsed) {
    CHECK(o.status != KUATIA_STATUS_PANIC, "%s via %s: PANIC", v->name, fn);
    CHECK(elapsed < TIME_BOUND_S, "%s via %s: took %.2f s", v->name, fn, elapsed);
    if (elapsed > 1.0) fprintf(stderr, "note: %s via %s: %.2f s\n", v->name, fn, elapsed);
    if (want_ok) {
        CHECK(o.ok, "%s via %s: expected ok, got %s at '%s'", v->name, fn, o.code, o.path);
        return;
    }
    CHECK(!o.ok, "%s via %s: accepted, expected %s", v->name, fn, want_code);
    if (o.ok) return;
    CHECK(strcmp(o.code, want_code) == 0, "%s via %s: expected %s, got %s at '%s'", v->name, fn, want_code, o.code,
          o.path);
    if (want_path) CHECK(strcmp(o.path, want_path) == 0, "%s via %s: expected path %s, got '%s'", v->name, fn,
                         want_path, o.path);
    /* An error never echoes a whole hostile input back. */
    CHECK(o.message_len <= 4096, "%s via %s: message of %zu bytes", v->name, fn, o.message_len);
    /* The status matches the code: size limits keep their own status, key problems are sign errors. */
    if (o.status != KUATIA_STATUS_OK) {
        kuatia_status want = strcmp(o.code, "TOO_LARGE") == 0      ? KUATIA_STATUS_TOO_LARGE
                             : strcmp(o.code, "INVALID_UTF8") == 0 ? KUATIA_STATUS_INVALID_UTF8
                             : strncmp(o.code, "P12_", 4) == 0     ? KUATIA_STATUS_SIGN_ERROR
                                                                   : KUATIA_STATUS_INVALID_INPUT;
        CHECK(o.status == want, "%s via %s: status %d for %s", v->name, fn, (int)o.status, o.code);
    }
}

static int counts[16];
static int boundary_rules = 0; /* vectors whose expectation the C boundary's rules replaced */
static const char *const FN_NAMES[] = {
    "kuatia_invoice_validate", "kuatia_invoice_totals", "kuatia_invoice_issue",
    "kuatia_kude_pdf",         "kuatia_xml_verify",     "kuatia_sifen_parse_response",
    "kuatia_ruc_check",        "kuatia_cdc_parse",      "kuatia_signer_from_p12"};

#define TIMED(idx, call)                                                                   \
    do {                                                                                   \
        double t0_ = seconds();                                                            \
        outcome o_ = (call);                                                               \
        counts[idx]++;                                                                     \
        expect(v, FN_NAMES[idx], o_, want_ok, want_code, want_path, seconds() - t0_);       \
    } while (0)

static void replay(const adv_vector *v, const kuatia_signer *signer) {
    size_t len = 0;
    uint8_t *in = input_of(v, &len);
    CHECK(in != NULL, "%s: out of memory building %zu bytes", v->name, len);
    if (!in) return;
    int bytes_target = strcmp(v->target, "sifen_response") == 0 || strcmp(v->target, "p12") == 0;
    int want_ok = v->expect_ok;
    const char *want_code = v->code, *want_path = v->path;
    /* The rules of the C boundary, before any core limit. */
    if (len > KUATIA_MAX_INPUT_LEN) {
        want_ok = 0, want_code = "TOO_LARGE", want_path = NULL;
        boundary_rules++;
    } else if (!bytes_target && !utf8_valid(in, len)) {
        want_ok = 0, want_code = "INVALID_UTF8", want_path = NULL;
        boundary_rules++;
    }
    const char *t = v->target;
    if (strcmp(t, "request") == 0) {
        TIMED(0, run_validate(in, len));
        if (len <= SMALL) {
            TIMED(1, run_totals(in, len));
            TIMED(2, run_issue(in, len, signer));
        }
    } else if (strcmp(t, "validate") == 0) {
        TIMED(0, run_validate(in, len));
    } else if (strcmp(t, "xml") == 0) {
        TIMED(3, run_kude(in, len));
    } else if (strcmp(t, "verify") == 0) {
        TIMED(4, run_verify(in, len));
    } else if (strcmp(t, "sifen_response") == 0) {
        TIMED(5, run_sifen(in, len));
    } else if (strcmp(t, "ruc") == 0) {
        TIMED(6, run_ruc(in, len));
    } else if (strcmp(t, "cdc") == 0) {
        TIMED(7, run_cdc(in, len));
    } else if (strcmp(t, "p12") == 0) {
        TIMED(8, run_p12(in, len, v->password));
    } else {
        CHECK(0, "%s: unknown target %s", v->name, t);
    }
    free(in);
}

/* ---- NULL for every pointer argument of the exports above ------------------------------------------------- */

/* A failed call must be INVALID_ARGUMENT naming `arg`, leave the out-parameters alone, and survive err == NULL. */
static void expect_null(const char *fn, const char *arg, kuatia_status st, kuatia_error **errp) {
    kuatia_error *err = *errp; /* read here: the call, an argument, has run by now */
    *errp = NULL;
    CHECK(st == KUATIA_STATUS_INVALID_ARGUMENT, "%s(%s = NULL): status %d", fn, arg, (int)st);
    CHECK(err != NULL && strcmp(kuatia_error_code(err), "INVALID_ARGUMENT") == 0, "%s(%s = NULL): %s", fn, arg,
          err ? kuatia_error_code(err) : "(no error)");
    CHECK(err != NULL && strcmp(kuatia_error_path(err), arg) == 0, "%s(%s = NULL): path %s", fn, arg,
          err ? kuatia_error_path(err) : "(no error)");
    kuatia_error_free(err);
}

static void test_nulls(const kuatia_signer *signer, const uint8_t *p12, size_t p12_len) {
    const char *req = "{\"tipo_documento\":1,\"receptor\":{\"ruc\":\"80069563-1\",\"razon_social\":\"Cliente\"},"
                      "\"items\":[{\"descripcion\":\"x\",\"cantidad\":1,\"precio_unitario\":1000,\"iva\":10}]}";
    const char *cdc = "01444444017001001000000122025031011234567890";
    const char *xml = "<rDE xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"/>";
    kuatia_bytes a = {NULL, 0}, b = {NULL, 0};
    kuatia_error *err = NULL;
    bool valid = true;
    kuatia_signer *out_signer = NULL;
    /* Each required pointer NULL in turn, with a real length and with 0; the others valid. */
    for (size_t n = 0; n < 2; n++) {
        size_t len = n ? 8 : 0;
        expect_null("validate", "request_json",
                    kuatia_invoice_validate(NULL, len, NULL, 0, S(NOW), &a, &err), &err);
        expect_null("validate", "now", kuatia_invoice_validate(S(req), NULL, 0, NULL, len, &a, &err), &err);
        expect_null("totals", "request_json", kuatia_invoice_totals(NULL, len, &a, &err), &err);
        expect_null("issue", "request_json",
                    kuatia_invoice_issue(NULL, len, NULL, 0, signer, S(NOW), 1, 1, &a, &b, &err), &err);
        expect_null("issue", "now", kuatia_invoice_issue(S(req), NULL, 0, signer, NULL, len, 1, 1, &a, &b, &err), &err);
        expect_null("kude_pdf", "xml", kuatia_kude_pdf(NULL, len, KUATIA_KUDE_FORMAT_A4, false, &a, &err), &err);
        expect_null("xml_verify", "xml", kuatia_xml_verify(NULL, len, NULL, 0, &valid, &a, &err), &err);
        expect_null("sifen_parse_response", "bytes", kuatia_sifen_parse_response(NULL, len, &a, &err), &err);
        expect_null("ruc_check", "ruc", kuatia_ruc_check(NULL, len, &err), &err);
        expect_null("cdc_parse", "cdc", kuatia_cdc_parse(NULL, len, &a, &err), &err);
        expect_null("signer_from_p12", "p12", kuatia_signer_from_p12(NULL, len, S("x"), &out_signer, &err), &err);
        expect_null("signer_from_p12", "password",
                    kuatia_signer_from_p12(p12, p12_len, NULL, len, &out_signer, &err), &err);
    }
    CHECK(a.ptr == NULL && b.ptr == NULL && out_signer == NULL, "an out-parameter was written on failure");
    /* NULL out-parameters and a NULL signer. */
    expect_null("validate", "out_report", kuatia_invoice_validate(S(req), NULL, 0, S(NOW), NULL, &err), &err);
    expect_null("totals", "out_json", kuatia_invoice_totals(S(req), NULL, &err), &err);
    expect_null("issue", "signer", kuatia_invoice_issue(S(req), NULL, 0, NULL, S(NOW), 1, 1, &a, &b, &err), &err);
    expect_null("issue", "out_xml", kuatia_invoice_issue(S(req), NULL, 0, signer, S(NOW), 1, 1, NULL, &b, &err), &err);
    expect_null("issue", "out_json", kuatia_invoice_issue(S(req), NULL, 0, signer, S(NOW), 1, 1, &a, NULL, &err), &err);
    expect_null("kude_pdf", "out_pdf", kuatia_kude_pdf(S(xml), KUATIA_KUDE_FORMAT_A4, false, NULL, &err), &err);
    /* A number that is no kuatia_kude_format (a C enum is an int: any value can arrive) is refused at `format`. */
    expect_null("kude_pdf", "format", kuatia_kude_pdf(S(xml), 7, false, &a, &err), &err);
    expect_null("kude_pdf", "format", kuatia_kude_pdf(S(xml), UINT32_MAX, false, &a, &err), &err);
    expect_null("xml_verify", "out_valid", kuatia_xml_verify(S(xml), NULL, 0, NULL, &a, &err), &err);
    expect_null("xml_verify", "out_report", kuatia_xml_verify(S(xml), NULL, 0, &valid, NULL, &err), &err);
    expect_null("sifen_parse_response", "out_json", kuatia_sifen_parse_response(S(xml), NULL, &err), &err);
    expect_null("cdc_parse", "out_json", kuatia_cdc_parse(S(cdc), NULL, &err), &err);
    expect_null("signer_from_p12", "out_signer", kuatia_signer_from_p12(p12, p12_len, S("x"), NULL, &err), &err);
    CHECK(a.ptr == NULL && b.ptr == NULL, "an out-parameter was written on failure");
    /* err == NULL: the status alone, nothing written anywhere. */
    CHECK(kuatia_invoice_validate(NULL, 0, NULL, 0, NULL, 0, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "all NULL");
    CHECK(kuatia_invoice_totals(NULL, 0, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "all NULL");
    CHECK(kuatia_invoice_issue(NULL, 0, NULL, 0, NULL, NULL, 0, 0, 0, NULL, NULL, NULL) ==
              KUATIA_STATUS_INVALID_ARGUMENT,
          "all NULL");
    CHECK(kuatia_kude_pdf(NULL, 0, KUATIA_KUDE_FORMAT_TICKET, true, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT,
          "all NULL");
    CHECK(kuatia_xml_verify(NULL, 0, NULL, 0, NULL, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "all NULL");
    CHECK(kuatia_sifen_parse_response(NULL, 0, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "all NULL");
    CHECK(kuatia_ruc_check(NULL, 0, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "all NULL");
    CHECK(kuatia_cdc_parse(NULL, 0, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "all NULL");
    CHECK(kuatia_signer_from_p12(NULL, 0, NULL, 0, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "all NULL");
    /* The optional pointers may be NULL: profile (sandbox), verify's `at` (no date check); with err NULL too. */
    CHECK(kuatia_invoice_validate(S(req), NULL, 7, S(NOW), &a, NULL) == KUATIA_STATUS_OK, "profile NULL");
    CHECK(a.ptr && strncmp((const char *)a.ptr, "{\"ok\":true", 10) == 0, "%s", a.ptr ? (const char *)a.ptr : "");
    kuatia_bytes_free(&a);
    CHECK(kuatia_xml_verify(S(xml), NULL, 5, &valid, &a, NULL) == KUATIA_STATUS_OK && !valid, "at NULL");
    kuatia_bytes_free(&a);
}


int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <repository root>\n", argv[0]);
        return 2;
    }
    double start = seconds();
    CHECK(N_ADV >= 100, "only %zu vectors", (size_t)N_ADV);
    kuatia_signer *signer = NULL;
    kuatia_error *err = NULL;
    CHECK(kuatia_signer_sandbox(&signer, &err) == KUATIA_STATUS_OK, "sandbox signer");
    kuatia_error_free(err);
    for (size_t i = 0; i < N_ADV; i++) replay(&ADV[i], signer);

    char path[4096];
    size_t p12_len = 0;
    snprintf(path, sizeof path, "%s/tests/fixtures/certs/sandbox.p12", argv[1]);
    uint8_t *p12 = read_file(path, &p12_len);
    CHECK(p12 != NULL, "%s", path);
    if (p12) test_nulls(signer, p12, p12_len);
    free(p12);
    kuatia_signer_free(signer);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    CHECK(ru.ru_maxrss < RSS_BOUND_KB, "peak RSS %ld KiB (bound %ld KiB)", ru.ru_maxrss, RSS_BOUND_KB);
    printf("adversarial (C ABI): %zu vectors (%d under a boundary rule), calls:", (size_t)N_ADV, boundary_rules);
    for (size_t i = 0; i < sizeof FN_NAMES / sizeof FN_NAMES[0]; i++) printf(" %s %d", FN_NAMES[i] + 7, counts[i]);
    printf("; %.1f s, peak RSS %ld MiB\n", seconds() - start, ru.ru_maxrss / 1024);
    if (failures) {
        fprintf(stderr, "%d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("adversarial C tests: %d checks passed\n", checks);
    return 0;
}
