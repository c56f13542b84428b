<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * An error answer of the `/v1` API thrown by the typed calls of {@see Service} ({@see Service::handle()} returns it
 * as a {@see Response} instead): the HTTP `status()` (also `getCode()`), the registry `errorCode()`, the message,
 * and the findings `details()` (422).
 */
final class ApiException extends \RuntimeException
{
    /** @param list<array<string, mixed>> $details */
    public function __construct(
        private readonly int $status,
        private readonly string $errorCode,
        string $message,
        private readonly array $details = [],
    ) {
        parent::__construct("{$status} {$errorCode}: {$message}", $status);
    }

    /** The HTTP status of the answer. */
    public function status(): int
    {
        return $this->status;
    }

    /** The stable code of the registry (`INVALID_QUERY`, `NOT_FOUND`, ...). */
    public function errorCode(): string
    {
        return $this->errorCode;
    }

    /** @return list<array<string, mixed>> every finding (`code`, `path`, `message`) of a 422 */
    public function details(): array
    {
        return $this->details;
    }
}
