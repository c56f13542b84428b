<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * The verdict on a signature (`valid`) and the library's full `report` (`digest_ok`, `signature_ok`,
 * `certificate`, `reference_id`, `certificate_valid_at`, `error`).
 */
final class Verification
{
    /** @param array<string, mixed> $report */
    public function __construct(
        public readonly bool $valid,
        public readonly array $report,
    ) {
    }
}
