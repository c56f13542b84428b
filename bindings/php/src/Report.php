<?php

declare(strict_types=1);

namespace Kuatia;

/** A validation report: `ok` is true when `errors` is empty. */
final class Report
{
    /** @param list<Finding> $errors every finding, in the library's order */
    public function __construct(
        public readonly bool $ok,
        public readonly array $errors,
    ) {
    }
}
