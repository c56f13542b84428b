/* C tests of every kuatia export, built with -Wall -Wextra -Werror -fsanitize=address,undefined (and run once
 * under valgrind) by scripts/ffi-check.sh. Replays the conformance cases (vectors.h, generated from
 * tests/fixtures/cases by gen_vectors.py) and must reproduce what Rust records: CDC, number, QR, totals, the
 * SHA-256 of the signed XML, and every finding's code, path, rule, params and message in Spanish and in English
 * (kuatia_error_json_in, and the report through kuatia_findings_localize); renders every rule's sample of
 * tests/fixtures/messages.json in both languages too.
 *
 * kuatia_service (the in-process /v1 API) has its own program, test_service.c.
 *
 * Usage: test_kuatia <repository root> [--quick] [--answers]
 * --quick (used under valgrind) renders the KuDE and signs the preview for one case instead of all.
 * --answers prints what the library answered for each conformance case (CDC, number, SHA-256 of the signed XML, or
 * the findings) on stdout: scripts/windows-check.sh compares the Linux and the Windows (Wine) transcripts.
 *
 * Also built with mingw-w64 for Windows (scripts/windows-check.sh): there, and wherever KUATIA_TEST_NO_SHELL is
 * defined, the evento request is checked with kuatia_xml_verify only (no shell to find xmlsec1 in). */
#define _DEFAULT_SOURCE /* strdup, getpid */
#include "kuatia.h"
#include "sha256.h"
#include "vectors.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#define KUATIA_TEST_NO_SHELL 1
#else
#include <unistd.h>
#endif

#include "check.h"
#include "common.h"

/* --answers: print each conformance case's answers. */
static int answers = 0;

static void test_version(void) {
    CHECK(strcmp(kuatia_version(), KUATIA_VERSION) == 0, "%s", kuatia_version());
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", KUATIA_VERSION_MAJOR, KUATIA_VERSION_MINOR, KUATIA_VERSION_PATCH);
    CHECK(strcmp(v, KUATIA_VERSION) == 0, "%s", v);
}

static void test_arguments_and_errors(void) {
    kuatia_error *err = NULL;
    kuatia_bytes out = {NULL, 0};
    /* NULL input: invalid argument, err filled, out untouched. */
    CHECK(kuatia_cdc_parse(NULL, 44, &out, &err) == KUATIA_STATUS_INVALID_ARGUMENT, "NULL input");
    CHECK(out.ptr == NULL, "out written on failure");
    CHECK(kuatia_error_status(err) == KUATIA_STATUS_INVALID_ARGUMENT, "status");
    CHECK(strcmp(kuatia_error_code(err), "INVALID_ARGUMENT") == 0, "%s", kuatia_error_code(err));
    CHECK(strcmp(kuatia_error_path(err), "cdc") == 0, "%s", kuatia_error_path(err));
    CHECK(strlen(kuatia_error_message(err)) > 0, "message");
    kuatia_error_free(err);
    err = NULL;
    /* NULL out-parameter; err may itself be NULL. */
    CHECK(kuatia_cdc_parse(S("x"), NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT, "NULL out");
    /* Invalid UTF-8. */
    const uint8_t bad[] = {'8', 0xC3, 0x28};
    CHECK(kuatia_ruc_check(bad, sizeof bad, &err) == KUATIA_STATUS_INVALID_UTF8, "utf8");
    CHECK(strcmp(kuatia_error_code(err), "INVALID_UTF8") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    /* Absurd length: refused before anything is read (the buffer is 1 byte). */
    CHECK(kuatia_ruc_check(bad, (size_t)-1, &err) == KUATIA_STATUS_TOO_LARGE, "huge");
    CHECK(strcmp(kuatia_error_code(err), "TOO_LARGE") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_ruc_check(bad, KUATIA_MAX_INPUT_LEN + 1, NULL) == KUATIA_STATUS_TOO_LARGE, "limit");
    /* Every _free accepts NULL; a freed buffer is reset, so freeing it again is harmless. */
    kuatia_bytes_free(NULL);
    kuatia_error_free(NULL);
    kuatia_signer_free(NULL);
    kuatia_bytes_free(&out);
    /* Accessors on NULL. */
    CHECK(kuatia_error_code(NULL) == NULL && kuatia_error_message(NULL) == NULL && kuatia_error_path(NULL) == NULL &&
              kuatia_error_json(NULL) == NULL && kuatia_error_count(NULL) == 0 &&
              kuatia_error_status(NULL) == KUATIA_STATUS_INVALID_ARGUMENT &&
              !kuatia_error_finding(NULL, 0, NULL, NULL, NULL),
          "NULL accessors");
}

static void test_ruc_cdc(void) {
    uint8_t dv = 99;
    CHECK(kuatia_ruc_dv(S("80069563"), &dv, NULL) == KUATIA_STATUS_OK && dv == 1, "dv %u", dv); /* SIFEN.md §1 */
    CHECK(kuatia_ruc_dv(S("4554737"), &dv, NULL) == KUATIA_STATUS_OK && dv == 8, "dv %u", dv);
    CHECK(kuatia_ruc_dv(S("88888801"), &dv, NULL) == KUATIA_STATUS_OK && dv == 5, "dv %u", dv);
    kuatia_error *err = NULL;
    CHECK(kuatia_ruc_dv(S("12-3"), &dv, &err) == KUATIA_STATUS_INVALID_INPUT, "bad body");
    CHECK(strcmp(code_of(err), "INVALID_RUC") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_ruc_check(S("80069563-1"), NULL) == KUATIA_STATUS_OK, "valid RUC");
    CHECK(kuatia_ruc_check(S("80069563-2"), &err) == KUATIA_STATUS_INVALID_INPUT, "wrong DV");
    CHECK(strcmp(code_of(err), "INVALID_RUC") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;

    const char *fields = "{\"tipo_documento\":1,\"ruc\":\"44444401-7\",\"establecimiento\":1,\"punto\":1,\"numero\":1,"
                         "\"tipo_contribuyente\":2,\"fecha\":\"2025-03-10\",\"tipo_emision\":1,"
                         "\"codigo_seguridad\":123456789}";
    kuatia_bytes cdc = {NULL, 0};
    CHECK(kuatia_cdc_build(S(fields), &cdc, &err) == KUATIA_STATUS_OK, "%s", code_of(err));
    CHECK(cdc.len == 44 && strcmp((char *)cdc.ptr, "01444444017001001000000122025031011234567890") == 0, "cdc %s",
          cdc.ptr ? (char *)cdc.ptr : "");
    kuatia_bytes parsed = {NULL, 0};
    CHECK(kuatia_cdc_parse(cdc.ptr, cdc.len, &parsed, NULL) == KUATIA_STATUS_OK, "parse");
    CHECK(parsed.ptr && strstr((char *)parsed.ptr, "\"codigo_seguridad\":123456789") &&
              strstr((char *)parsed.ptr, "\"fecha\":\"2025-03-10\""),
          "%s", parsed.ptr ? (char *)parsed.ptr : "");
    kuatia_bytes_free(&parsed);
    kuatia_bytes_free(&cdc);
    kuatia_bytes_free(&cdc); /* reset by the first free */
    CHECK(cdc.ptr == NULL && cdc.len == 0, "reset");
    CHECK(kuatia_cdc_build(S("{\"tipo_documento\":1}"), &cdc, &err) == KUATIA_STATUS_INVALID_INPUT, "missing");
    CHECK(strcmp(code_of(err), "VALIDATION_ERROR.REQUIRED") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_cdc_parse(S("01444444017001001000000122025031011234567891"), &parsed, &err) ==
              KUATIA_STATUS_INVALID_INPUT,
          "bad dv");
    CHECK(strcmp(code_of(err), "INVALID_CDC") == 0, "%s", code_of(err));
    kuatia_error_free(err);
}

static void test_qr(void) {
    /* The MT's own QR example (SIFEN.md §5): parameters, CSC ABCD..., expected hash. */
    const char *fields =
        "{\"cdc\":\"01444444017001001001452822017012515873260988\",\"fecha_emision\":\"2017-01-25T09:35:17\","
        "\"receptor\":{\"ruc\":\"88899990\"},\"total\":\"300000\",\"total_iva\":\"27272\",\"items\":2,"
        "\"digest_value\":\"yzGYhUx1/XYYzksWB+fPR3Qc50c=\",\"csc_id\":\"0001\","
        "\"csc\":\"ABCD0000000000000000000000000000\",\"ambiente\":\"test\"}";
    kuatia_bytes qr = {NULL, 0};
    kuatia_error *err = NULL;
    CHECK(kuatia_qr_build(S(fields), &qr, &err) == KUATIA_STATUS_OK, "%s", code_of(err));
    const char *expected = "https://ekuatia.set.gov.py/consultas-test/qr?nVersion=150&Id=01444444017001001001452822017012515873260988"
                           "&dFeEmiDE=323031372d30312d32355430393a33353a3137&dRucRec=88899990&dTotGralOpe=300000"
                           "&dTotIVA=27272&cItems=2&DigestValue=797a4759685578312f5859597a6b7357422b6650523351633530633d"
                           "&IdCSC=0001&cHashQR=97ddbb3c1e7d65af03a70ffe21f2b34846ab1c89e0566c35222086766b7374ed";
    CHECK(qr.ptr && strcmp((char *)qr.ptr, expected) == 0, "%s", qr.ptr ? (char *)qr.ptr : "");
    kuatia_bytes parts = {NULL, 0};
    CHECK(kuatia_qr_parse(qr.ptr, qr.len, S(SANDBOX_CSC), &parts, NULL) == KUATIA_STATUS_OK, "parse");
    CHECK(parts.ptr && strstr((char *)parts.ptr, "\"hash_ok\":true") && strstr((char *)parts.ptr, "\"items\":2"), "%s",
          parts.ptr ? (char *)parts.ptr : "");
    kuatia_bytes_free(&parts);
    CHECK(kuatia_qr_parse(qr.ptr, qr.len, S("EFGH0000000000000000000000000000"), &parts, NULL) == KUATIA_STATUS_OK,
          "parse 2");
    CHECK(parts.ptr && strstr((char *)parts.ptr, "\"hash_ok\":false"), "wrong CSC must not match");
    kuatia_bytes_free(&parts);
    CHECK(kuatia_qr_parse(qr.ptr, qr.len, NULL, 0, &parts, NULL) == KUATIA_STATUS_OK, "parse 3");
    CHECK(parts.ptr && !strstr((char *)parts.ptr, "hash_ok"), "no CSC, no verdict");
    kuatia_bytes_free(&parts);
    kuatia_bytes_free(&qr);
    CHECK(kuatia_qr_parse(S("https://example.com/?x=1"), NULL, 0, &parts, &err) == KUATIA_STATUS_INVALID_INPUT, "bad QR");
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_qr_build(S("{\"cdc\":1}"), &qr, &err) == KUATIA_STATUS_INVALID_INPUT, "bad fields");
    CHECK(strcmp(kuatia_error_path(err), "cdc") == 0, "%s", kuatia_error_path(err));
    kuatia_error_free(err);
}

static void test_signers(const char *root) {
    char path[4096];
    size_t len = 0, klen = 0, clen = 0;
    snprintf(path, sizeof path, "%s/tests/fixtures/certs/sandbox.p12", root);
    uint8_t *p12 = read_file(path, &len);
    CHECK(p12 != NULL, "%s", path);
    if (!p12) return;
    kuatia_signer *s = NULL;
    kuatia_error *err = NULL;
    CHECK(kuatia_signer_from_p12(p12, len, S("kuatia-test"), &s, &err) == KUATIA_STATUS_OK, "%s", code_of(err));
    kuatia_signer_free(s);
    s = NULL;
    CHECK(kuatia_signer_from_p12(p12, len, S("wrong"), &s, &err) == KUATIA_STATUS_SIGN_ERROR && s == NULL, "password");
    CHECK(strcmp(code_of(err), "P12_WRONG_PASSWORD") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_signer_from_p12(p12, 10, S("kuatia-test"), &s, &err) == KUATIA_STATUS_SIGN_ERROR, "truncated");
    CHECK(strcmp(code_of(err), "P12_INVALID") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    free(p12);

    snprintf(path, sizeof path, "%s/tests/fixtures/certs/sandbox.key.pem", root);
    uint8_t *key = read_file(path, &klen);
    snprintf(path, sizeof path, "%s/tests/fixtures/certs/sandbox.cert.pem", root);
    uint8_t *cert = read_file(path, &clen);
    CHECK(key && cert, "PEM files");
    if (key && cert) {
        CHECK(kuatia_signer_from_pem(key, klen, cert, clen, &s, &err) == KUATIA_STATUS_OK, "%s", code_of(err));
        kuatia_signer_free(s);
        CHECK(kuatia_signer_from_pem(cert, clen, cert, clen, &s, &err) == KUATIA_STATUS_SIGN_ERROR, "cert as key");
        CHECK(strcmp(code_of(err), "KEY_INVALID") == 0, "%s", code_of(err));
        kuatia_error_free(err);
    }
    free(key);
    free(cert);
}

/* The findings of a refused case in `json` (kuatia_error_json_in of language LANGS[l]): each object in order, its
 * code, path, message, rule and then each param inside that object. */
static void check_findings_json(const vector *v, int l, const char *json) {
    const char *at = json ? json : "";
    for (int i = 0; i < v->n_errors; i++) {
        const char *p = strstr(at, v->error_head[l][i]);
        CHECK(p != NULL, "%s (%s): finding %d, %s, not in (in order) %s", v->name, LANGS[l], i, v->error_head[l][i],
              at);
        if (!p) return;
        const char *next = strstr(p + 1, "{\"code\":");
        const char *param = v->error_params[i];
        while (*param) {
            const char *eol = strchr(param, '\n');
            size_t n = eol ? (size_t)(eol - param) : strlen(param);
            char frag[1024];
            snprintf(frag, sizeof frag, "%.*s", (int)n, param);
            const char *q = strstr(p, frag);
            CHECK(q != NULL && (next == NULL || q < next), "%s (%s): finding %d lacks param %s", v->name, LANGS[l], i,
                  frag);
            param += n + (eol ? 1 : 0);
        }
        at = p + 1;
    }
}

/* The report of kuatia_invoice_validate rendered in language LANGS[l]: each finding's rule and message, in order. */
static void check_localized_report(const vector *v, int l, const char *report) {
    kuatia_bytes out = {NULL, 0};
    kuatia_error *err = NULL;
    CHECK(kuatia_findings_localize((const uint8_t *)report, strlen(report), LANGS[l], &out, &err) == KUATIA_STATUS_OK,
          "%s: localize %s", v->name, code_of(err));
    const char *at = out.ptr ? (const char *)out.ptr : "";
    for (int i = 0; i < v->n_errors; i++) {
        /* The head holds ,"message":"…","rule":"…" after code and path: check those two parts. */
        const char *m = strstr(v->error_head[l][i], ",\"message\":");
        const char *r = m ? strstr(m, ",\"rule\":") : NULL;
        CHECK(m && r, "%s: head %s", v->name, v->error_head[l][i]);
        if (!m || !r) break;
        char frag[1024];
        snprintf(frag, sizeof frag, "%.*s", (int)(r - m - 1), m + 1);
        const char *p = strstr(at, frag);
        CHECK(p != NULL, "%s (%s): localized report lacks %s (in order)", v->name, LANGS[l], frag);
        if (p) at = p + 1;
    }
    kuatia_bytes_free(&out);
    kuatia_error_free(err);
}

/* Every rule's sample (tests/fixtures/messages.json) rendered through kuatia_findings_localize in both languages. */
static void test_messages(void) {
    for (size_t i = 0; i < N_MESSAGES; i++) {
        for (int l = 0; l < 2; l++) {
            kuatia_bytes out = {NULL, 0};
            kuatia_error *err = NULL;
            const char *f = MESSAGES[i].finding;
            CHECK(kuatia_findings_localize((const uint8_t *)f, strlen(f), LANGS[l], &out, &err) == KUATIA_STATUS_OK,
                  "localize %s: %s", f, code_of(err));
            CHECK(out.ptr && strstr((const char *)out.ptr, MESSAGES[i].message[l]), "%s (%s): %s != %s", f, LANGS[l],
                  out.ptr ? (const char *)out.ptr : "(null)", MESSAGES[i].message[l]);
            kuatia_bytes_free(&out);
            kuatia_error_free(err);
        }
    }
    CHECK(N_MESSAGES >= 400, "%d rule samples", (int)N_MESSAGES);
}

/* One conformance case through validate, totals, numbering key, issue, verify, QR parse and KuDE. */
static void replay(const vector *v, kuatia_signer *signer, int render) {
    kuatia_error *err = NULL;
    kuatia_bytes report = {NULL, 0}, totals = {NULL, 0}, xml = {NULL, 0}, summary = {NULL, 0};
    CHECK(kuatia_invoice_validate(S(v->request), NULL, 0, S(v->now), &report, &err) == KUATIA_STATUS_OK, "%s: %s",
          v->name, code_of(err));
    const char *r = report.ptr ? (const char *)report.ptr : "";

    kuatia_status st = kuatia_invoice_issue(S(v->request), NULL, 0, signer, S(v->now), v->numero, v->codigo, &xml,
                                            &summary, &err);
    if (!v->ok) {
        CHECK(strncmp(r, "{\"ok\":false,", 12) == 0, "%s: %s", v->name, r);
        /* Findings in order, in the report and in the error of issue. */
        const char *at = r;
        for (int i = 0; i < v->n_errors; i++) {
            char frag[512];
            snprintf(frag, sizeof frag, "{\"code\":\"%s\",\"path\":\"%s\",", v->error_code[i], v->error_path[i]);
            const char *p = strstr(at, frag);
            CHECK(p != NULL, "%s: report lacks %s (in order)", v->name, frag);
            if (p) at = p + 1;
        }
        CHECK(st == KUATIA_STATUS_INVALID_INPUT, "%s: issue status %d", v->name, st);
        CHECK(xml.ptr == NULL && summary.ptr == NULL, "%s: outs written on failure", v->name);
        CHECK(kuatia_error_count(err) == (size_t)v->n_errors, "%s: %zu findings, expected %d", v->name,
              kuatia_error_count(err), v->n_errors);
        for (int i = 0; i < v->n_errors; i++) {
            const char *code = NULL, *path = NULL, *message = NULL;
            CHECK(kuatia_error_finding(err, (size_t)i, &code, &path, &message), "%s: finding %d", v->name, i);
            CHECK(code && strcmp(code, v->error_code[i]) == 0, "%s: code %s != %s", v->name, code, v->error_code[i]);
            CHECK(path && strcmp(path, v->error_path[i]) == 0, "%s: path %s != %s", v->name, path, v->error_path[i]);
            CHECK(message && strlen(message) > 0, "%s: message", v->name);
        }
        CHECK(kuatia_error_json(err) && strncmp(kuatia_error_json(err), "[{\"code\":", 9) == 0, "%s: json",
              v->name);
        CHECK(strcmp(kuatia_error_code(err), v->error_code[0]) == 0, "%s: first code", v->name);
        for (int l = 0; l < 2; l++) {
            check_findings_json(v, l, kuatia_error_json_in(err, LANGS[l]));
            check_localized_report(v, l, r);
        }
        if (answers) {
            printf("%s: refused", v->name);
            for (size_t i = 0; i < kuatia_error_count(err); i++) {
                const char *code = NULL, *path = NULL, *message = NULL;
                if (kuatia_error_finding(err, i, &code, &path, &message)) printf(" %s@%s", code, path);
            }
            printf("\n");
        }
        kuatia_error_free(err);
        kuatia_bytes_free(&report);
        return;
    }
    CHECK(strcmp(r, "{\"ok\":true,\"errors\":[]}") == 0, "%s: %s", v->name, r);
    kuatia_bytes_free(&report);
    CHECK(st == KUATIA_STATUS_OK, "%s: issue %d %s %s", v->name, st, code_of(err),
          err ? kuatia_error_message(err) : "");
    if (st != KUATIA_STATUS_OK) {
        kuatia_error_free(err);
        return;
    }

    CHECK(kuatia_invoice_totals(S(v->request), &totals, &err) == KUATIA_STATUS_OK, "%s: totals %s", v->name,
          code_of(err));
    const char *t = totals.ptr ? strstr((const char *)totals.ptr, "\"totales\":") : NULL;
    for (int i = 0; v->totals[i]; i++)
        CHECK(t && strstr(t, v->totals[i]), "%s: totals lack %s", v->name, v->totals[i]);
    kuatia_bytes_free(&totals);

    char buf[1024], hex[65];
    const char *s = (const char *)summary.ptr;
    CHECK(strcmp(json_str(s, "cdc", buf, sizeof buf), v->cdc) == 0, "%s: cdc %s", v->name, buf);
    CHECK(strcmp(json_str(s, "numero", buf, sizeof buf), v->numero_str) == 0, "%s: numero %s", v->name, buf);
    CHECK(strcmp(json_str(s, "qr", buf, sizeof buf), v->qr) == 0, "%s: qr %s", v->name, buf);
    sha256_hex(xml.ptr, xml.len, hex);
    CHECK(strcmp(hex, v->xml_sha256) == 0, "%s: xml sha256 %s", v->name, hex);
    if (answers) {
        char cdc[64], numero[32];
        printf("%s: issued cdc=%s numero=%s xml-sha256=%s\n", v->name, json_str(s, "cdc", cdc, sizeof cdc),
               json_str(s, "numero", numero, sizeof numero), hex);
    }
    CHECK(strlen((const char *)xml.ptr) == xml.len, "%s: NUL-terminated, no inner NUL", v->name);

    /* The numbering key names the sandbox stamp. */
    kuatia_bytes key = {NULL, 0};
    CHECK(kuatia_invoice_numbering_key(S(v->request), NULL, 0, S(v->now), &key, NULL) == KUATIA_STATUS_OK, "%s: key",
          v->name);
    CHECK(key.ptr && strstr((char *)key.ptr, "\"timbrado\":\"12558946\""), "%s: key", v->name);
    kuatia_bytes_free(&key);

    /* The signed XML verifies; its QR parses with the sandbox CSC. */
    bool valid = false;
    kuatia_bytes vr = {NULL, 0};
    CHECK(kuatia_xml_verify(xml.ptr, xml.len, S(v->now), &valid, &vr, NULL) == KUATIA_STATUS_OK && valid,
          "%s: verify %s", v->name, vr.ptr ? (char *)vr.ptr : "");
    kuatia_bytes_free(&vr);
    kuatia_bytes qp = {NULL, 0};
    CHECK(kuatia_qr_parse(S(v->qr), S(SANDBOX_CSC), &qp, NULL) == KUATIA_STATUS_OK, "%s: qr parse", v->name);
    CHECK(qp.ptr && strstr((char *)qp.ptr, "\"hash_ok\":true"), "%s: qr hash", v->name);
    kuatia_bytes_free(&qp);

    if (render) {
        kuatia_bytes pdf = {NULL, 0};
        CHECK(kuatia_kude_pdf(xml.ptr, xml.len, KUATIA_KUDE_FORMAT_A4, false, &pdf, &err) == KUATIA_STATUS_OK,
              "%s: kude %s", v->name, code_of(err));
        CHECK(pdf.len > 1000 && memcmp(pdf.ptr, "%PDF-", 5) == 0, "%s: pdf", v->name);
        kuatia_bytes_free(&pdf);
        CHECK(kuatia_kude_pdf(xml.ptr, xml.len, KUATIA_KUDE_FORMAT_TICKET, true, &pdf, &err) == KUATIA_STATUS_OK,
              "%s: ticket %s", v->name, code_of(err));
        kuatia_bytes_free(&pdf);

        /* Preview with the same context: same CDC; unsigned, so no KuDE (no QR) and no valid signature. */
        kuatia_bytes pre = {NULL, 0};
        CHECK(kuatia_invoice_preview_xml(S(v->request), NULL, 0, S(v->now), v->numero, v->codigo, &pre, &err) ==
                  KUATIA_STATUS_OK,
              "%s: preview %s", v->name, code_of(err));
        char id[64];
        snprintf(id, sizeof id, "Id=\"%s\"", v->cdc);
        CHECK(pre.ptr && strstr((char *)pre.ptr, id) && !strstr((char *)pre.ptr, "Signature"), "%s: preview",
              v->name);
        CHECK(kuatia_kude_pdf(pre.ptr, pre.len, KUATIA_KUDE_FORMAT_A4, true, &pdf, &err) ==
                  KUATIA_STATUS_INVALID_INPUT,
              "%s: KuDE without QR", v->name);
        CHECK(strcmp(kuatia_error_path(err), "dCarQR") == 0, "%s", kuatia_error_path(err));
        kuatia_error_free(err);
        err = NULL;
        CHECK(kuatia_xml_verify(pre.ptr, pre.len, NULL, 0, &valid, &vr, NULL) == KUATIA_STATUS_OK && !valid,
              "%s: unsigned verifies?", v->name);
        CHECK(vr.ptr && strstr((char *)vr.ptr, "SIGNATURE_MISSING"), "%s", vr.ptr ? (char *)vr.ptr : "");
        kuatia_bytes_free(&vr);
        /* Sign the preview by hand: valid; tamper one byte: invalid. */
        kuatia_bytes signed_xml = {NULL, 0};
        CHECK(kuatia_xml_sign(pre.ptr, pre.len, S(v->cdc), signer, &signed_xml, &err) == KUATIA_STATUS_OK, "%s: sign %s",
              v->name, code_of(err));
        CHECK(kuatia_xml_verify(signed_xml.ptr, signed_xml.len, NULL, 0, &valid, &vr, NULL) == KUATIA_STATUS_OK && valid,
              "%s: hand-signed", v->name);
        kuatia_bytes_free(&vr);
        char *cod = strstr((char *)signed_xml.ptr, "<dCodSeg>");
        if (cod) cod[9] = cod[9] == '9' ? '8' : '9';
        CHECK(kuatia_xml_verify(signed_xml.ptr, signed_xml.len, NULL, 0, &valid, &vr, NULL) == KUATIA_STATUS_OK && !valid,
              "%s: tampered verifies", v->name);
        CHECK(vr.ptr && strstr((char *)vr.ptr, "DIGEST_MISMATCH"), "%s", vr.ptr ? (char *)vr.ptr : "");
        kuatia_bytes_free(&vr);
        kuatia_bytes_free(&signed_xml);
        CHECK(kuatia_xml_sign(pre.ptr, pre.len, S("missing"), signer, &signed_xml, &err) == KUATIA_STATUS_INVALID_INPUT,
              "%s: unknown Id", v->name);
        kuatia_error_free(err);
        err = NULL;
        kuatia_bytes_free(&pre);
    }
    kuatia_bytes_free(&xml);
    kuatia_bytes_free(&summary);
}

/* A profile and time errors are located; a NULL signer is an invalid argument. */
static void test_issue_arguments(kuatia_signer *signer) {
    const vector *v = &VECTORS[0];
    kuatia_error *err = NULL;
    kuatia_bytes xml = {NULL, 0}, sum = {NULL, 0};
    CHECK(kuatia_invoice_issue(S(v->request), NULL, 0, NULL, S(v->now), 1, 5, &xml, &sum, &err) ==
              KUATIA_STATUS_INVALID_ARGUMENT,
          "NULL signer");
    CHECK(strcmp(kuatia_error_path(err), "signer") == 0, "%s", kuatia_error_path(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_invoice_issue(S(v->request), S("{\"ruc\":1}"), signer, S(v->now), 1, 5, &xml, &sum, &err) ==
              KUATIA_STATUS_INVALID_INPUT,
          "bad profile");
    CHECK(strncmp(kuatia_error_path(err), "profile", 7) == 0, "%s", kuatia_error_path(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_invoice_issue(S(v->request), NULL, 0, signer, S("10/03/2025"), 1, 5, &xml, &sum, &err) ==
              KUATIA_STATUS_INVALID_INPUT,
          "bad now");
    CHECK(strcmp(kuatia_error_path(err), "now") == 0, "%s", kuatia_error_path(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_invoice_issue(S(v->request), NULL, 0, signer, S(v->now), 0, 5, &xml, &sum, &err) ==
              KUATIA_STATUS_INVALID_INPUT,
          "numero 0");
    kuatia_error_free(err);
    CHECK(xml.ptr == NULL && sum.ptr == NULL, "outs untouched");
    CHECK(kuatia_invoice_totals(S("{"), &xml, &err) == KUATIA_STATUS_INVALID_INPUT, "bad JSON");
    CHECK(strcmp(code_of(err), "MALFORMED_JSON") == 0, "%s", code_of(err));
    kuatia_error_free(err);
}

/* One signer shared by several threads issuing at once (the documented sharing rule). */
typedef struct {
    kuatia_signer *signer;
    unsigned first;
    int bad;
} job;

static void *worker(void *arg) {
    job *j = arg;
    const vector *v = NULL;
    for (size_t i = 0; i < N_VECTORS; i++)
        if (strcmp(VECTORS[i].name, "fe_spec_example") == 0) v = &VECTORS[i];
    if (!v) {
        j->bad++;
        return NULL;
    }
    for (unsigned n = j->first; n < j->first + 3; n++) {
        kuatia_bytes xml = {NULL, 0}, sum = {NULL, 0};
        if (kuatia_invoice_issue(S(v->request), NULL, 0, j->signer, S(v->now), n, 100000 + n, &xml, &sum, NULL) !=
            KUATIA_STATUS_OK) {
            j->bad++;
            continue;
        }
        char want[16], cdc[64];
        snprintf(want, sizeof want, "%07u", n);
        json_str((const char *)sum.ptr, "cdc", cdc, sizeof cdc);
        if (strlen(cdc) != 44 || strncmp(cdc + 17, want, 7) != 0) j->bad++;
        bool valid = false;
        kuatia_bytes vr = {NULL, 0};
        if (kuatia_xml_verify(xml.ptr, xml.len, NULL, 0, &valid, &vr, NULL) != KUATIA_STATUS_OK || !valid) j->bad++;
        kuatia_bytes_free(&vr);
        kuatia_bytes_free(&xml);
        kuatia_bytes_free(&sum);
    }
    return NULL;
}

static void test_threads(kuatia_signer *signer) {
    enum { N = 4 };
    pthread_t th[N];
    job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (job){signer, 1 + 10u * (unsigned)i, 0};
        CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0, "thread %d", i);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        CHECK(jobs[i].bad == 0, "thread %d: %d bad documents", i, jobs[i].bad);
    }
}

static void test_sifen(const char *root) {
    const char *cdc = "01444444017001001000000122025031011234567890";
    kuatia_bytes req = {NULL, 0};
    kuatia_error *err = NULL;
    CHECK(kuatia_sifen_request(S("consulta"), S(cdc), 7, false, &req, &err) == KUATIA_STATUS_OK, "%s", code_of(err));
    CHECK(req.ptr && strstr((char *)req.ptr, cdc) && strstr((char *)req.ptr, "\"service\":\"consulta\"") &&
              strstr((char *)req.ptr, "sifen-test.set.gov.py"),
          "%s", req.ptr ? (char *)req.ptr : "");
    kuatia_bytes_free(&req);
    CHECK(kuatia_sifen_request(S("nope"), S(cdc), 7, false, &req, &err) == KUATIA_STATUS_INVALID_INPUT, "bad kind");
    kuatia_error_free(err);
    err = NULL;
    char path[4096];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/core/tests/sifen_samples/consulta_0422.xml", root);
    uint8_t *xml = read_file(path, &len);
    CHECK(xml != NULL, "%s", path);
    if (!xml) return;
    kuatia_bytes parsed = {NULL, 0};
    CHECK(kuatia_sifen_parse_response(xml, len, &parsed, &err) == KUATIA_STATUS_OK, "%s", code_of(err));
    CHECK(parsed.ptr && strstr((char *)parsed.ptr, "\"0422\"") && strstr((char *)parsed.ptr, "\"action\""), "%s",
          parsed.ptr ? (char *)parsed.ptr : "");
    kuatia_bytes_free(&parsed);
    free(xml);
    kuatia_bytes d = {NULL, 0};
    CHECK(kuatia_sifen_describe(S("0160"), &d, NULL) == KUATIA_STATUS_OK, "describe");
    CHECK(d.ptr && strstr((char *)d.ptr, "\"code\":\"0160\""), "%s", d.ptr ? (char *)d.ptr : "");
    kuatia_bytes_free(&d);
}

/* The value of the JSON string field `key` of `json`, unescaped (serde_json's escapes), malloc'ed; NULL when
 * absent or not a plain string. */
static char *json_string_value(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *p = strstr(json, pattern);
    if (!p) return NULL;
    p += strlen(pattern);
    char *out = malloc(strlen(p) + 1), *o = out;
    if (!out) return NULL;
    for (; *p && *p != '"'; p++) {
        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        p++;
        switch (*p) {
        case '"': case '\\': case '/': *o++ = *p; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        default: free(out); return NULL; /* u-escapes: not expected in kuatia's XML */
        }
    }
    if (*p != '"') {
        free(out);
        return NULL;
    }
    *o = 0;
    return out;
}

/* SIFEN events: a cancellation signed from its JSON form with the sandbox signer, put into an evento request
 * whose signature verifies (kuatia_xml_verify, and xmlsec1 when installed); what the ABI refuses. */
static void test_sifen_events(kuatia_signer *signer) {
    const char *cancel = "{\"tipo\":\"cancelacion\",\"id\":1,\"fecha_firma\":\"2025-03-11T09:00:00\","
                         "\"cdc\":\"01444444017001001000000122025031011234567890\",\"motivo\":\"Error en el precio\"}";
    kuatia_bytes signed_event = {NULL, 0}, req = {NULL, 0}, report = {NULL, 0};
    kuatia_error *err = NULL;
    CHECK(kuatia_sifen_event_sign(S(cancel), S("44444401-7"), signer, &signed_event, &err) == KUATIA_STATUS_OK, "%s",
          code_of(err));
    if (!signed_event.ptr) return;
    const char *sj = (const char *)signed_event.ptr;
    const char *want = "{\"id\":1,\"kind\":\"rGeVeCan\",\"cdc\":\"01444444017001001000000122025031011234567890\","
                       "\"xml\":\"<rGesEve><rEve Id=\\\"1\\\">";
    CHECK(strncmp(sj, want, strlen(want)) == 0, "%s", sj);
    /* The evento request's arg is a JSON array of the signed objects, as they came. */
    size_t alen = signed_event.len + 2;
    char *arg = malloc(alen + 1);
    CHECK(arg != NULL, "malloc");
    if (!arg) return;
    snprintf(arg, alen + 1, "[%s]", sj);
    CHECK(kuatia_sifen_request(S("evento"), (const uint8_t *)arg, alen, 42, false, &req, &err) == KUATIA_STATUS_OK,
          "%s", code_of(err));
    char *xml = req.ptr ? json_string_value((const char *)req.ptr, "xml") : NULL;
    CHECK(xml && strstr(xml, "<rEnviEventoDe xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\"><dId>42</dId><dEvReg>") &&
              strstr((const char *)req.ptr, "\"url\":\"https://sifen-test.set.gov.py/de/ws/eventos/evento.wsdl\""),
          "%s", req.ptr ? (const char *)req.ptr : "");
    if (xml) {
        bool valid = false;
        CHECK(kuatia_xml_verify((const uint8_t *)xml, strlen(xml), NULL, 0, &valid, &report, &err) == KUATIA_STATUS_OK,
              "%s", code_of(err));
        CHECK(valid && report.ptr && strstr((const char *)report.ptr, "\"reference_id\":\"1\""), "%s",
              report.ptr ? (const char *)report.ptr : "");
        kuatia_bytes_free(&report);
#ifndef KUATIA_TEST_NO_SHELL
        /* xmlsec1, the independent verifier, on the SOAP body when it is installed. */
        if (system("command -v xmlsec1 >/dev/null 2>&1") == 0) {
            char path[64];
            snprintf(path, sizeof path, "/tmp/kuatia-c-evento-%d.xml", (int)getpid());
            FILE *f = fopen(path, "wb");
            const char *body = strstr(xml, "<rEnviEventoDe"), *end = strstr(xml, "</env:Body>");
            CHECK(f && body && end, "%s", path);
            if (f && body && end) {
                fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", f);
                fwrite(body, 1, (size_t)(end - body), f);
                fclose(f);
                char cmd[256];
                snprintf(cmd, sizeof cmd,
                         "xmlsec1 --verify --id-attr:Id rEve --insecure %s >/dev/null 2>&1", path);
                CHECK(system(cmd) == 0, "xmlsec1 rejects %s", path);
                remove(path);
            } else if (f) {
                fclose(f);
            }
        } else {
            fprintf(stderr, "note: xmlsec1 not installed; the evento request was checked with kuatia_xml_verify only\n");
        }
#endif
    }
    free(xml);
    kuatia_bytes_free(&req);

    /* A tampered event is refused by the request. */
    char *tampered = strdup(arg), *m = tampered ? strstr(tampered, "Error en el precio") : NULL;
    CHECK(m != NULL, "motive in the signed event");
    if (m) {
        memcpy(m, "Error en el monto ", 18);
        CHECK(kuatia_sifen_request(S("evento"), (const uint8_t *)tampered, strlen(tampered), 42, false, &req, &err) ==
                      KUATIA_STATUS_INVALID_INPUT &&
                  strcmp(code_of(err), "SIFEN_EVENT_INVALID") == 0 && strcmp(kuatia_error_path(err), "arg[0].xml") == 0,
              "%s", code_of(err));
        CHECK(req.ptr == NULL, "nothing written on failure");
        kuatia_error_free(err);
        err = NULL;
    }
    free(tampered);
    free(arg);
    kuatia_bytes_free(&signed_event);

    /* Bad events: every finding with its path; wrong signer; NULL arguments. */
    const char *bad = "{\"tipo\":\"cancelacion\",\"id\":1,\"fecha_firma\":\"2025-03-11\","
                      "\"cdc\":\"0144\",\"motivo\":\"abcde\"}";
    CHECK(kuatia_sifen_event_sign(S(bad), S("44444401-7"), signer, &signed_event, &err) ==
                  KUATIA_STATUS_INVALID_INPUT &&
              kuatia_error_count(err) == 2,
          "%s", code_of(err));
    if (err) {
        const char *code, *path, *message;
        CHECK(kuatia_error_finding(err, 0, &code, &path, &message) && strcmp(code, "VALIDATION_ERROR.INVALID_FORMAT") == 0 &&
                  strcmp(path, "fecha_firma") == 0,
              "first finding");
        CHECK(kuatia_error_finding(err, 1, &code, &path, &message) && strcmp(code, "INVALID_CDC") == 0 &&
                  strcmp(path, "cdc") == 0,
              "second finding");
    }
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_sifen_event_sign(S(cancel), S("80069563-1"), signer, &signed_event, &err) ==
                  KUATIA_STATUS_INVALID_INPUT &&
              strcmp(code_of(err), "SIFEN_EVENT_SIGNER") == 0,
          "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_sifen_event_sign(S(cancel), S("44444401-7"), NULL, &signed_event, &err) ==
                  KUATIA_STATUS_INVALID_ARGUMENT &&
              strcmp(kuatia_error_path(err), "signer") == 0,
          "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_sifen_event_sign(NULL, 0, S("44444401-7"), signer, &signed_event, NULL) ==
              KUATIA_STATUS_INVALID_ARGUMENT,
          "NULL event");
    CHECK(kuatia_sifen_event_sign(S(cancel), S("44444401-7"), signer, NULL, NULL) == KUATIA_STATUS_INVALID_ARGUMENT,
          "NULL out");
    CHECK(signed_event.ptr == NULL, "nothing written on failure");
    CHECK(kuatia_sifen_request(S("evento"), S("[]"), 1, false, &req, &err) == KUATIA_STATUS_INVALID_INPUT &&
              strcmp(code_of(err), "SIFEN_EVENT_COUNT") == 0,
          "%s", code_of(err));
    kuatia_error_free(err);
}

/* The language of messages: an error read in the language asked for, the first finding's rule, and a report's
 * findings rendered again. NULL and unknown tags are Spanish of Paraguay, as are the accessors without a language. */
static void test_languages(void) {
    static const char *es = "El d\xc3\xad" "gito verificador del RUC no corresponde: deber\xc3\xad" "a ser 1, no 2";
    static const char *en = "wrong RUC check digit: expected 1, got 2";
    kuatia_error *err = NULL;
    CHECK(kuatia_ruc_check(S("80069563-2"), &err) == KUATIA_STATUS_INVALID_INPUT, "wrong DV");
    CHECK(strcmp(kuatia_error_rule(err), "ruc.check_digit") == 0, "%s", kuatia_error_rule(err));
    CHECK(strcmp(kuatia_error_message(err), es) == 0, "%s", kuatia_error_message(err));
    CHECK(kuatia_error_json(err) && strstr(kuatia_error_json(err), es), "%s", kuatia_error_json(err));
    const char *fcode, *fpath, *fmessage;
    CHECK(kuatia_error_finding(err, 0, &fcode, &fpath, &fmessage) && strcmp(fmessage, es) == 0, "finding message");
    CHECK(strcmp(kuatia_error_message_in(err, NULL), es) == 0, "%s", kuatia_error_message_in(err, NULL));
    CHECK(strcmp(kuatia_error_message_in(err, "es-PY"), es) == 0, "es-PY");
    CHECK(strcmp(kuatia_error_message_in(err, "xx"), es) == 0, "unknown tag");
    CHECK(strcmp(kuatia_error_message_in(err, "en_US.UTF-8"), en) == 0, "%s", kuatia_error_message_in(err, "en"));
    const char *json_es = kuatia_error_json_in(err, "es");
    CHECK(json_es && strstr(json_es, "\"rule\":\"ruc.check_digit\"") && strstr(json_es, es) &&
              strstr(json_es, "\"params\":{\"expected\":\"1\",\"got\":\"2\"}"),
          "%s", json_es);
    CHECK(kuatia_error_json_in(err, "es") == json_es, "one rendering per language");
    const char *json_en = kuatia_error_json_in(err, "en");
    CHECK(json_en && strstr(json_en, en), "%s", json_en);
    /* A report holding the findings (as kuatia_invoice_validate writes one), rendered again in Spanish. */
    char report[512];
    snprintf(report, sizeof report, "{\"ok\":false,\"errors\":%s}", json_en);
    kuatia_bytes out = {NULL, 0};
    kuatia_error *lerr = NULL;
    CHECK(kuatia_findings_localize((const uint8_t *)report, strlen(report), "es", &out, &lerr) == KUATIA_STATUS_OK,
          "localize: %s", code_of(lerr));
    CHECK(out.ptr && strstr((const char *)out.ptr, es) && !strstr((const char *)out.ptr, en), "%s",
          out.ptr ? (const char *)out.ptr : "(null)");
    kuatia_bytes_free(&out);
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_findings_localize(S("{\"ok\":"), NULL, &out, &err) == KUATIA_STATUS_INVALID_INPUT, "bad JSON");
    CHECK(strcmp(code_of(err), "MALFORMED_JSON") == 0 && out.ptr == NULL, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_findings_localize(NULL, 0, "en", &out, &err) == KUATIA_STATUS_INVALID_ARGUMENT, "NULL report");
    kuatia_error_free(err);
    /* The registry of rules, for hosts that write their own text from rule and params. */
    kuatia_bytes rules = {NULL, 0};
    CHECK(kuatia_rules(&rules, NULL) == KUATIA_STATUS_OK && rules.ptr &&
              strstr((const char *)rules.ptr, "\"rule\":\"ruc.check_digit\""),
          "kuatia_rules");
    kuatia_bytes_free(&rules);
    /* An argument error of the C ABI has a rule too (the argument's name a parameter): Spanish by default. */
    err = NULL;
    CHECK(kuatia_ruc_check(NULL, 0, &err) == KUATIA_STATUS_INVALID_ARGUMENT &&
              strcmp(kuatia_error_rule(err), "host.arg.null") == 0,
          "%s", err ? kuatia_error_rule(err) : "(no error)");
    CHECK(strncmp(kuatia_error_message(err), "El argumento ", 13) == 0, "%s", kuatia_error_message(err));
    const char *null_en = kuatia_error_message_in(err, "en");
    CHECK(strlen(null_en) > 16 && strcmp(null_en + strlen(null_en) - 16, "must not be NULL") == 0, "%s", null_en);
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_error_json_in(NULL, "es") == NULL && kuatia_error_message_in(NULL, NULL) == NULL &&
              kuatia_error_rule(NULL) == NULL,
          "NULL accessors");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <repository root> [--quick] [--answers]\n", argv[0]);
        return 2;
    }
    int quick = 0;
    for (int i = 2; i < argc; i++) {
        quick |= strcmp(argv[i], "--quick") == 0;
        answers |= strcmp(argv[i], "--answers") == 0;
    }
    test_version();
    test_arguments_and_errors();
    test_ruc_cdc();
    test_languages();
    test_messages();
    test_qr();
    test_signers(argv[1]);
    test_sifen(argv[1]);
    kuatia_signer *signer = sandbox_signer();
    int ok_cases = 0, bad_cases = 0;
    for (size_t i = 0; i < N_VECTORS; i++) {
        replay(&VECTORS[i], signer, !quick || strcmp(VECTORS[i].name, "fe_spec_example") == 0);
        if (VECTORS[i].ok)
            ok_cases++;
        else
            bad_cases++;
    }
    CHECK(ok_cases >= 10 && bad_cases >= 2, "%d valid and %d invalid cases", ok_cases, bad_cases);
    test_issue_arguments(signer);
    test_sifen_events(signer);
    test_threads(signer);
    kuatia_signer_free(signer);
    printf("C tests: %d checks, %d failures, %d conformance cases\n", checks, failures, (int)N_VECTORS);
    return failures == 0 ? 0 : 1;
}
