<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * What came of a SIFEN job the host posted (`kuatia_sifen_outcome`): {@see answer()} (SIFEN, or whatever stands in
 * front of it, answered: the HTTP status and the raw body bytes as received), {@see timeout()} (no answer in time:
 * the request may or may not have been processed) or {@see failed()} (no answer at all: DNS, connection refused,
 * TLS handshake).
 */
final class SifenOutcome
{
    public const ANSWER = Abi::SIFEN_OUTCOME_ANSWER;
    public const TIMEOUT = Abi::SIFEN_OUTCOME_TIMEOUT;
    public const FAILED = Abi::SIFEN_OUTCOME_FAILED;

    /** Any `kind` but the three above is refused by the library (INVALID_ARGUMENT at `outcome`). */
    public function __construct(
        public readonly int $kind,
        public readonly int $status = 0,
        public readonly string $body = '',
        public readonly string $message = '',
    ) {
        // FFI would silently truncate a status beyond uint16_t or a kind beyond uint32_t.
        Native::unsigned($status, 16, 'status');
        Native::unsigned($kind, 32, 'kind');
    }

    /** SIFEN answered with HTTP `$status` and `$body` (the raw bytes, not decoded). */
    public static function answer(int $status, string $body): self
    {
        return new self(self::ANSWER, $status, $body);
    }

    /** No answer within the host's timeout. */
    public static function timeout(): self
    {
        return new self(self::TIMEOUT);
    }

    /** The call failed before any answer; `$message` is the transport's. */
    public static function failed(string $message): self
    {
        return new self(self::FAILED, message: $message);
    }
}
