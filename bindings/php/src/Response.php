<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * An answer of the in-process service: HTTP `status`, `headers` as [name, value] pairs (repeats kept), and the raw
 * `body` (JSON text, or the PDF of `GET /v1/facturas/{id}/kude`).
 */
final class Response
{
    /** @param list<array{0: string, 1: string}> $headers */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
    ) {
    }

    /** The first header with this name (case-insensitive), or null. */
    public function header(string $name): ?string
    {
        foreach ($this->headers as [$k, $v]) {
            if (strcasecmp($k, $name) === 0) {
                return $v;
            }
        }
        return null;
    }

    /**
     * The body decoded as JSON (the `{ok, data, meta, error}` envelope) into arrays; integers too large for PHP
     * stay strings, and amounts are strings already.
     */
    public function json(): mixed
    {
        return Json::decode($this->body);
    }
}
