/* The stdcall entry points of kuatia.dll (kuatia_sc_*, include/kuatia_stdcall.h) called from C as a VB6 or Visual
 * FoxPro host calls them: every function declared __stdcall, plain types, the caller's buffers. Built with mingw-w64
 * and run under Wine by scripts/windows-check.sh. On x86 the link itself checks the convention: a stdcall import is
 * named with its argument bytes (_kuatia_sc_ruc_dv@16), so a declaration that drifts from ffi/src/stdcall.rs does
 * not link.
 *
 * A conformance case issued through kuatia_sc_invoice_issue gives the CDC and the SHA-256 of the signed XML that
 * tests/fixtures/cases records (the same answers as kuatia_invoice_issue); a refused case gives its findings, one
 * line each.
 *
 * Usage: test_stdcall <repository root> */
#include "kuatia.h"
#include "kuatia_stdcall.h"
#include "sha256.h"
#include "vectors.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common.h"

static const vector *find_case(int ok) {
    for (size_t i = 0; i < N_VECTORS; i++)
        if ((ok && strcmp(VECTORS[i].name, "fe_spec_example") == 0) || (!ok && !VECTORS[i].ok)) return &VECTORS[i];
    return NULL;
}

/* The number of CR LF separated lines of an error text. */
static int lines(const char *text) {
    int n = *text ? 1 : 0;
    for (const char *p = text; (p = strstr(p, "\r\n")) != NULL; p += 2) n++;
    return n;
}

static void test_plain(void) {
    char buf[64], err[512];
    CHECK(kuatia_sc_version(buf, sizeof buf) == 0 && strcmp(buf, KUATIA_VERSION) == 0, "version %s", buf);
    CHECK(kuatia_sc_version(buf, 3) == KUATIA_STATUS_INVALID_ARGUMENT, "version in 3 bytes");
    int32_t dv = -1;
    CHECK(kuatia_sc_ruc_dv("80069563", &dv, err, sizeof err) == 0 && dv == 1, "dv %d", dv); /* SIFEN.md §1 */
    CHECK(kuatia_sc_ruc_dv("12-3", &dv, err, sizeof err) == KUATIA_STATUS_INVALID_INPUT, "bad RUC");
    CHECK(strncmp(err, "INVALID_RUC", 11) == 0, "%s", err);
    CHECK(kuatia_sc_ruc_dv(NULL, &dv, err, sizeof err) == KUATIA_STATUS_INVALID_ARGUMENT, "NULL RUC");
    CHECK(strncmp(err, "INVALID_ARGUMENT at body: ", 26) == 0, "%s", err);
    /* A small error buffer holds the start of the message, terminated. */
    char small[10];
    memset(small, 'x', sizeof small);
    CHECK(kuatia_sc_ruc_dv("12-3", &dv, small, sizeof small) == KUATIA_STATUS_INVALID_INPUT, "small");
    CHECK(strcmp(small, "INVALID_R") == 0, "%s", small);
    CHECK(kuatia_sc_ruc_dv("12-3", &dv, NULL, 0) == KUATIA_STATUS_INVALID_INPUT, "no error buffer");
}

static void test_signers(const char *root) {
    char path[4096], err[512];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/tests/fixtures/certs/sandbox.p12", root);
    uint8_t *p12 = read_file(path, &len);
    CHECK(p12 != NULL, "%s", path);
    if (!p12) return;
    kuatia_signer *s = NULL;
    CHECK(kuatia_sc_signer_from_p12(p12, (int32_t)len, "kuatia-test", &s, err, sizeof err) == 0 && s, "%s", err);
    kuatia_sc_signer_free(s);
    s = NULL;
    CHECK(kuatia_sc_signer_from_p12(p12, (int32_t)len, "wrong", &s, err, sizeof err) == KUATIA_STATUS_SIGN_ERROR &&
              s == NULL,
          "wrong password");
    CHECK(strncmp(err, "P12_WRONG_PASSWORD", 18) == 0, "%s", err);
    CHECK(kuatia_sc_signer_from_p12(p12, -1, "kuatia-test", &s, err, sizeof err) == KUATIA_STATUS_INVALID_ARGUMENT,
          "negative length");
    free(p12);
    kuatia_sc_signer_free(NULL);
}

static void test_issue(void) {
    const vector *v = find_case(1), *bad = find_case(0);
    CHECK(v && bad, "cases");
    if (!v || !bad) return;
    char err[4096], summary[8192], cdc[64], hex[65];
    kuatia_signer *signer = NULL;
    CHECK(kuatia_sc_signer_sandbox(&signer, err, sizeof err) == 0, "%s", err);
    size_t cap = 1 << 20;
    char *xml = malloc(cap);
    CHECK(xml != NULL, "malloc");
    if (!xml) return;

    /* "" is the sandbox profile, like NULL. */
    int32_t st = kuatia_sc_invoice_issue(v->request, "", signer, v->now, (int32_t)v->numero, (int32_t)v->codigo, xml,
                                         (int32_t)cap, summary, sizeof summary, err, sizeof err);
    CHECK(st == 0, "issue %d: %s", st, err);
    if (st == 0) {
        CHECK(strcmp(json_str(summary, "cdc", cdc, sizeof cdc), v->cdc) == 0, "cdc %s", cdc);
        sha256_hex((const uint8_t *)xml, strlen(xml), hex);
        CHECK(strcmp(hex, v->xml_sha256) == 0, "xml sha256 %s", hex);
        printf("stdcall %s: issued cdc=%s xml-sha256=%s\n", v->name, cdc, hex);
    }

    /* Too small an XML buffer: the size needed is in the error; with it the same document comes. */
    st = kuatia_sc_invoice_issue(v->request, NULL, signer, v->now, (int32_t)v->numero, (int32_t)v->codigo, xml, 100,
                                 summary, sizeof summary, err, sizeof err);
    const char *needs = strstr(err, "needs ");
    CHECK(st == KUATIA_STATUS_INVALID_ARGUMENT && strncmp(err, "INVALID_ARGUMENT at xml: ", 25) == 0 && needs, "%s",
          err);
    long need = needs ? strtol(needs + 6, NULL, 10) : 0;
    CHECK(need > 100 && (size_t)need == strlen(xml) + 1, "needs %ld", need);
    if (need > 100 && (size_t)need <= cap) {
        st = kuatia_sc_invoice_issue(v->request, NULL, signer, v->now, (int32_t)v->numero, (int32_t)v->codigo, xml,
                                     (int32_t)need, summary, sizeof summary, err, sizeof err);
        sha256_hex((const uint8_t *)xml, strlen(xml), hex);
        CHECK(st == 0 && strcmp(hex, v->xml_sha256) == 0, "exact buffer: %d %s", st, err);
    }
    CHECK(kuatia_sc_invoice_issue(v->request, NULL, signer, v->now, -1, 5, xml, (int32_t)cap, summary, sizeof summary,
                                  err, sizeof err) == KUATIA_STATUS_INVALID_ARGUMENT &&
              strncmp(err, "INVALID_ARGUMENT at numero: ", 28) == 0,
          "%s", err);
    CHECK(kuatia_sc_invoice_issue(v->request, NULL, NULL, v->now, 1, 5, xml, (int32_t)cap, summary, sizeof summary,
                                  err, sizeof err) == KUATIA_STATUS_INVALID_ARGUMENT &&
              strncmp(err, "INVALID_ARGUMENT at signer: ", 28) == 0,
          "%s", err);

    /* A refused request: every finding, one line each, in order. */
    st = kuatia_sc_invoice_issue(bad->request, NULL, signer, bad->now, 1, 5, xml, (int32_t)cap, summary,
                                 sizeof summary, err, sizeof err);
    CHECK(st == KUATIA_STATUS_INVALID_INPUT, "%s: %d", bad->name, st);
    CHECK(lines(err) == bad->n_errors, "%s: %d lines for %d findings: %s", bad->name, lines(err), bad->n_errors, err);
    char first[512];
    snprintf(first, sizeof first, "%s at %s: ", bad->error_code[0], bad->error_path[0]);
    CHECK(strncmp(err, first, strlen(first)) == 0, "%s", err);
    printf("stdcall %s: refused %d findings, first: %.*s\n", bad->name, lines(err), (int)strcspn(err, "\r"), err);
    free(xml);
    kuatia_sc_signer_free(signer);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <repository root>\n", argv[0]);
        return 2;
    }
    test_plain();
    test_signers(argv[1]);
    test_issue();
    printf("stdcall tests: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
