/*
 * kuatia: the stdcall entry points of kuatia.dll for 32-bit Windows hosts (Visual Basic 6, Visual FoxPro, old
 * Delphi), declared by hand from ffi/src/stdcall.rs (scripts/windows-check.sh links a caller against the x86 import
 * library, so a function or parameter size that drifts fails the link: stdcall names carry their argument bytes).
 * Windows only; the portable C API is kuatia.h. docs/windows.md shows the VB6 and VFP declarations.
 *
 * Conventions:
 *  - Text is NUL-terminated UTF-8 (ASCII JSON with \u00f1-style escapes passes through any ANSI code page).
 *  - Every function but kuatia_sc_signer_free returns a kuatia_status (0 = OK) as int32_t. On failure `err`
 *    (capacity err_cap; may be NULL/0) receives every finding, one "CODE at PATH: message" line each, CR LF between.
 *  - Results are copied into the caller's buffers (capacity in bytes, the NUL included). A buffer too small is
 *    status 1 (KUATIA_STATUS_INVALID_ARGUMENT) with the size needed in `err`.
 *  - A signer is an opaque handle (a Long in VB6): free it once with kuatia_sc_signer_free.
 */
#ifndef KUATIA_STDCALL_H
#define KUATIA_STDCALL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef KUATIA_STDCALL
#define KUATIA_STDCALL __stdcall
#endif

typedef struct kuatia_signer kuatia_signer;

int32_t KUATIA_STDCALL kuatia_sc_version(char *out, int32_t cap);
int32_t KUATIA_STDCALL kuatia_sc_ruc_dv(const char *body, int32_t *dv, char *err, int32_t err_cap);
int32_t KUATIA_STDCALL kuatia_sc_signer_sandbox(kuatia_signer **signer, char *err, int32_t err_cap);
int32_t KUATIA_STDCALL kuatia_sc_signer_from_p12(const uint8_t *p12, int32_t p12_len, const char *password,
                                                 kuatia_signer **signer, char *err, int32_t err_cap);
void KUATIA_STDCALL kuatia_sc_signer_free(kuatia_signer *signer);
int32_t KUATIA_STDCALL kuatia_sc_invoice_issue(const char *request, const char *profile, const kuatia_signer *signer,
                                               const char *now, int32_t numero, int32_t codigo_seguridad, char *xml,
                                               int32_t xml_cap, char *summary, int32_t summary_cap, char *err,
                                               int32_t err_cap);

#ifdef __cplusplus
}
#endif

#endif
