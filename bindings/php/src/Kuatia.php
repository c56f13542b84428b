<?php

declare(strict_types=1);

namespace Kuatia;

use FFI\CData;

/**
 * kuatia: Paraguayan electronic invoices (SIFEN / e-Kuatia) from PHP, over the C library libkuatia (FFI).
 *
 * A thin layer: every rule lives in the Rust core; this class converts types and errors. JSON inputs are arrays
 * (or objects) or JSON text; amounts are decimal strings or integers, never floats. JSON results are arrays with
 * amounts as strings. Failures throw {@see KuatiaException} subclasses (one per status) with the stable code, the
 * field path and every finding. Times (`$now`) are Paraguay local `YYYY-MM-DDThh:mm:ss` strings, a
 * \DateTimeInterface (converted to America/Asuncion), or null for the clock.
 */
final class Kuatia
{
    private const TIME_FORMAT = 'Y-m-d\TH:i:s';

    private function __construct()
    {
    }

    /** The version of the loaded libkuatia (`0.1.0`). */
    public static function version(): string
    {
        return (string) Native::lib()->kuatia_version();
    }

    /** The path (or, when found by the dynamic loader, the name) libkuatia was loaded from. */
    public static function libraryPath(): string
    {
        return Native::path();
    }

    /** The current Paraguay local time as kuatia expects it (`YYYY-MM-DDThh:mm:ss`); the host owns the clock. */
    public static function paraguayNow(): string
    {
        return (new \DateTimeImmutable('now', new \DateTimeZone('America/Asuncion')))->format(self::TIME_FORMAT);
    }

    /** A security code (`dCodSeg`) drawn from the OS CSPRNG; the library maps it into 1..999999999. */
    public static function randomSecurityCode(): int
    {
        return random_int(0, 0xFFFFFFFF);
    }

    // --- identifiers ------------------------------------------------------------------------------------------

    /** The mod-11 check digit (DV) of a RUC body: `rucDv('80069563') === 1`. Throws InvalidInputException. */
    public static function rucDv(string $body): int
    {
        $ffi = Native::lib();
        $dv = $ffi->new('uint8_t');
        Native::call(static fn (CData $err): int => $ffi->kuatia_ruc_dv($body, strlen($body), \FFI::addr($dv), $err));
        return $dv->cdata;
    }

    /** True when `$ruc` (`80069563-1`) is a well-formed RUC with the right DV, false otherwise. */
    public static function rucCheck(string $ruc): bool
    {
        try {
            self::rucValidate($ruc);
        } catch (InvalidInputException) {
            return false;
        }
        return true;
    }

    /** Checks a RUC and throws InvalidInputException (`INVALID_RUC`, with the library's message) when it is not. */
    public static function rucValidate(string $ruc): void
    {
        $ffi = Native::lib();
        Native::call(static fn (CData $err): int => $ffi->kuatia_ruc_check($ruc, strlen($ruc), $err));
    }

    /**
     * The 44-digit CDC from its fields (`tipo_documento`, `ruc`, `establecimiento`, `punto`, `numero`,
     * `tipo_contribuyente`, `fecha` `YYYY-MM-DD`, `tipo_emision`, `codigo_seguridad`).
     *
     * @param array<string, mixed>|object|string $fields
     */
    public static function cdcBuild(array|object|string $fields): string
    {
        $ffi = Native::lib();
        $f = Json::encode($fields, 'fields_json');
        return Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_cdc_build($f, strlen($f), $out, $err));
    }

    /**
     * Checks a CDC and returns its parts (`cdc`, `grouped`, `dv` and the fields). Throws InvalidInputException.
     *
     * @return array<string, mixed>
     */
    /**
     * Every error code kuatia answers with, as `[['code' => …, 'description' => …], …]`: the core's one registry.
     *
     * @return list<array{code: string, description: string}>
     */
    public static function codes(): array
    {
        $ffi = Native::lib();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_error_codes($out, $err)));
    }

    /**
     * Every rule a finding can name, as `[['rule' => …, 'code' => …, 'params' => [['name' => …, 'kind' => …]]], …]`:
     * the core's one registry (docs/errors.md), for an application that writes its own text from `rule` and `params`.
     *
     * @return list<array{rule: string, code: string, params: list<array{name: string, kind: string}>}>
     */
    public static function rules(): array
    {
        $ffi = Native::lib();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int => $ffi->kuatia_rules($out, $err)));
    }

    /**
     * Chooses the language of every message read from now on: `es` (Spanish of Paraguay, the default) or `en`; any
     * tag the library parses (`es-PY`, `en-US`) is accepted, and an unknown one reads as Spanish.
     */
    public static function setLanguage(string $lang): void
    {
        Native::$language = str_replace("\0", '', $lang);
    }

    /** The language chosen with {@see setLanguage()} (`es` by default). */
    public static function language(): string
    {
        return Native::$language;
    }

    /**
     * A report kuatia wrote (a validation report, a verification, a list of findings; array or JSON text) with every
     * finding's message rendered again in `$lang` (null: the chosen language), for one reader's language.
     *
     * @param array<mixed>|object|string $report
     */
    public static function localize(array|object|string $report, ?string $lang = null): mixed
    {
        $ffi = Native::lib();
        $r = Json::encode($report, 'report_json');
        $l = str_replace("\0", '', $lang ?? Native::$language);
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_findings_localize($r, strlen($r), $l, $out, $err)));
    }

    public static function cdcParse(string $cdc): array
    {
        $ffi = Native::lib();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_cdc_parse($cdc, strlen($cdc), $out, $err)));
    }

    // --- invoices ---------------------------------------------------------------------------------------------

    /**
     * Validates a request (the body of `POST /v1/facturas`) against `$profile` (null: the built-in sandbox
     * profile) at `$now`. A request with problems is a Report with `ok` false and every finding; bad arguments
     * (profile, now, the encoding) throw.
     *
     * @param array<string, mixed>|object|string $request
     * @param array<string, mixed>|object|string|null $profile
     */
    public static function validate(
        array|object|string $request,
        array|object|string|null $profile = null,
        string|\DateTimeInterface|null $now = null,
    ): Report {
        $ffi = Native::lib();
        $r = Json::encode($request, 'request_json');
        $p = Json::encode($profile, 'profile_json');
        $t = self::now($now);
        $raw = self::localize(Native::bytes(static fn (CData $out, CData $err): int => $ffi->kuatia_invoice_validate(
            $r,
            strlen($r),
            $p,
            Native::len($p),
            $t,
            strlen($t),
            $out,
            $err,
        )));
        $errors = [];
        foreach ($raw['errors'] as $e) {
            $errors[] = Finding::fromArray($e);
        }
        return new Report((bool) $raw['ok'], $errors);
    }

    /**
     * Item values and document totals: `{tipo_documento, moneda, items: [{valor, iva}], totales}`, every amount a
     * decimal string. Throws InvalidInputException when the items cannot be computed.
     *
     * @param array<string, mixed>|object|string $request
     * @return array<string, mixed>
     */
    public static function totals(array|object|string $request): array
    {
        $ffi = Native::lib();
        $r = Json::encode($request, 'request_json');
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_invoice_totals($r, strlen($r), $out, $err)));
    }

    /**
     * The numbering sequence (`tipo_documento`, `timbrado`, `establecimiento`, `punto`) the request draws its
     * number from; reserve the next number of it before {@see issue()}.
     *
     * @param array<string, mixed>|object|string $request
     * @param array<string, mixed>|object|string|null $profile
     * @return array<string, mixed>
     */
    public static function numberingKey(
        array|object|string $request,
        array|object|string|null $profile = null,
        string|\DateTimeInterface|null $now = null,
    ): array {
        $ffi = Native::lib();
        $r = Json::encode($request, 'request_json');
        $p = Json::encode($profile, 'profile_json');
        $t = self::now($now);
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_invoice_numbering_key($r, strlen($r), $p, Native::len($p), $t, strlen($t), $out, $err)));
    }

    /**
     * The unsigned `rDE` XML the request would become (no signature, no QR), with the CDC issuing will give.
     *
     * @param array<string, mixed>|object|string $request
     * @param array<string, mixed>|object|string|null $profile
     */
    public static function previewXml(
        array|object|string $request,
        int $numero,
        int $codigoSeguridad,
        array|object|string|null $profile = null,
        string|\DateTimeInterface|null $now = null,
    ): string {
        $ffi = Native::lib();
        $r = Json::encode($request, 'request_json');
        $p = Json::encode($profile, 'profile_json');
        $t = self::now($now);
        $n = Native::unsigned($numero, 32, 'numero');
        $c = Native::unsigned($codigoSeguridad, 32, 'codigoSeguridad');
        return Native::bytes(static fn (CData $out, CData $err): int => $ffi->kuatia_invoice_preview_xml(
            $r,
            strlen($r),
            $p,
            Native::len($p),
            $t,
            strlen($t),
            $n,
            $c,
            $out,
            $err,
        ));
    }

    /**
     * Validates, numbers, builds, signs and QR-completes one document. `$numero` is reserved by the caller from
     * the sequence {@see numberingKey()} names; `$codigoSeguridad` defaults to a CSPRNG draw (never pass a
     * counter); `$profile` null is the built-in sandbox profile (TEST ONLY). Throws InvalidInputException with
     * every finding.
     *
     * @param array<string, mixed>|object|string $request
     * @param array<string, mixed>|object|string|null $profile
     */
    public static function issue(
        array|object|string $request,
        Signer $signer,
        int $numero,
        ?int $codigoSeguridad = null,
        array|object|string|null $profile = null,
        string|\DateTimeInterface|null $now = null,
    ): Issued {
        $ffi = Native::lib();
        $r = Json::encode($request, 'request_json');
        $p = Json::encode($profile, 'profile_json');
        $t = self::now($now);
        $n = Native::unsigned($numero, 32, 'numero');
        $c = Native::unsigned($codigoSeguridad ?? self::randomSecurityCode(), 32, 'codigoSeguridad');
        $handle = $signer->handle();
        $xml = $ffi->new('kuatia_bytes');
        $summary = $ffi->new('kuatia_bytes');
        Native::call(static fn (CData $err): int => $ffi->kuatia_invoice_issue(
            $r,
            strlen($r),
            $p,
            Native::len($p),
            $handle,
            $t,
            strlen($t),
            $n,
            $c,
            \FFI::addr($xml),
            \FFI::addr($summary),
            $err,
        ));
        $text = Native::take($xml);
        $s = Json::decode(Native::take($summary));
        return new Issued($text, $s['cdc'], $s['numero'], $s['qr'], $s['digest_value'], $s['fecha_emision']);
    }

    // --- signing ----------------------------------------------------------------------------------------------

    /** Signs the element of `$xml` whose `Id` attribute is `$id`; returns the document with its Signature. */
    public static function sign(string $xml, string $id, Signer $signer): string
    {
        $ffi = Native::lib();
        $handle = $signer->handle();
        return Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_xml_sign($xml, strlen($xml), $id, strlen($id), $handle, $out, $err));
    }

    /**
     * Verifies the first XMLDSig signature of `$xml`; `$at` (optional) is when the certificate must have been
     * valid. An invalid signature is a Verification with `valid` false, not an exception.
     */
    public static function verify(string $xml, string|\DateTimeInterface|null $at = null): Verification
    {
        $ffi = Native::lib();
        $a = $at === null ? null : self::now($at);
        $valid = $ffi->new('bool');
        $report = Native::bytes(static fn (CData $out, CData $err): int => $ffi->kuatia_xml_verify(
            $xml,
            strlen($xml),
            $a,
            Native::len($a),
            \FFI::addr($valid),
            $out,
            $err,
        ));
        return new Verification((bool) $valid->cdata, Json::decode($report));
    }

    // --- QR and KuDE ------------------------------------------------------------------------------------------

    /**
     * The `dCarQR` URL from its parts (`cdc`, `fecha_emision`, `receptor`, `total`, `total_iva`, `items`,
     * `digest_value`, `csc_id`, `csc`, `ambiente`). The fields hold the CSC secret: redacted in stack traces.
     *
     * @param array<string, mixed>|object|string $fields
     */
    public static function qrBuild(#[\SensitiveParameter] array|object|string $fields): string
    {
        $ffi = Native::lib();
        $f = Json::encode($fields, 'fields_json');
        return Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_qr_build($f, strlen($f), $out, $err));
    }

    /**
     * The parts of a `dCarQR`; with `$csc` also `hash_ok` (the `cHashQR` check).
     *
     * @return array<string, mixed>
     */
    public static function qrParse(string $dcarqr, #[\SensitiveParameter] ?string $csc = null): array
    {
        $ffi = Native::lib();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_qr_parse($dcarqr, strlen($dcarqr), $csc, Native::len($csc), $out, $err)));
    }

    /**
     * The KuDE (printed representation) of a signed `rDE` as PDF bytes; `$preview` adds a "not valid" watermark for
     * documents SIFEN has not approved. `$format`: a KudeFormat or `'a4'` / `'ticket'`.
     */
    public static function kudePdf(
        string $xml,
        KudeFormat|string $format = KudeFormat::A4,
        bool $preview = false,
    ): string {
        $ffi = Native::lib();
        $f = $format instanceof KudeFormat ? $format : (KudeFormat::tryFrom($format)
            ?? throw new \ValueError("format must be 'a4' or 'ticket', not '{$format}'"));
        $n = $f->cValue();
        return Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_kude_pdf($xml, strlen($xml), $n, $preview, $out, $err));
    }

    // --- SIFEN web services -----------------------------------------------------------------------------------

    /**
     * The SOAP request of a SIFEN web service, `{service, url, content_type, xml}` (plus `cdcs` for a lot), for the
     * host to POST over mutual TLS. `$kind` is `recibe` (`$arg`: a signed rDE), `recibe-lote` (a list of signed
     * rDEs, or their JSON array), `consulta` (a CDC), `consulta-lote` (the lot number), `consulta-ruc` (a RUC) or
     * `evento` (a list of 1 to 15 signed events as {@see sifenEventSign()} returns them, or their JSON array);
     * `$dId` is the request identifier.
     *
     * @param string|list<mixed> $arg
     * @return array<string, mixed>
     */
    public static function sifenRequest(string $kind, string|array $arg, int $dId, bool $production = false): array
    {
        $ffi = Native::lib();
        $a = is_array($arg) ? (string) Json::encode($arg, 'arg') : $arg;
        $d = Native::unsigned($dId, 64, 'dId');
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_sifen_request($kind, strlen($kind), $a, strlen($a), $d, $production, $out, $err)));
    }

    /**
     * Builds and signs one SIFEN event from its JSON form (`tipo`: `cancelacion`, `inutilizacion`, `nominacion`,
     * `transporte`, `notificacion_recepcion`, `conformidad`, `disconformidad` or `desconocimiento`; `id`;
     * `fecha_firma` in Paraguay local time; and the fields of its kind) and returns `{id, kind, cdc, xml}` for
     * {@see sifenRequest()} `evento`. `$firmanteRuc` is who must sign (the emitter for emitter events, the receiver
     * for receiver events); the signer's certificate must carry that RUC.
     *
     * @param array<string, mixed>|object|string $event
     * @return array<string, mixed>
     */
    public static function sifenEventSign(array|object|string $event, string $firmanteRuc, Signer $signer): array
    {
        $ffi = Native::lib();
        $e = Json::encode($event, 'event_json');
        $handle = $signer->handle();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int => $ffi->kuatia_sifen_event_sign(
            $e,
            strlen($e),
            $firmanteRuc,
            strlen($firmanteRuc),
            $handle,
            $out,
            $err,
        )));
    }

    /**
     * SIFEN's answer (the SOAP XML of the HTTP response, raw bytes) as `{service, result, action}`: the typed
     * result and what it means for the invoice lifecycle. Throws InvalidInputException (`SIFEN_UNEXPECTED_RESPONSE`,
     * `SIFEN_SOAP_FAULT`) for anything else.
     *
     * @return array<string, mixed>
     */
    public static function sifenParseResponse(string $bytes): array
    {
        $ffi = Native::lib();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_sifen_parse_response($bytes, strlen($bytes), $out, $err)));
    }

    /**
     * What a SIFEN response code means and its usual fix, `{code, meaning, fix}`, in `$lang` (null: the chosen
     * language, {@see Kuatia::setLanguage()}); null when undocumented.
     *
     * @return array<string, string>|null
     */
    public static function sifenDescribe(string $code, ?string $lang = null): ?array
    {
        $ffi = Native::lib();
        $l = str_replace("\0", '', $lang ?? Native::$language);
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_sifen_describe_in($code, strlen($code), $l, $out, $err)));
    }

    /** @internal A Paraguay local time string from the accepted forms of `$now`. */
    public static function now(string|\DateTimeInterface|null $now): string
    {
        if ($now === null) {
            return self::paraguayNow();
        }
        if ($now instanceof \DateTimeInterface) {
            return \DateTimeImmutable::createFromInterface($now)
                ->setTimezone(new \DateTimeZone('America/Asuncion'))
                ->format(self::TIME_FORMAT);
        }
        return $now;
    }
}
