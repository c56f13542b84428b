<?php

declare(strict_types=1);

namespace Kuatia;

use FFI;
use FFI\CData;

/**
 * The C library: where it is found, its declarations, and the helpers every wrapper uses (status → exception,
 * owned buffers → PHP strings, JSON in and out). Internal: the public API is {@see Kuatia}, {@see Signer} and
 * {@see Service}.
 *
 * @internal
 */
final class Native
{
    /**
     * The declarations of include/kuatia.h this binding uses, as FFI::cdef reads them (no preprocessor, no
     * comments). tools/binding_parity.py compares every statement with the header and fails on any difference but
     * one: inputs declared `const uint8_t *` in the header are `const char *` here (the same ABI), so PHP strings
     * are passed by pointer without a copy. kuatia_error_count/kuatia_error_finding are left out on purpose
     * (kuatia_error_json gives every finding at once).
     */
    public const CDEF = <<<'CDEF'
typedef enum kuatia_status {
    KUATIA_STATUS_OK = 0,
    KUATIA_STATUS_INVALID_ARGUMENT = 1,
    KUATIA_STATUS_INVALID_UTF8 = 2,
    KUATIA_STATUS_TOO_LARGE = 3,
    KUATIA_STATUS_INVALID_INPUT = 4,
    KUATIA_STATUS_SIGN_ERROR = 5,
    KUATIA_STATUS_PANIC = 6,
} kuatia_status;
typedef enum kuatia_kude_format {
    KUATIA_KUDE_FORMAT_A4 = 0,
    KUATIA_KUDE_FORMAT_TICKET = 1,
} kuatia_kude_format;
typedef enum kuatia_sifen_outcome {
    KUATIA_SIFEN_OUTCOME_ANSWER = 0,
    KUATIA_SIFEN_OUTCOME_TIMEOUT = 1,
    KUATIA_SIFEN_OUTCOME_FAILED = 2,
} kuatia_sifen_outcome;
typedef struct kuatia_error kuatia_error;
typedef struct kuatia_service kuatia_service;
typedef struct kuatia_signer kuatia_signer;
typedef struct kuatia_bytes {
    uint8_t *ptr;
    size_t len;
} kuatia_bytes;
const char *kuatia_version(void);
void kuatia_bytes_free(struct kuatia_bytes *bytes);
void kuatia_error_free(struct kuatia_error *err);
enum kuatia_status kuatia_error_status(const struct kuatia_error *err);
const char *kuatia_error_code(const struct kuatia_error *err);
const char *kuatia_error_message(const struct kuatia_error *err);
const char *kuatia_error_path(const struct kuatia_error *err);
const char *kuatia_error_json(const struct kuatia_error *err);
enum kuatia_status kuatia_error_codes(struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_ruc_dv(const char *body, size_t body_len, uint8_t *out_dv, struct kuatia_error **err);
enum kuatia_status kuatia_ruc_check(const char *ruc, size_t ruc_len, struct kuatia_error **err);
enum kuatia_status kuatia_cdc_build(const char *fields_json, size_t fields_len, struct kuatia_bytes *out_cdc,
    struct kuatia_error **err);
enum kuatia_status kuatia_cdc_parse(const char *cdc, size_t cdc_len, struct kuatia_bytes *out_json,
    struct kuatia_error **err);
enum kuatia_status kuatia_invoice_validate(const char *request_json, size_t request_len, const char *profile_json,
    size_t profile_len, const char *now, size_t now_len, struct kuatia_bytes *out_report,
    struct kuatia_error **err);
enum kuatia_status kuatia_invoice_totals(const char *request_json, size_t request_len,
    struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_invoice_numbering_key(const char *request_json, size_t request_len,
    const char *profile_json, size_t profile_len, const char *now, size_t now_len, struct kuatia_bytes *out_json,
    struct kuatia_error **err);
enum kuatia_status kuatia_invoice_preview_xml(const char *request_json, size_t request_len,
    const char *profile_json, size_t profile_len, const char *now, size_t now_len, uint32_t numero,
    uint32_t codigo_seguridad, struct kuatia_bytes *out_xml, struct kuatia_error **err);
enum kuatia_status kuatia_invoice_issue(const char *request_json, size_t request_len, const char *profile_json,
    size_t profile_len, const struct kuatia_signer *signer, const char *now, size_t now_len, uint32_t numero,
    uint32_t codigo_seguridad, struct kuatia_bytes *out_xml, struct kuatia_bytes *out_json,
    struct kuatia_error **err);
enum kuatia_status kuatia_kude_pdf(const char *xml, size_t xml_len, uint32_t format, bool preview,
    struct kuatia_bytes *out_pdf, struct kuatia_error **err);
enum kuatia_status kuatia_qr_build(const char *fields_json, size_t fields_len, struct kuatia_bytes *out_qr,
    struct kuatia_error **err);
enum kuatia_status kuatia_qr_parse(const char *dcarqr, size_t dcarqr_len, const char *csc, size_t csc_len,
    struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_service_new(const char *config_json, size_t config_len,
    struct kuatia_service **out_service, struct kuatia_error **err);
void kuatia_service_free(struct kuatia_service *svc);
enum kuatia_status kuatia_service_create_account(const struct kuatia_service *svc, const char *name,
    size_t name_len, int64_t now_unix, const char *seed, size_t seed_len, struct kuatia_bytes *out_json,
    struct kuatia_error **err);
enum kuatia_status kuatia_service_create_key(const struct kuatia_service *svc, const char *account_id,
    size_t account_id_len, bool live, int64_t now_unix, const char *seed, size_t seed_len,
    struct kuatia_bytes *out_key, struct kuatia_error **err);
enum kuatia_status kuatia_service_handle(const struct kuatia_service *svc, const char *request_json,
    size_t request_len, const char *body, size_t body_len, int64_t now_unix, const char *seed, size_t seed_len,
    const struct kuatia_signer *sandbox_signer, const struct kuatia_signer *production_signer,
    struct kuatia_bytes *out_head, struct kuatia_bytes *out_body, struct kuatia_error **err);
enum kuatia_status kuatia_service_tick(const struct kuatia_service *svc, int64_t now_unix, const char *seed,
    size_t seed_len, struct kuatia_error **err);
enum kuatia_status kuatia_service_due_deliveries(const struct kuatia_service *svc, int64_t now_unix,
    struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_service_report_delivery(const struct kuatia_service *svc, const char *delivery_id,
    size_t delivery_id_len, bool ok, struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_service_set_production_profile(const struct kuatia_service *svc, const char *account_id,
    size_t account_id_len, const char *profile_json, size_t profile_len, struct kuatia_error **err);
enum kuatia_status kuatia_service_due_sifen(const struct kuatia_service *svc, int64_t now_unix, const char *seed,
    size_t seed_len, size_t limit, struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_service_report_sifen(const struct kuatia_service *svc, const char *job_json,
    size_t job_len, uint32_t outcome, uint16_t http_status, const char *body, size_t body_len, const char *message,
    size_t message_len, int64_t now_unix, const char *seed, size_t seed_len, struct kuatia_bytes *out_json,
    struct kuatia_error **err);
enum kuatia_status kuatia_sifen_request(const char *kind, size_t kind_len, const char *arg, size_t arg_len,
    uint64_t d_id, bool production, struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_sifen_event_sign(const char *event_json, size_t event_len, const char *firmante_ruc,
    size_t ruc_len, const struct kuatia_signer *signer, struct kuatia_bytes *out_json, struct kuatia_error **err);
enum kuatia_status kuatia_sifen_parse_response(const char *bytes, size_t len, struct kuatia_bytes *out_json,
    struct kuatia_error **err);
enum kuatia_status kuatia_sifen_describe(const char *code, size_t len, struct kuatia_bytes *out_json,
    struct kuatia_error **err);
enum kuatia_status kuatia_signer_from_p12(const char *p12, size_t p12_len, const char *password,
    size_t password_len, struct kuatia_signer **out_signer, struct kuatia_error **err);
enum kuatia_status kuatia_signer_from_pem(const char *key_pem, size_t key_len, const char *cert_pem,
    size_t cert_len, struct kuatia_signer **out_signer, struct kuatia_error **err);
enum kuatia_status kuatia_signer_sandbox(struct kuatia_signer **out_signer, struct kuatia_error **err);
void kuatia_signer_free(struct kuatia_signer *signer);
enum kuatia_status kuatia_xml_sign(const char *xml, size_t xml_len, const char *id, size_t id_len,
    const struct kuatia_signer *signer, struct kuatia_bytes *out_xml, struct kuatia_error **err);
enum kuatia_status kuatia_xml_verify(const char *xml, size_t xml_len, const char *at, size_t at_len,
    bool *out_valid, struct kuatia_bytes *out_report, struct kuatia_error **err);
CDEF;

    /** KUATIA_MAX_INPUT_LEN: inputs longer than this are refused unread with TOO_LARGE. */
    public const MAX_INPUT_LEN = 64 * 1024 * 1024;

    /** KUATIA_SEED_LEN: bytes of fresh CSPRNG output passed with each service call. */
    public const SEED_LEN = 32;

    private static ?FFI $ffi = null;
    private static string $path = '';

    /** The loaded library (loaded on first use). */
    public static function lib(): FFI
    {
        return self::$ffi ??= self::load();
    }

    /** The path (or name) libkuatia was loaded from. */
    public static function path(): string
    {
        self::lib();
        return self::$path;
    }

    /**
     * Where the library is looked for, in order: $KUATIA_LIB, the copy installed in this package (lib/), the
     * system's dynamic loader (a libkuatia installed in /usr/local/lib, LD_LIBRARY_PATH, ...), then the
     * checkout's target/release and target/debug.
     *
     * @return list<string>
     */
    public static function candidates(): array
    {
        $name = match (PHP_OS_FAMILY) {
            'Darwin' => 'libkuatia.dylib',
            'Windows' => 'kuatia.dll',
            default => 'libkuatia.so',
        };
        $found = [];
        $env = getenv('KUATIA_LIB');
        if (is_string($env) && $env !== '') {
            $found[] = $env;
        }
        $package = dirname(__DIR__);
        $found[] = $package . '/lib/' . $name;
        $found[] = $name;
        $repo = dirname($package, 2); // bindings/php -> the repository root
        foreach (['release', 'debug'] as $profile) {
            $found[] = $repo . '/target/' . $profile . '/' . $name;
        }
        return $found;
    }

    private static function load(): FFI
    {
        if (!extension_loaded('ffi')) {
            throw new \RuntimeException('kuatia needs the PHP FFI extension (ffi.enable=true, or preload for the CLI)');
        }
        $env = getenv('KUATIA_LIB');
        if (is_string($env) && $env !== '' && !is_file($env)) {
            // An explicit choice that does not exist is a mistake, not a reason to silently use another copy.
            throw new \RuntimeException("KUATIA_LIB={$env} does not exist");
        }
        $tried = [];
        foreach (self::candidates() as $candidate) {
            $byName = !str_contains($candidate, '/');
            if (!$byName && !is_file($candidate)) {
                $tried[] = $candidate;
                continue;
            }
            try {
                $ffi = FFI::cdef(self::CDEF, $candidate);
            } catch (\FFI\Exception $e) {
                if ($byName) {
                    $tried[] = $candidate . ' (dynamic loader)';
                    continue;
                }
                throw new \RuntimeException("cannot load {$candidate}: {$e->getMessage()}", 0, $e);
            }
            self::$path = $byName ? $candidate : (realpath($candidate) ?: $candidate);
            return $ffi;
        }
        throw new \RuntimeException('libkuatia not found (tried ' . implode(', ', $tried) . '); build it with '
            . '`cargo build -p kuatia-ffi --release` or set KUATIA_LIB to its path');
    }

    /** Length of an optional input (NULL is 0). */
    public static function len(?string $s): int
    {
        return $s === null ? 0 : strlen($s);
    }

    /**
     * Calls `$fn($err)` (a C call whose last argument is `kuatia_error **`) and throws on failure.
     *
     * @param callable(CData): int $fn
     */
    public static function call(callable $fn): void
    {
        $err = self::lib()->new('kuatia_error*');
        $status = $fn(FFI::addr($err));
        if ($status !== 0) {
            self::raise($status, $err);
        }
    }

    /**
     * Calls `$fn($out, $err)` (a C call writing one `kuatia_bytes`) and returns the buffer's content.
     *
     * @param callable(CData, CData): int $fn
     */
    public static function bytes(callable $fn): string
    {
        $ffi = self::lib();
        $out = $ffi->new('kuatia_bytes');
        $err = $ffi->new('kuatia_error*');
        $status = $fn(FFI::addr($out), FFI::addr($err));
        if ($status !== 0) {
            self::raise($status, $err);
        }
        return self::take($out);
    }

    /** Copies an owned buffer into a PHP string and frees it. */
    public static function take(CData $buf): string
    {
        try {
            return FFI::isNull($buf->ptr) ? '' : FFI::string($buf->ptr, $buf->len);
        } finally {
            self::lib()->kuatia_bytes_free(FFI::addr($buf));
        }
    }

    /** Turns a failed call's status and `kuatia_error` into the exception of that status, freeing the error. */
    public static function raise(int $status, CData $err): never
    {
        $ffi = self::lib();
        if (FFI::isNull($err)) {
            throw KuatiaException::of($status, 'UNKNOWN', "kuatia call failed with status {$status}", '', []);
        }
        try {
            // The error's own status is authoritative (the same number the call returned).
            $status = $ffi->kuatia_error_status($err);
            $code = (string) $ffi->kuatia_error_code($err);
            $message = (string) $ffi->kuatia_error_message($err);
            $path = (string) $ffi->kuatia_error_path($err);
            $json = (string) $ffi->kuatia_error_json($err);
        } finally {
            $ffi->kuatia_error_free($err);
        }
        $findings = [];
        foreach (Json::decode($json === '' ? '[]' : $json) as $f) {
            $findings[] = new Finding((string) $f['code'], (string) $f['path'], (string) $f['message']);
        }
        throw KuatiaException::of($status, $code, $message, $path, $findings);
    }

    /** 32 fresh bytes from the OS CSPRNG, as each service call needs. */
    public static function seed(): string
    {
        return random_bytes(self::SEED_LEN);
    }

    /** Checks an integer argument that goes to a C unsigned type of `$bits` bits (FFI would truncate silently). */
    public static function unsigned(int $value, int $bits, string $name): int
    {
        $max = $bits >= 63 ? PHP_INT_MAX : (1 << $bits) - 1;
        if ($value < 0 || $value > $max) {
            throw new \ValueError("{$name} must be in 0..{$max}, got {$value}");
        }
        return $value;
    }
}
