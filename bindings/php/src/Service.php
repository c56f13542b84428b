<?php

declare(strict_types=1);

namespace Kuatia;

use FFI\CData;

/**
 * The in-process `/v1` service (`kuatia_service`): accounts, API keys, invoices, KuDE, webhooks and the sandbox's
 * simulated SIFEN kept in memory, answering HTTP-shaped requests without a server. Freed by {@see close()}
 * (idempotent) or when the object is destroyed.
 *
 * The library has no clock and no randomness: each call passes `$now` (Unix seconds, a \DateTimeInterface, or null
 * for time()) and 32 bytes of random_bytes() as the seed. `$config` (array, object or JSON text, optional):
 * `base_url` (for `kude_url`), `sandbox_send_after` and `sandbox_answer_after` (seconds until the simulated SIFEN
 * receives and answers an invoice created without `_simulate`), `max_per_page`, `archive_limit` (the most documents
 * {@see monthArchive()} zips), and for production invoices `sifen_mode` (`sync` or `lote`), `sifen_lot_poll_after`,
 * `sifen_lease` and `sifen_retry` (back-off seconds).
 * `$sandboxSigner` signs invoices of `dk_test_` keys (null: simulated unsigned); `$productionSigner` signs those of
 * `dk_live_` keys (null: live invoices are refused). The service holds both signers, so they stay alive with it.
 */
final class Service
{
    private ?CData $handle = null;

    /** @param array<string, mixed>|object|string|null $config */
    public function __construct(
        array|object|string|null $config = null,
        private readonly ?Signer $sandboxSigner = null,
        private readonly ?Signer $productionSigner = null,
    ) {
        $ffi = Native::lib();
        $c = Json::encode($config, 'config_json');
        $handle = $ffi->new('kuatia_service*');
        Native::call(static fn (CData $err): int
            => $ffi->kuatia_service_new($c, Native::len($c), \FFI::addr($handle), $err));
        $this->handle = $handle;
    }

    /** True once {@see close()} ran. */
    public function isClosed(): bool
    {
        return $this->handle === null;
    }

    /** Frees the service and everything it stores. Idempotent. */
    public function close(): void
    {
        $handle = $this->handle;
        $this->handle = null;
        if ($handle !== null) {
            Native::lib()->kuatia_service_free($handle);
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * Creates an account with the built-in sandbox profile and returns `['account_id' => 'acct_…',
     * 'key' => 'dk_test_…']`. The key is shown only here.
     *
     * @return array{account_id: string, key: string}
     */
    public function createAccount(string $name, int|\DateTimeInterface|null $now = null): array
    {
        $ffi = Native::lib();
        $h = $this->live();
        $t = self::unix($now);
        $seed = Native::seed();
        $call = static fn (CData $out, CData $err): int => $ffi->kuatia_service_create_account(
            $h,
            $name,
            strlen($name),
            $t,
            $seed,
            strlen($seed),
            $out,
            $err,
        );
        return Json::decode(Native::bytes($call));
    }

    /**
     * Adds a `dk_live_` (`$live`) or `dk_test_` key to an account and returns it (shown only here). Throws
     * InvalidInputException `NOT_FOUND` for an unknown account.
     */
    public function createKey(string $accountId, bool $live = false, int|\DateTimeInterface|null $now = null): string
    {
        $ffi = Native::lib();
        $h = $this->live();
        $t = self::unix($now);
        $seed = Native::seed();
        return Native::bytes(static fn (CData $out, CData $err): int => $ffi->kuatia_service_create_key(
            $h,
            $accountId,
            strlen($accountId),
            $live,
            $t,
            $seed,
            strlen($seed),
            $out,
            $err,
        ));
    }

    /**
     * Handles one request of the `/v1` API and returns the answer. HTTP errors (401, 404, 422, ...) are answers,
     * not exceptions; exceptions are for bad arguments only. `$headers`: `['Authorization' => 'Bearer …']` or a
     * list of `[name, value]` pairs (repeats kept). `$body`: an array or object (sent as JSON; amounts as strings
     * or integers), a string (raw bytes), or null (empty).
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @param array<mixed>|object|string|null $body
     */
    public function handle(
        string $method,
        string $path,
        array $headers = [],
        array|object|string|null $body = null,
        int|\DateTimeInterface|null $now = null,
    ): Response {
        $ffi = Native::lib();
        $pairs = self::pairs($headers);
        $r = (string) Json::encode(['method' => $method, 'path' => $path, 'headers' => $pairs], 'request_json');
        $b = Json::encode($body, 'body');
        $h = $this->live();
        $t = self::unix($now);
        $seed = Native::seed();
        $sandbox = $this->sandboxSigner?->handle();
        $production = $this->productionSigner?->handle();
        $head = $ffi->new('kuatia_bytes');
        $out = $ffi->new('kuatia_bytes');
        Native::call(static fn (CData $err): int => $ffi->kuatia_service_handle(
            $h,
            $r,
            strlen($r),
            $b,
            Native::len($b),
            $t,
            $seed,
            strlen($seed),
            $sandbox,
            $production,
            \FFI::addr($head),
            \FFI::addr($out),
            $err,
        ));
        $meta = Json::decode(Native::take($head));
        $data = Native::take($out);
        $headersOut = [];
        foreach ($meta['headers'] as [$k, $v]) {
            $headersOut[] = [$k, $v];
        }
        return new Response($meta['status'], $headersOut, $data);
    }

    /** Advances the sandbox's simulated SIFEN to `$now` (each request does it too), queueing webhooks. */
    public function tick(int|\DateTimeInterface|null $now = null): void
    {
        $ffi = Native::lib();
        $h = $this->live();
        $t = self::unix($now);
        $seed = Native::seed();
        Native::call(static fn (CData $err): int => $ffi->kuatia_service_tick($h, $t, $seed, strlen($seed), $err));
    }

    /**
     * Webhook deliveries due at `$now`: POST each `body` with exactly its `headers` (signed) to its `url`, then call
     * {@see reportDelivery()} with its `id`.
     *
     * @return list<array<string, mixed>>
     */
    public function dueDeliveries(int|\DateTimeInterface|null $now = null): array
    {
        $ffi = Native::lib();
        $h = $this->live();
        $t = self::unix($now);
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_service_due_deliveries($h, $t, $out, $err)));
    }

    /**
     * Records one delivery attempt (`$ok`: the receiver answered 2xx); returns the delivery with its new `status`
     * (`delivered`, `pending` with the next `next_attempt_at`, or `failed`).
     *
     * @return array<string, mixed>
     */
    public function reportDelivery(string $deliveryId, bool $ok): array
    {
        $ffi = Native::lib();
        $h = $this->live();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_service_report_delivery($h, $deliveryId, strlen($deliveryId), $ok, $out, $err)));
    }

    /**
     * Sets the emitter profile (as for {@see Kuatia::validate()}) the account's `dk_live_` keys issue with; null:
     * the built-in sandbox profile in SIFEN's test environment (TEST ONLY). Throws InvalidInputException
     * `NOT_FOUND` for an unknown account, or with paths under `profile` for a bad one.
     *
     * @param array<string, mixed>|object|string|null $profile
     */
    public function setProductionProfile(string $accountId, array|object|string|null $profile = null): void
    {
        $ffi = Native::lib();
        $p = Json::encode($profile, 'profile_json');
        $h = $this->live();
        Native::call(static fn (CData $err): int => $ffi->kuatia_service_set_production_profile(
            $h,
            $accountId,
            strlen($accountId),
            $p,
            Native::len($p),
            $err,
        ));
    }

    /**
     * The SIFEN calls due at `$now` for production invoices (at most `$limit` invoices): `{account_id, service,
     * url, content_type, body, d_id, invoices}`. POST each `body` with that Content-Type to `url` over TLS 1.2
     * with the emitter's certificate, then call {@see reportSifen()} with the job and what came of it. A job never
     * reported is not resent: its invoices are queried by CDC after a lease.
     *
     * @return list<array<string, mixed>>
     */
    public function dueSifen(int $limit, int|\DateTimeInterface|null $now = null): array
    {
        $ffi = Native::lib();
        $l = Native::unsigned($limit, 64, 'limit');
        $h = $this->live();
        $t = self::unix($now);
        $seed = Native::seed();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int
            => $ffi->kuatia_service_due_sifen($h, $t, $seed, strlen($seed), $l, $out, $err)));
    }

    /**
     * Reports what came of a job of {@see dueSifen()} (passed back as it came, array or JSON text) and returns
     * where each of its invoices stands: `[{invoice_id, status, transmission: {next, due_at, attempts,
     * last_error?}}]`.
     *
     * @param array<string, mixed>|string $job
     * @return list<array<string, mixed>>
     */
    public function reportSifen(
        array|string $job,
        SifenOutcome $outcome,
        int|\DateTimeInterface|null $now = null,
    ): array {
        $ffi = Native::lib();
        $j = (string) Json::encode($job, 'job_json');
        $body = $outcome->kind === SifenOutcome::ANSWER ? $outcome->body : null;
        $message = $outcome->kind === SifenOutcome::FAILED ? $outcome->message : null;
        $kind = $outcome->kind;
        $status = $outcome->status;
        $h = $this->live();
        $t = self::unix($now);
        $seed = Native::seed();
        return Json::decode(Native::bytes(static fn (CData $out, CData $err): int => $ffi->kuatia_service_report_sifen(
            $h,
            $j,
            strlen($j),
            $kind,
            $status,
            $body,
            Native::len($body),
            $message,
            Native::len($message),
            $t,
            $seed,
            strlen($seed),
            $out,
            $err,
        )));
    }

    // --- typed calls of the /v1 routes: the request for handle(), the envelope decoded ----------------------------

    /**
     * POST /v1/facturas: the created invoice. Throws {@see ApiException} (`VALIDATION_ERROR` with every finding in
     * `details()`, ...).
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @param array<mixed>|object|string $request
     * @return array<string, mixed>
     */
    public function createInvoice(
        array $headers,
        array|object|string $request,
        ?string $idempotencyKey = null,
        int|\DateTimeInterface|null $now = null,
    ): array {
        $pairs = self::pairs($headers);
        if ($idempotencyKey !== null) {
            $pairs[] = ['Idempotency-Key', $idempotencyKey];
        }
        return $this->call('POST', '/v1/facturas', $pairs, $request, $now)['data'];
    }

    /**
     * GET /v1/facturas/{id}: the full invoice resource (docs/api.md, "Invoice").
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return array<string, mixed>
     */
    public function getInvoice(array $headers, string $id, int|\DateTimeInterface|null $now = null): array
    {
        return $this->call('GET', '/v1/facturas/' . rawurlencode($id), $headers, null, $now)['data'];
    }

    /**
     * GET /v1/facturas/{id}/xml: the signed rDE as sent to SIFEN.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     */
    public function invoiceXml(array $headers, string $id, int|\DateTimeInterface|null $now = null): string
    {
        $r = $this->handle('GET', '/v1/facturas/' . rawurlencode($id) . '/xml', self::typed($headers), null, $now);
        if ($r->status !== 200) {
            self::envelope($r);
        }
        return $r->body;
    }

    /**
     * GET /v1/facturas/{id}/emails: the invoice's messages to the buyer, oldest first (`id`, `kind`, `to`, `subject`,
     * `body`, `status`, `reason`, `attempts`, `created_at`, `next_attempt_at`, `log`). In-process nothing is sent:
     * every message is `captured`.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return list<array<string, mixed>>
     */
    public function invoiceEmails(array $headers, string $id, int|\DateTimeInterface|null $now = null): array
    {
        return $this->call('GET', '/v1/facturas/' . rawurlencode($id) . '/emails', $headers, null, $now)['data'];
    }

    /**
     * POST /v1/facturas/{id}/email: an approved invoice's message queued again, to `$to` or (null) to the document's
     * `receptor.email`; the new message. Not approved throws {@see ApiException} 409 `KUDE_NOT_AVAILABLE`, an
     * address SIFEN would refuse 422 `VALIDATION_ERROR`.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return array<string, mixed>
     */
    public function resendEmail(
        array $headers,
        string $id,
        ?string $to = null,
        int|\DateTimeInterface|null $now = null,
    ): array {
        $body = $to === null ? null : ['to' => $to];
        return $this->call('POST', '/v1/facturas/' . rawurlencode($id) . '/email', $headers, $body, $now)['data'];
    }

    /**
     * GET /v1/archivo?mes=YYYY-MM: the zip of the month's signed XMLs and KuDEs, `index.csv` and `manifest.json`. A
     * bad month, or one of more than `archive_limit` documents (config, default 500), throws {@see ApiException}
     * 400 `INVALID_QUERY`.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     */
    public function monthArchive(array $headers, string $mes, int|\DateTimeInterface|null $now = null): string
    {
        $r = $this->handle('GET', '/v1/archivo' . self::query(['mes' => $mes]), self::typed($headers), null, $now);
        if ($r->status !== 200) {
            self::envelope($r);
        }
        return $r->body;
    }

    /**
     * GET /v1/facturas with filters and cursor paging: `$filters` may hold `status`, `created_from`, `created_to`
     * (RFC 3339), `cdc`, `numero`, `receptor_ruc`, `tipo_documento`, `order`, `limit` and `starting_after` (the
     * previous page's {@see Page::nextCursor()}). A bad value throws {@see ApiException} `INVALID_QUERY`.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @param array<string, string|int|null> $filters
     */
    public function listInvoices(array $headers, array $filters = [], int|\DateTimeInterface|null $now = null): Page
    {
        $e = $this->call('GET', '/v1/facturas' . self::query($filters), $headers, null, $now);
        return new Page($e['data'], $e['meta'] ?? []);
    }

    /**
     * POST /v1/webhooks: the webhook with its signing `secret` (shown only here).
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @param list<string> $events
     * @return array<string, mixed>
     */
    public function createWebhook(
        array $headers,
        string $url,
        array $events,
        int|\DateTimeInterface|null $now = null,
    ): array {
        return $this->call('POST', '/v1/webhooks', $headers, ['url' => $url, 'events' => $events], $now)['data'];
    }

    /**
     * GET /v1/webhooks/{id} (no secret).
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return array<string, mixed>
     */
    public function getWebhook(array $headers, string $id, int|\DateTimeInterface|null $now = null): array
    {
        return $this->call('GET', '/v1/webhooks/' . rawurlencode($id), $headers, null, $now)['data'];
    }

    /**
     * DELETE /v1/webhooks/{id}: `{id, deleted: true}`; its pending deliveries are cancelled.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return array<string, mixed>
     */
    public function deleteWebhook(array $headers, string $id, int|\DateTimeInterface|null $now = null): array
    {
        return $this->call('DELETE', '/v1/webhooks/' . rawurlencode($id), $headers, null, $now)['data'];
    }

    /**
     * POST /v1/webhooks/{id}/rotate: the webhook with its new `secret` and `previous_secret_expires_at` (both
     * secrets sign until then).
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return array<string, mixed>
     */
    public function rotateWebhook(array $headers, string $id, int|\DateTimeInterface|null $now = null): array
    {
        return $this->call('POST', '/v1/webhooks/' . rawurlencode($id) . '/rotate', $headers, null, $now)['data'];
    }

    /**
     * GET /v1/webhooks/{id}/deliveries: the delivery log, newest first (`$paging`: `page`, `limit`).
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @param array<string, int|null> $paging
     */
    public function deliveries(
        array $headers,
        string $id,
        array $paging = [],
        int|\DateTimeInterface|null $now = null,
    ): Page {
        $path = '/v1/webhooks/' . rawurlencode($id) . '/deliveries' . self::query($paging);
        $e = $this->call('GET', $path, $headers, null, $now);
        return new Page($e['data'], $e['meta'] ?? []);
    }

    /**
     * POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver: the new delivery of the same event.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return array<string, mixed>
     */
    public function redeliver(
        array $headers,
        string $id,
        string $deliveryId,
        int|\DateTimeInterface|null $now = null,
    ): array {
        $path = '/v1/webhooks/' . rawurlencode($id) . '/deliveries/' . rawurlencode($deliveryId) . '/redeliver';
        return $this->call('POST', $path, $headers, null, $now)['data'];
    }

    /**
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @param array<mixed>|object|string|null $body
     * @return array<string, mixed>
     */
    private function call(
        string $method,
        string $path,
        array $headers,
        array|object|string|null $body,
        int|\DateTimeInterface|null $now,
    ): array {
        return self::envelope($this->handle($method, $path, self::typed($headers), $body, $now));
    }

    /**
     * The headers of a typed call: `$headers` as pairs, plus `Accept-Language` in the language chosen with
     * {@see Kuatia::setLanguage()} unless they have one, so an ApiException reads like every other error of the
     * binding. {@see Service::handle()} sends exactly what it is given.
     *
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return list<array{0: string, 1: string}>
     */
    private static function typed(array $headers): array
    {
        $pairs = self::pairs($headers);
        foreach ($pairs as [$name]) {
            if (strcasecmp($name, 'Accept-Language') === 0) {
                return $pairs;
            }
        }
        $pairs[] = ['Accept-Language', Native::$language];
        return $pairs;
    }

    /** @return array<string, mixed> the envelope of a successful answer; an error answer throws ApiException */
    private static function envelope(Response $r): array
    {
        $e = $r->json();
        if (!is_array($e) || ($e['ok'] ?? false) !== true) {
            $err = is_array($e) ? ($e['error'] ?? []) : [];
            throw new ApiException($r->status, (string) ($err['code'] ?? ''), (string) ($err['message'] ?? ''), $err['details'] ?? []);
        }
        return $e;
    }

    /** `?k=v&…` of the parameters that are not null, percent-encoded; the values are the core's to check. */
    private static function query(array $params): string
    {
        $parts = [];
        foreach ($params as $k => $v) {
            if ($v !== null) {
                $parts[] = rawurlencode((string) $k) . '=' . rawurlencode((string) $v);
            }
        }
        return $parts === [] ? '' : '?' . implode('&', $parts);
    }

    /**
     * @param array<string, string>|list<array{0: string, 1: string}> $headers
     * @return list<array{0: string, 1: string}>
     */
    private static function pairs(array $headers): array
    {
        $pairs = [];
        foreach ($headers as $k => $v) {
            $pairs[] = is_array($v) ? [(string) $v[0], (string) $v[1]] : [(string) $k, (string) $v];
        }
        return $pairs;
    }

    private function live(): CData
    {
        return $this->handle ?? throw new \LogicException('the service is closed');
    }

    private static function unix(int|\DateTimeInterface|null $now): int
    {
        return match (true) {
            $now === null => time(),
            $now instanceof \DateTimeInterface => $now->getTimestamp(),
            default => $now,
        };
    }
}
