/* C tests of kuatia_service, the in-process /v1 API, built and run like test_kuatia.c by scripts/ffi-check.sh (ASAN
 * and UBSAN, then once under valgrind): the spec's flow with the host's clock and seeds, keys and accounts, webhooks,
 * and production invoices whose SIFEN calls go through the host.
 *
 * Usage: test_service <repository root> [--quick] (--quick is accepted and changes nothing: every test here is
 * quick). */
#define _DEFAULT_SOURCE /* getrandom's ssize_t */
#include "kuatia.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32 /* built with mingw-w64 and run under Wine by scripts/windows-check.sh */
#include <windows.h>
#include <bcrypt.h>
#else
#include <sys/random.h>
#include <unistd.h>
#endif

#include "check.h"
#include "common.h"

/* --- kuatia_service: the in-process /v1 API ------------------------------------------------------------------ */

/* 2025-03-10 13:11:00 UTC = 10:11 in Asunción. */
static const int64_t SERVICE_NOW = 1741612260;

/* A fresh seed from the kernel's CSPRNG, as the header asks of every host. */
static const uint8_t *fresh_seed(uint8_t seed[KUATIA_SEED_LEN]) {
#ifdef _WIN32
    if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, seed, KUATIA_SEED_LEN, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
        fprintf(stderr, "BCryptGenRandom failed\n");
        exit(2);
    }
#else
    size_t got = 0;
    while (got < KUATIA_SEED_LEN) {
        ssize_t n = getrandom(seed + got, KUATIA_SEED_LEN - got, 0);
        if (n <= 0) {
            fprintf(stderr, "getrandom failed\n");
            exit(2);
        }
        got += (size_t)n;
    }
#endif
    return seed;
}

/* The integer after "key": in a JSON text; -1 when absent. */
static long json_int(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr(json, pattern);
    return p ? strtol(p + strlen(pattern), NULL, 10) : -1;
}

/* One request; returns the HTTP status (or -1 when the call failed) and fills head and body. */
static long service_call(kuatia_service *svc, const char *method, const char *path, const char *key,
                         const char *body, int64_t now, kuatia_signer *signer, kuatia_bytes *head,
                         kuatia_bytes *out) {
    char req[512];
    if (key)
        snprintf(req, sizeof req,
                 "{\"method\":\"%s\",\"path\":\"%s\",\"headers\":[[\"Authorization\",\"Bearer %s\"],"
                 "[\"X-Environment\",\"sandbox\"]]}",
                 method, path, key);
    else
        snprintf(req, sizeof req, "{\"method\":\"%s\",\"path\":\"%s\"}", method, path);
    uint8_t seed[KUATIA_SEED_LEN];
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_service_handle(svc, S(req), (const uint8_t *)body, body ? strlen(body) : 0, now,
                                             fresh_seed(seed), sizeof seed, signer, NULL, head, out, &err);
    CHECK(st == KUATIA_STATUS_OK, "%s %s: status %d %s", method, path, st, code_of(err));
    kuatia_error_free(err);
    return st == KUATIA_STATUS_OK ? json_int((const char *)head->ptr, "status") : -1;
}

static void test_service(kuatia_signer *signer) {
    kuatia_service *svc = NULL;
    kuatia_error *err = NULL;
    CHECK(kuatia_service_new(S("{\"base_url\":\"https://erp.example.test\"}"), &svc, &err) == KUATIA_STATUS_OK,
          "new: %s", code_of(err));
    if (!svc) return;

    uint8_t seed[KUATIA_SEED_LEN];
    kuatia_bytes acct = {NULL, 0};
    CHECK(kuatia_service_create_account(svc, S("Empresa de prueba"), SERVICE_NOW, fresh_seed(seed), sizeof seed,
                                        &acct, &err) == KUATIA_STATUS_OK,
          "create_account: %s", code_of(err));
    char account[64], key[96];
    json_str(acct.ptr ? (const char *)acct.ptr : "", "account_id", account, sizeof account);
    json_str(acct.ptr ? (const char *)acct.ptr : "", "key", key, sizeof key);
    kuatia_bytes_free(&acct);
    CHECK(strncmp(account, "acct_", 5) == 0, "account %s", account);
    CHECK(strncmp(key, "dk_test_", 8) == 0, "key %s", key);

    /* A second key for the account, live this time; an unknown account is NOT_FOUND. */
    kuatia_bytes live = {NULL, 0};
    CHECK(kuatia_service_create_key(svc, S(account), true, SERVICE_NOW, fresh_seed(seed), sizeof seed, &live,
                                    &err) == KUATIA_STATUS_OK,
          "create_key: %s", code_of(err));
    CHECK(live.ptr && strncmp((const char *)live.ptr, "dk_live_", 8) == 0, "live key");
    kuatia_bytes_free(&live);
    CHECK(kuatia_service_create_key(svc, S("acct_nobody"), false, SERVICE_NOW, fresh_seed(seed), sizeof seed,
                                    &live, &err) == KUATIA_STATUS_INVALID_INPUT,
          "unknown account");
    CHECK(strcmp(code_of(err), "NOT_FOUND") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(live.ptr == NULL, "out untouched on failure");
    /* A seed of the wrong length is refused before anything is drawn. */
    CHECK(kuatia_service_create_account(svc, S("x"), SERVICE_NOW, seed, 16, &acct, &err) ==
              KUATIA_STATUS_INVALID_ARGUMENT,
          "short seed");
    CHECK(strcmp(kuatia_error_path(err), "seed") == 0, "%s", kuatia_error_path(err));
    kuatia_error_free(err);
    err = NULL;

    /* The spec flow: POST with _simulate approved, GET it back, fetch the KuDE. */
    const char *factura =
        "{\"tipo_documento\":1,\"receptor\":{\"ruc\":\"80069563-1\",\"razon_social\":\"Cliente Ejemplo S.A.\"},"
        "\"items\":[{\"descripcion\":\"Servicio de consultor\xc3\xad" "a\",\"cantidad\":1,"
        "\"precio_unitario\":1100000,\"iva\":10}],\"condicion_pago\":1,\"_simulate\":\"approved\"}";
    kuatia_bytes head = {NULL, 0}, body = {NULL, 0};
    long status = service_call(svc, "POST", "/v1/facturas", key, factura, SERVICE_NOW, signer, &head, &body);
    CHECK(status == 201, "POST /v1/facturas: %ld %s", status, body.ptr ? (const char *)body.ptr : "");
    char id[64] = "", cdc[64] = "", st[32] = "", kude_url[160] = "";
    if (body.ptr) {
        json_str((const char *)body.ptr, "id", id, sizeof id);
        json_str((const char *)body.ptr, "cdc", cdc, sizeof cdc);
        json_str((const char *)body.ptr, "status", st, sizeof st);
        json_str((const char *)body.ptr, "kude_url", kude_url, sizeof kude_url);
    }
    CHECK(strncmp(id, "fact_", 5) == 0, "id %s", id);
    CHECK(strlen(cdc) == 44, "cdc %s", cdc);
    CHECK(strcmp(st, "approved") == 0, "status %s", st);
    char want_url[160];
    snprintf(want_url, sizeof want_url, "https://erp.example.test/v1/facturas/%s/kude", id);
    CHECK(strcmp(kude_url, want_url) == 0, "kude_url %s", kude_url);
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);
    /* The CDC is valid for the library's own parser (check digit, sandbox RUC). */
    kuatia_bytes parsed = {NULL, 0};
    CHECK(kuatia_cdc_parse(S(cdc), &parsed, NULL) == KUATIA_STATUS_OK, "cdc parses");
    char ruc[32];
    CHECK(strcmp(json_str(parsed.ptr ? (const char *)parsed.ptr : "", "ruc", ruc, sizeof ruc), "44444401-7") == 0,
          "ruc %s", ruc);
    kuatia_bytes_free(&parsed);

    char path[160];
    snprintf(path, sizeof path, "/v1/facturas/%s", id);
    status = service_call(svc, "GET", path, key, NULL, SERVICE_NOW + 1, NULL, &head, &body);
    CHECK(status == 200, "GET %s: %ld", path, status);
    char got[64] = "";
    if (body.ptr) json_str((const char *)body.ptr, "cdc", got, sizeof got);
    CHECK(strcmp(got, cdc) == 0, "GET returns the same CDC: %s", got);
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);

    snprintf(path, sizeof path, "/v1/facturas/%s/kude", id);
    status = service_call(svc, "GET", path, key, NULL, SERVICE_NOW + 2, NULL, &head, &body);
    CHECK(status == 200, "GET %s: %ld", path, status);
    CHECK(head.ptr && strstr((const char *)head.ptr, "[\"Content-Type\",\"application/pdf\"]"), "%s",
          head.ptr ? (const char *)head.ptr : "");
    CHECK(body.len > 1000 && memcmp(body.ptr, "%PDF-", 5) == 0, "a PDF of %zu bytes", body.len);
    /* Binary-safe: the PDF holds NUL-free binary streams; its end marker is within len. */
    int eof = 0;
    for (size_t i = 0; body.ptr && i + 5 <= body.len; i++)
        if (memcmp(body.ptr + i, "%%EOF", 5) == 0) eof = 1;
    CHECK(eof, "%%%%EOF within the body");
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);

    /* 401: no key, and a key the service never issued. */
    status = service_call(svc, "GET", "/v1/facturas", NULL, NULL, SERVICE_NOW, NULL, &head, &body);
    CHECK(status == 401, "no key: %ld", status);
    char code[64] = "";
    if (body.ptr) json_str((const char *)body.ptr, "code", code, sizeof code);
    CHECK(strcmp(code, "UNAUTHORIZED") == 0, "code %s", code);
    CHECK(head.ptr && strstr((const char *)head.ptr, "WWW-Authenticate"), "WWW-Authenticate header");
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);
    status = service_call(svc, "GET", "/v1/facturas", "dk_test_AAAAAAAABBBBBBBBCCCCCCCCDDDDDDDDEEEEEEEE", NULL,
                          SERVICE_NOW, NULL, &head, &body);
    CHECK(status == 401, "unknown key: %ld", status);
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);

    /* No webhook registered: nothing due; an unknown delivery is NOT_FOUND. */
    kuatia_bytes due = {NULL, 0};
    CHECK(kuatia_service_due_deliveries(svc, SERVICE_NOW + 3, &due, NULL) == KUATIA_STATUS_OK, "due");
    CHECK(due.ptr && strcmp((const char *)due.ptr, "[]") == 0, "due %s", due.ptr ? (const char *)due.ptr : "");
    kuatia_bytes_free(&due);
    CHECK(kuatia_service_report_delivery(svc, S("dlv_nope"), true, &due, &err) == KUATIA_STATUS_INVALID_INPUT,
          "unknown delivery");
    CHECK(strcmp(code_of(err), "NOT_FOUND") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    CHECK(kuatia_service_tick(svc, SERVICE_NOW + 4, fresh_seed(seed), sizeof seed, NULL) == KUATIA_STATUS_OK, "tick");
    kuatia_service_free(svc);
    kuatia_service_free(NULL);
}

/* A request of a live key (no X-Environment), signed by the production signer; returns the HTTP status. */
static long live_call(kuatia_service *svc, const char *method, const char *path, const char *key, const char *body,
                      int64_t now, kuatia_signer *production, kuatia_bytes *head, kuatia_bytes *out) {
    char req[512];
    snprintf(req, sizeof req,
             "{\"method\":\"%s\",\"path\":\"%s\",\"headers\":[[\"Authorization\",\"Bearer %s\"]]}", method, path,
             key);
    uint8_t seed[KUATIA_SEED_LEN];
    kuatia_error *err = NULL;
    kuatia_status st = kuatia_service_handle(svc, S(req), (const uint8_t *)body, body ? strlen(body) : 0, now,
                                             fresh_seed(seed), sizeof seed, NULL, production, head, out, &err);
    CHECK(st == KUATIA_STATUS_OK, "%s %s: status %d %s", method, path, st, code_of(err));
    kuatia_error_free(err);
    return st == KUATIA_STATUS_OK ? json_int((const char *)head->ptr, "status") : -1;
}

/* The SIFEN calls due at `now` (JSON array); the caller frees it. */
static kuatia_bytes due_sifen(kuatia_service *svc, int64_t now) {
    uint8_t seed[KUATIA_SEED_LEN];
    kuatia_bytes due = {NULL, 0};
    kuatia_error *err = NULL;
    CHECK(kuatia_service_due_sifen(svc, now, fresh_seed(seed), sizeof seed, 50, &due, &err) == KUATIA_STATUS_OK,
          "due_sifen: %s", code_of(err));
    kuatia_error_free(err);
    return due;
}

/* The only job of a due array `[{...}]`, as (ptr, len) into it; len 0 when there is not exactly one. */
static size_t only_job(const kuatia_bytes *due, const uint8_t **job) {
    const char *t = due->ptr ? (const char *)due->ptr : "";
    *job = due->ptr;
    if (due->len < 4 || t[0] != '[' || t[1] != '{' || t[due->len - 1] != ']' || strstr(t, "},{\"account_id\""))
        return 0;
    *job = due->ptr + 1;
    return due->len - 2;
}

/* Reports an outcome; returns the call status and fills `progress` (JSON array) on success. */
static kuatia_status report_sifen(kuatia_service *svc, const uint8_t *job, size_t job_len, uint32_t outcome,
                                  uint16_t http_status, const uint8_t *body, size_t body_len, const char *message,
                                  int64_t now, kuatia_bytes *progress, kuatia_error **err) {
    uint8_t seed[KUATIA_SEED_LEN];
    return kuatia_service_report_sifen(svc, job, job_len, outcome, http_status, body, body_len,
                                       (const uint8_t *)message, message ? strlen(message) : 0, now,
                                       fresh_seed(seed), sizeof seed, progress, err);
}

/* Production invoices travel through the host: a recibe job, SIFEN's approval reported as raw bytes, and a timeout
 * that leads to a query by CDC after the back-off. */
static void test_service_sifen(const char *root, kuatia_signer *signer) {
    kuatia_service *svc = NULL;
    kuatia_error *err = NULL;
    CHECK(kuatia_service_new(S("{\"sifen_retry\":[1]}"), &svc, &err) == KUATIA_STATUS_OK, "new: %s", code_of(err));
    if (!svc) return;
    uint8_t seed[KUATIA_SEED_LEN];
    kuatia_bytes acct = {NULL, 0}, live = {NULL, 0};
    CHECK(kuatia_service_create_account(svc, S("Emisor"), SERVICE_NOW, fresh_seed(seed), sizeof seed, &acct, NULL) ==
              KUATIA_STATUS_OK,
          "create_account");
    char account[64];
    json_str(acct.ptr ? (const char *)acct.ptr : "", "account_id", account, sizeof account);
    kuatia_bytes_free(&acct);
    CHECK(kuatia_service_create_key(svc, S(account), true, SERVICE_NOW, fresh_seed(seed), sizeof seed, &live,
                                    NULL) == KUATIA_STATUS_OK,
          "create_key");
    char key[96] = "";
    if (live.ptr) snprintf(key, sizeof key, "%s", (const char *)live.ptr);
    kuatia_bytes_free(&live);
    /* The production profile: the built-in sandbox one (NULL), in SIFEN's test environment, whose RUC matches the
     * sandbox test certificate used here as the production signer. Unknown accounts and bad profiles fail. */
    CHECK(kuatia_service_set_production_profile(svc, S(account), NULL, 0, &err) == KUATIA_STATUS_OK, "profile: %s",
          code_of(err));
    CHECK(kuatia_service_set_production_profile(svc, S("acct_nobody"), NULL, 0, &err) == KUATIA_STATUS_INVALID_INPUT,
          "unknown account");
    CHECK(strcmp(code_of(err), "NOT_FOUND") == 0, "%s", code_of(err));
    kuatia_error_free(err);
    err = NULL;
    CHECK(kuatia_service_set_production_profile(svc, S(account), S("{\"ruc\":1}"), &err) ==
              KUATIA_STATUS_INVALID_INPUT,
          "bad profile");
    CHECK(strncmp(err ? kuatia_error_path(err) : "", "profile", 7) == 0, "%s", err ? kuatia_error_path(err) : "");
    kuatia_error_free(err);
    err = NULL;

    const char *factura =
        "{\"tipo_documento\":1,\"receptor\":{\"ruc\":\"80069563-1\",\"razon_social\":\"Cliente Ejemplo S.A.\"},"
        "\"items\":[{\"descripcion\":\"Servicio\",\"cantidad\":1,\"precio_unitario\":1100000,\"iva\":10}],"
        "\"condicion_pago\":1}";
    kuatia_bytes head = {NULL, 0}, body = {NULL, 0};
    long status = live_call(svc, "POST", "/v1/facturas", key, factura, SERVICE_NOW, signer, &head, &body);
    CHECK(status == 201, "POST live: %ld %s", status, body.ptr ? (const char *)body.ptr : "");
    char id[64] = "", cdc[64] = "", st[32] = "";
    if (body.ptr) {
        json_str((const char *)body.ptr, "id", id, sizeof id);
        json_str((const char *)body.ptr, "cdc", cdc, sizeof cdc);
        json_str((const char *)body.ptr, "status", st, sizeof st);
    }
    CHECK(strcmp(st, "pending") == 0 && strlen(cdc) == 44, "created %s %s", st, cdc);
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);

    /* One recibe job for SIFEN's test environment; the CDC is the DE's Id inside the SOAP body. */
    kuatia_bytes due = due_sifen(svc, SERVICE_NOW);
    const uint8_t *job = NULL;
    size_t job_len = only_job(&due, &job);
    const char *dt = due.ptr ? (const char *)due.ptr : "";
    CHECK(job_len > 0, "one job: %s", dt);
    CHECK(strstr(dt, "\"service\":\"recibe\"") && strstr(dt, "\"url\":\"https://sifen-test.set.gov.py/de/ws/sync/"
                                                             "recibe.wsdl\""),
          "%s", dt);
    char job_cdc[64] = "";
    const char *de = strstr(dt, "<DE Id=\\\"");
    if (de) {
        de += strlen("<DE Id=\\\"");
        const char *end = strstr(de, "\\\"");
        size_t n = end ? (size_t)(end - de) : 0;
        if (n < sizeof job_cdc) {
            memcpy(job_cdc, de, n);
            job_cdc[n] = 0;
        }
    }
    CHECK(strcmp(job_cdc, cdc) == 0, "the job carries the DE %s, not %s", job_cdc, cdc);
    kuatia_bytes none = due_sifen(svc, SERVICE_NOW);
    CHECK(none.ptr && strcmp((const char *)none.ptr, "[]") == 0, "in flight: %s", none.ptr ? (char *)none.ptr : "");
    kuatia_bytes_free(&none);

    /* SIFEN's approval (the sample answer with this CDC), reported as the raw bytes received. */
    char path[4096];
    size_t alen = 0;
    snprintf(path, sizeof path, "%s/core/tests/sifen_samples/recibe_aprobado.xml", root);
    uint8_t *answer = read_file(path, &alen);
    CHECK(answer != NULL, "%s", path);
    if (answer && job_len) {
        answer[alen] = 0;
        char *at = strstr((char *)answer, "01444444017001001000000122025031011234567890");
        CHECK(at != NULL, "sample CDC");
        if (at) memcpy(at, cdc, 44);
        kuatia_bytes progress = {NULL, 0};
        CHECK(report_sifen(svc, job, job_len, KUATIA_SIFEN_OUTCOME_ANSWER, 200, answer, alen, NULL, SERVICE_NOW + 1,
                           &progress, &err) == KUATIA_STATUS_OK,
              "report approval: %s", code_of(err));
        const char *pt = progress.ptr ? (const char *)progress.ptr : "";
        char inv[64] = "";
        json_str(pt, "invoice_id", inv, sizeof inv);
        CHECK(strcmp(inv, id) == 0 && strstr(pt, "\"status\":\"approved\"") && strstr(pt, "\"next\":\"idle\""), "%s",
              pt);
        kuatia_bytes_free(&progress);
        /* An outcome that is not a kuatia_sifen_outcome is refused, nothing written. */
        CHECK(report_sifen(svc, job, job_len, 9, 0, NULL, 0, NULL, SERVICE_NOW, &progress, &err) ==
                  KUATIA_STATUS_INVALID_ARGUMENT,
              "bad outcome");
        CHECK(strcmp(err ? kuatia_error_path(err) : "", "outcome") == 0 && progress.ptr == NULL, "outcome path");
        kuatia_error_free(err);
        err = NULL;
        CHECK(report_sifen(svc, job, job_len, KUATIA_SIFEN_OUTCOME_FAILED, 0, NULL, 0, NULL, SERVICE_NOW, &progress,
                           &err) == KUATIA_STATUS_INVALID_ARGUMENT,
              "failed without a message");
        kuatia_error_free(err);
        err = NULL;
        CHECK(report_sifen(svc, job, (size_t)-1, KUATIA_SIFEN_OUTCOME_TIMEOUT, 0, NULL, 0, NULL, SERVICE_NOW,
                           &progress, &err) == KUATIA_STATUS_TOO_LARGE,
              "huge job");
        kuatia_error_free(err);
        err = NULL;
    }
    free(answer);
    kuatia_bytes_free(&due);
    char get[160];
    snprintf(get, sizeof get, "/v1/facturas/%s", id);
    status = live_call(svc, "GET", get, key, NULL, SERVICE_NOW + 2, NULL, &head, &body);
    st[0] = 0;
    char protocolo[32] = "";
    if (body.ptr) {
        json_str((const char *)body.ptr, "status", st, sizeof st);
        json_str((const char *)body.ptr, "protocolo", protocolo, sizeof protocolo);
    }
    CHECK(status == 200 && strcmp(st, "approved") == 0 && strcmp(protocolo, "1234567890") == 0, "GET: %ld %s %s",
          status, st, protocolo);
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);

    /* A timeout: not resent, queried by CDC once the back-off (sifen_retry [1]) has passed. */
    status = live_call(svc, "POST", "/v1/facturas", key, factura, SERVICE_NOW + 10, signer, &head, &body);
    CHECK(status == 201, "second POST: %ld", status);
    char cdc2[64] = "";
    if (body.ptr) json_str((const char *)body.ptr, "cdc", cdc2, sizeof cdc2);
    kuatia_bytes_free(&head);
    kuatia_bytes_free(&body);
    due = due_sifen(svc, SERVICE_NOW + 10);
    job_len = only_job(&due, &job);
    CHECK(job_len > 0, "one job");
    kuatia_bytes progress = {NULL, 0};
    if (job_len) {
        CHECK(report_sifen(svc, job, job_len, KUATIA_SIFEN_OUTCOME_TIMEOUT, 0, NULL, 0, NULL, SERVICE_NOW + 10,
                           &progress, &err) == KUATIA_STATUS_OK,
              "report timeout: %s", code_of(err));
        const char *pt = progress.ptr ? (const char *)progress.ptr : "";
        CHECK(strstr(pt, "\"status\":\"pending\"") && strstr(pt, "\"next\":\"query\"") &&
                  json_int(pt, "due_at") == SERVICE_NOW + 11 && json_int(pt, "attempts") == 1,
              "%s", pt);
        kuatia_bytes_free(&progress);
    }
    kuatia_bytes_free(&due);
    due = due_sifen(svc, SERVICE_NOW + 10);
    CHECK(due.ptr && strcmp((const char *)due.ptr, "[]") == 0, "before the back-off: %s",
          due.ptr ? (char *)due.ptr : "");
    kuatia_bytes_free(&due);
    due = due_sifen(svc, SERVICE_NOW + 11);
    job_len = only_job(&due, &job);
    dt = due.ptr ? (const char *)due.ptr : "";
    CHECK(job_len > 0 && strstr(dt, "\"service\":\"consulta\"") && strstr(dt, cdc2), "consulta: %s", dt);
    if (job_len) {
        CHECK(report_sifen(svc, job, job_len, KUATIA_SIFEN_OUTCOME_FAILED, 0, NULL, 0, "connection refused",
                           SERVICE_NOW + 11, &progress, &err) == KUATIA_STATUS_OK,
              "report failure: %s", code_of(err));
        const char *pt = progress.ptr ? (const char *)progress.ptr : "";
        char last[96] = "";
        json_str(pt, "last_error", last, sizeof last);
        CHECK(strcmp(last, "transport: connection refused") == 0 && json_int(pt, "attempts") == 2, "%s", pt);
        kuatia_bytes_free(&progress);
    }
    kuatia_bytes_free(&due);
    kuatia_error_free(err);
    kuatia_service_free(svc);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <repository root> [--quick]\n", argv[0]);
        return 2;
    }
    kuatia_signer *signer = sandbox_signer();
    test_service(signer);
    test_service_sifen(argv[1], signer);
    kuatia_signer_free(signer);
    printf("C service tests: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
