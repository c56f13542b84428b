<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * An issued document: the signed `rDE` in `xml` (what goes to SIFEN) and its `cdc`, `numero` (`001-001-0000001`),
 * `qr` (`dCarQR`), `digestValue` and `fechaEmision` (Paraguay local time).
 */
final class Issued
{
    public function __construct(
        public readonly string $xml,
        public readonly string $cdc,
        public readonly string $numero,
        public readonly string $qr,
        public readonly string $digestValue,
        public readonly string $fechaEmision,
    ) {
    }
}
