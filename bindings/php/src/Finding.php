<?php

declare(strict_types=1);

namespace Kuatia;

/** One problem: a stable `code` (`VALIDATION_ERROR.REQUIRED`), the JSON `path` (`items[1].iva`), a message. */
final class Finding
{
    public function __construct(
        public readonly string $code,
        public readonly string $path,
        public readonly string $message,
    ) {
    }
}
